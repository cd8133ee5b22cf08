"""The relay on its own: the stall timer, and how a stream its own bug broke ends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from router import relay as relay_module
from router.backends.base import Reply
from router.dispatch import Call, Committed, Dispatcher
from router.record import Attempt, Record
from router.relay import relay
from router.stall import Stall
from tests.harness import breaks_on_call


async def test_a_wait_longer_than_its_limit_is_a_stall() -> None:
    stall = Stall()
    stall.arm(0.05)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.sleep(1)
    assert stall.expired()
    stall.disarm()
    stall.close()
    await asyncio.sleep(0)  # the task was uncancelled: it runs on


@dataclass
class Timer:
    when: float
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class Clock:
    """The two things a `Stall` asks of its loop, on a clock the test moves: with real
    sleeps, a runner that paused the process for 30 ms woke the 0.02 s wait and the 0.05 s
    timer in one loop turn, and the timer fired (a race, not a stall)."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[Timer] = []

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        self.timers.append(timer := Timer(when, callback))
        return timer

    def advance(self, seconds: float) -> None:
        """Move time on, running the timers that came due, earliest first, as a loop would."""
        self.now += seconds
        while due := [t for t in self.timers if t.when <= self.now]:
            timer = min(due, key=lambda t: t.when)
            self.timers.remove(timer)
            if not timer.cancelled:
                timer.callback()


async def test_short_waits_and_time_between_waits_never_stall() -> None:
    stall, clock = Stall(), Clock()
    stall._loop = clock  # type: ignore[assignment]
    for _ in range(8):  # 0.16 s of waiting in all, 0.02 s at a time, limit 0.05 s
        stall.arm(0.05)
        clock.advance(0.02)
        stall.disarm()
        clock.advance(0.03)  # a slow client: not the upstream's time
    clock.advance(0.1)
    await asyncio.sleep(0)  # a stall that fired cancelled this task: it would raise here
    stall.close()
    assert not stall.expired()
    stall.arm(0.05)  # and the clock does drive it: a wait past its limit fires
    clock.advance(0.06)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.sleep(0)
    assert stall.expired()
    stall.disarm()
    stall.close()


async def test_a_cancellation_from_elsewhere_is_not_a_stall() -> None:
    stall = Stall()

    async def wait() -> bool:
        stall.arm(10)
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return stall.expired()
        finally:
            stall.disarm()
            stall.close()
        return True

    task = asyncio.get_running_loop().create_task(wait())
    await asyncio.sleep(0.01)
    task.cancel()
    assert await task is False


async def test_a_bug_mid_piece_still_sends_the_events_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Events the tally saw before a bug broke their piece reach the client ahead of the
    `response.failed` event, so its sequence number follows the last one the client read."""
    monkeypatch.setattr(relay_module.events, "see", breaks_on_call(3, relay_module.events.see))
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    piece = [  # one upstream piece holding three events
        _responses_event("response.created", 0, response=response),
        _responses_event("response.in_progress", 1, response=response),
        _responses_event("response.output_text.delta", 2, delta="Hi", item_id="m", output_index=0),
    ]
    finished: list[Record] = []
    call = Call("responses", {}, True, Record("r1", 0.0, api="responses"), None, 0.0)  # type: ignore[arg-type]
    committed = Committed(
        backend=None,  # type: ignore[arg-type]
        attempt=Attempt("local", "local"),
        reply=Reply(200, {}),
        started=0.0,
        deadline=float("inf"),
        first_events=piece,
    )
    stream = relay(call, committed, Dispatcher({}), lambda c, _: finished.append(c.record))
    sent = b"".join([chunk async for chunk in stream])

    datas = [
        json.loads(line[6:]) for line in sent.decode().splitlines() if line.startswith("data: ")
    ]
    assert [d["type"] for d in datas] == [
        "response.created",
        "response.in_progress",
        "response.failed",
    ]
    assert datas[-1]["sequence_number"] == 2 and datas[-1]["response"]["id"] == "resp_1"
    assert finished[0].outcome == "router_error"


def _responses_event(kind: str, sequence: int, **fields: Any) -> tuple[bytes, bytes]:
    data = json.dumps({"type": kind, "sequence_number": sequence, **fields}).encode()
    return b"event: " + kind.encode() + b"\ndata: " + data + b"\n\n", data
