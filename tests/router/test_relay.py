"""The relay on its own: the stall timer, and how a stream its own bug broke ends."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from router import relay as relay_module
from router.backends.base import Reply
from router.dispatch import Call, Committed, Dispatcher
from router.record import Attempt, Record
from router.relay import Stall, relay
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


async def test_short_waits_and_time_between_waits_never_stall() -> None:
    stall = Stall()
    for _ in range(8):  # 0.16 s of waiting in all, 0.02 s at a time, limit 0.05 s
        stall.arm(0.05)
        await asyncio.sleep(0.02)
        stall.disarm()
        await asyncio.sleep(0.03)  # a slow client: not the upstream's time
    await asyncio.sleep(0.1)
    stall.close()
    assert not stall.expired()  # never fired (a fired stall would have cancelled this task)


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
