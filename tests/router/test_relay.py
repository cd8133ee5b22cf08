"""The relay on its own: the stall timer, and how a stream its own bug broke ends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from router import relay as relay_module
from router.backends.base import Reply
from router.call import Call, Committed
from router.dispatch import Dispatcher
from router.record import Api, Attempt, Record
from router.relay import Tally, relay
from router.stall import Stall
from router.translate.wire import named_event
from tests.agent_apis.chat_chunks import call, chunk, sse
from tests.harness import breaks_on_call
from tests.memory import small_deltas, traced


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


_COUNT = 50_000  # 4-character deltas: 200 KB, a big file's `write_file` or `apply_patch`
_WHOLE = "".join(small_deltas(_COUNT))


@pytest.mark.parametrize(
    ("api", "kind"),
    [
        ("chat", "text"),
        ("chat", "call"),
        ("messages", "text"),
        ("messages", "call"),
        ("responses", "text"),
        ("responses", "call"),
    ],
)
async def test_a_long_answer_is_kept_once_for_the_shadow_and_the_ledger(
    api: Api, kind: str
) -> None:
    """With `keep_text` (a request picked for shadow replay, or `store_text`) the relay kept
    the answer's text and each call's arguments as a list of one str per delta: 15 times
    their size (16.5 a chat call's, its `CallKeys` kept them joined too; 3.1 a Responses
    custom call's, encoded again beside the `SoFar`'s done item and its deltas, still held),
    found in re-review. Now they are joined as they come, a chat call's shared with its
    `CallKeys`, a custom call's input with its done item, which the `SoFar` keeps for a
    `response.failed` (a Responses text's second copy is the done message's). What the
    shadow and the ledger read is the same."""
    events, calls = _stream(api, kind)
    committed = Committed(
        backend=_Upstream(),  # type: ignore[arg-type]
        attempt=Attempt("local", "local"),
        reply=Reply(200, {}),
        started=0.0,
        deadline=float("inf"),
        pieces=_pieces(events),
    )
    call_ = Call(api, {}, True, Record("r1", 0.0, api=api), None, 0.0)  # type: ignore[arg-type]
    finished: list[Tally] = []
    tally = Tally(api=api, keep_text=True)
    with traced() as kept:
        stream = relay(call_, committed, Dispatcher({}), lambda _, t: finished.append(t), tally)
        assert await _drained(stream) > len(_WHOLE)
    copies = 2 if (api, kind) == ("responses", "text") else 1
    assert kept.held < (copies + 0.5) * len(_WHOLE)  # and the joining's spare room
    assert finished == [tally] and call_.record.outcome == "ok"
    assert str(tally.text) == ("" if calls else _WHOLE)
    assert tally.answer_tool_calls() == calls


class _Upstream:
    """What the relay asks of the committed backend mid-stream: its name and idle limit."""

    settings = SimpleNamespace(name="local", timeouts=SimpleNamespace(idle_s=60.0))


async def _drained(stream: AsyncIterator[bytes]) -> int:
    """The bytes sent, none held: a chunk still held (the last, 200 KB) was counted as kept."""
    return sum([len(chunk) async for chunk in stream])


async def _pieces(events: list[bytes]) -> AsyncIterator[bytes]:
    for piece in events:  # one event a piece, as an upstream that flushes every token sends
        yield piece


def _stream(api: Api, kind: str) -> tuple[list[bytes], list[dict[str, Any]]]:
    """A stream of `_WHOLE` in 4-character deltas, as text or as a call's arguments (a
    Responses call's: a custom call's input), and the tool calls the tally reads from it."""
    deltas = [_WHOLE[n : n + 4] for n in range(0, len(_WHOLE), 4)]
    arguments = '{"content": "' + _WHOLE + '"}'
    function = {"name": "write_file", "arguments": arguments}
    if api == "responses" and kind == "call":
        function = {"name": "apply_patch", "arguments": orjson.dumps({"input": _WHOLE}).decode()}
    calls = [{"type": "function", "function": function}] if kind == "call" else []
    if api == "chat":
        return _chat(kind, deltas), calls
    if api == "messages":
        return _messages(kind, deltas), calls
    return _responses(kind, deltas), calls


def _chat(kind: str, deltas: list[str]) -> list[bytes]:
    if kind == "text":
        body = [chunk({"content": d}) for d in deltas]
    else:
        parts = ['{"content": "', *deltas, '"}']
        body = [call(0, p, None if n else "write_file") for n, p in enumerate(parts)]
    chunks = [chunk({"role": "assistant", "content": ""}), *body]
    chunks.append(chunk({}, "stop" if kind == "text" else "tool_calls"))
    return [*map(sse, chunks), b"data: [DONE]\n\n"]


def _messages(kind: str, deltas: list[str]) -> list[bytes]:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m"}
    message |= {"content": [], "stop_reason": None, "usage": {"input_tokens": 9}}
    if kind == "text":
        block: dict[str, Any] = {"type": "text", "text": ""}
        pieces = [{"type": "text_delta", "text": d} for d in deltas]
    else:
        block = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}
        parts = ['{"content": "', *deltas, '"}']
        pieces = [{"type": "input_json_delta", "partial_json": p} for p in parts]
    events = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": block},
        *({"type": "content_block_delta", "index": 0, "delta": p} for p in pieces),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn" if kind == "text" else "tool_use"},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]
    return [named_event(e["type"], e) for e in events]


def _responses(kind: str, deltas: list[str]) -> list[bytes]:
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    at = {"output_index": 0}
    if kind == "text":
        item: dict[str, Any] = {"type": "message", "id": "msg_1", "role": "assistant"}
        opened = [{"type": "response.content_part.added", **at, "content_index": 0}]
        opened[0]["part"] = {"type": "output_text", "text": ""}
        delta = {"type": "response.output_text.delta", **at, "content_index": 0}
        done = {**item, "content": [{"type": "output_text", "text": _WHOLE}]}
    else:
        item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1"}
        item |= {"name": "apply_patch", "input": ""}
        opened = []
        delta = {"type": "response.custom_tool_call_input.delta", **at}
        done = {**item, "input": _WHOLE}
    completed = {**response, "status": "completed", "output": [done]}
    events = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", **at, "item": item},
        *opened,
        *({**delta, "delta": d} for d in deltas),
        {"type": "response.output_item.done", **at, "item": done},
        {"type": "response.completed", "response": completed},
    ]
    return [named_event(e["type"], {**e, "sequence_number": n}) for n, e in enumerate(events)]
