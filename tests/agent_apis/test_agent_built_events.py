"""A translated stream's events reach the relay as the translator built them (`sse.Written`):
the relay reads each one's object instead of decoding the bytes the router has just encoded.
What it reads must be what a client decodes from those bytes, and what it learns the same
as when it read the bytes itself."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import openai
import orjson
import pytest

from router import commit as commit_module
from router import relay as relay_module
from router.backends.base import Reply
from router.call import Call, Committed
from router.config import parse
from router.dispatch import Dispatcher
from router.record import Api, Attempt, Record
from router.relay import Tally, relay
from router.sse import Built, Written, data_of
from router.translate import tool_ids
from router.translate.exchange import _translated, stream_for
from tests.agent_apis.chat_chunks import DONE, TEXT_STREAM, TOOL_STREAM, USAGE, call, chunk, sse
from tests.harness import config_for, router, sdk, simulator

_OPENER = chunk({"role": "assistant", "content": ""})
_STREAMS: dict[str, list[dict[str, Any]]] = {
    "text": TEXT_STREAM,
    "tools": TOOL_STREAM,
    "reasoning": [
        _OPENER,
        *(chunk({"reasoning": f"step {n}. "}) for n in range(3)),
        chunk({"content": "Done."}),
        chunk({}, "stop"),
        {**chunk({}), "choices": [], "usage": USAGE},
    ],
    "refusal": [_OPENER, chunk({"refusal": "I can't."}), chunk({}, "stop")],
    "custom call": [
        _OPENER,
        call(0, '{"input": "*** Begin Patch\\n', "apply_patch"),
        call(0, '*** End Patch"}'),
        chunk({}, "tool_calls"),
    ],
    "cut by the limit": [_OPENER, chunk({"content": "Half an ans"}), chunk({}, "length")],
}
_REQUESTS: dict[str, dict[str, Any]] = {
    "messages": {
        "model": "auto",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "hi"}],
    },
    "responses": {
        "model": "auto",
        "input": "hi",
        "tools": [{"type": "custom", "name": "apply_patch"}],
    },
}
_CASES = [(api, name) for api in ("messages", "responses") for name in _STREAMS]


def _upstream(name: str) -> list[bytes]:
    """The chat stream as an upstream that flushes every chunk sends it."""
    return [*map(sse, _STREAMS[name]), DONE]


async def _pieces(pieces: list[bytes]) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece


async def _written(api: Api, name: str) -> list[Written]:
    out = stream_for(api, {**_REQUESTS[api], "stream": True})
    written = []
    async for piece in _translated(_pieces(_upstream(name)), out, "local"):
        assert type(piece) is Written
        written.append(piece)
    return written


@pytest.mark.parametrize(("api", "name"), _CASES)
def test_every_translated_event_carries_the_object_its_bytes_encode(api: Api, name: str) -> None:
    """Read once the stream is over: a translator that changed an object after writing its
    event would have the relay read what no client was sent."""
    pieces = asyncio.run(_written(api, name))
    assert [b"".join(raw for raw, _ in piece.events) for piece in pieces] == pieces
    events = [event for piece in pieces for event in piece.events]
    assert events and all(type(raw) is Built for raw, _ in events)
    for raw, obj in events:
        data = data_of(raw)
        assert data is not None and obj == orjson.loads(data)


class _Upstream:
    settings = SimpleNamespace(name="local", timeouts=SimpleNamespace(idle_s=60.0))

    def secret_values(self) -> tuple[str, ...]:
        return ()


async def _relayed(api: Api, name: str, as_piece: Callable[[bytes], bytes]) -> tuple[bytes, Tally]:
    """What the client got and what the relay learned, each translated piece `as_piece`."""
    request = {**_REQUESTS[api], "stream": True}
    out = stream_for(api, request)

    async def pieces() -> AsyncIterator[bytes]:
        async for piece in _translated(_pieces(_upstream(name)), out, "local"):
            yield as_piece(piece)

    committed = Committed(
        backend=_Upstream(),  # type: ignore[arg-type]
        attempt=Attempt("local", "local"),
        reply=Reply(200, {}, translation=out),
        started=0.0,
        deadline=float("inf"),
        pieces=pieces(),
    )
    call_ = Call(api, request, True, Record("r1", 0.0, api=api), None, 0.0)  # type: ignore[arg-type]
    tally = Tally(api=api, keep_text=True)
    stream = relay(call_, committed, Dispatcher({}), lambda *_: None, tally)
    sent = b"".join([chunk_ async for chunk_ in stream])
    assert call_.record.outcome == "ok" and call_.record.ttft_s is not None
    return sent, tally


def _learnt(tally: Tally) -> tuple[Any, ...]:
    return (
        tally.usage,
        tally.usage_final,
        tally.finish_reasons,
        tally.output_chars,
        tally.held_chars,
        str(tally.text),
        tally.answer_tool_calls(),
        tally.done,
        tally.sequence,
        tally.response_id,
        tally.created,
        tally.so_far.output(),
    )


@pytest.mark.parametrize(("api", "name"), _CASES)
async def test_the_relay_learns_the_same_from_built_events_as_from_their_bytes(
    api: Api, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same stream relayed twice: its events as built, and as plain bytes, which the
    relay splits and decodes as an upstream's. Only the times the translator makes anew
    differ (its ids' random part, `reply_part`, is fixed here); the client gets the same
    events, and the tally says the same of them."""
    monkeypatch.setattr(tool_ids, "reply_part", lambda: "p1")
    built_sent, built = await _relayed(api, name, lambda piece: piece)
    bytes_sent, read = await _relayed(api, name, bytes)
    assert _shape(built_sent) == _shape(bytes_sent)
    assert _steady(_learnt(built)) == _steady(_learnt(read))


def _shape(sent: bytes) -> list[Any]:
    """The events sent, their made-up ids and times left out."""
    datas = [data_of(event + b"\n\n") for event in sent.split(b"\n\n") if event]
    return [_steady(orjson.loads(data)) for data in datas if data is not None]


def _steady(value: Any) -> Any:
    """`value` without what differs between two translations of one stream: the times."""
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k not in ("created_at",)}
    if isinstance(value, list | tuple):
        return [_steady(v) for v in value]
    return value


def test_a_translated_stream_is_held_and_relayed_without_decoding_its_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the running router, the commit's and the relay's JSON decoding made to fail:
    a Responses stream translated from chat (paced, so that pieces come after the commit)
    is still answered whole, so neither decoded an event the translator wrote (both did:
    ~36 µs a stream, found in review). A chat stream, whose upstream bytes they must
    decode, fails: the patch took."""

    def refuse(data: object) -> object:
        raise AssertionError("decoded what the translator built")

    decoding = SimpleNamespace(
        loads=refuse, dumps=orjson.dumps, JSONDecodeError=orjson.JSONDecodeError
    )
    with simulator(profile="vllm", model="local-model", tokens_per_s=200) as local:
        data = config_for({"local": local}, tmp_path).model_dump(mode="json")
        data["backends"][0]["apis"] = ["chat"]
        with router(parse(data)) as running:
            for module in (commit_module, relay_module):
                monkeypatch.setattr(module, "orjson", decoding)
            client = sdk(running)
            events = list(
                client.responses.create(
                    model="local", input="Say hi.", stream=True, max_output_tokens=32
                )
            )
            with pytest.raises(openai.APIError):
                ask = [{"role": "user", "content": "Say hi."}]
                list(client.chat.completions.create(model="local", messages=ask, stream=True))
    assert [e.type for e in events].count("response.output_text.delta") > 8
    assert events[-1].type == "response.incomplete"  # whole, to its 32 tokens
    assert events[-1].response.incomplete_details.reason == "max_output_tokens"
