"""Parallel tool calls whose chat pieces interleave (index 0, 1, 0 …) reach Claude Code and
Codex whole: one block or item open at a time, no piece after its block stopped, and each
call's input exactly what the upstream sent. Checked by the SDKs' own stream accumulators."""

from __future__ import annotations

import itertools
from typing import Any

import anthropic.types as at
import openai.types.responses as rt
import orjson
from anthropic.lib.streaming._messages import accumulate_event
from hypothesis import given, settings
from hypothesis import strategies as st
from openai import omit
from openai.lib.streaming.responses._responses import ResponseStreamState
from pydantic import TypeAdapter

from router.translate import anthropic_reply, responses_reply
from router.translate.blocks import TEXT, Key, Sequencer

ANTHROPIC_EVENT: TypeAdapter[Any] = TypeAdapter(at.RawMessageStreamEvent)
RESPONSES_EVENT: TypeAdapter[Any] = TypeAdapter(rt.ResponseStreamEvent)


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}


def call(index: int, arguments: str, name: str | None = None) -> dict[str, Any]:
    piece: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if name:
        piece |= {"id": f"call_{name}", "type": "function"}
        piece["function"]["name"] = name
    return chunk({"tool_calls": [piece]})


INTERLEAVED = [
    chunk({"role": "assistant", "content": ""}),
    call(0, '{"city": ', "weather"),
    call(1, '{"q": "gr', "search"),
    call(0, '"Paris"'),
    chunk({"content": "Looking both up."}),
    call(1, 'een tea"}'),
    call(0, "}"),
    chunk({}, "tool_calls"),
]
WANT = {"weather": {"city": "Paris"}, "search": {"q": "green tea"}}


def events(stream: Any, chunks: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    raw = b"".join(b for c in chunks for b in stream.feed(c)) + b"".join(stream.end())
    out = []
    for frame in raw.decode().split("\n\n"):
        if frame:
            name, data = frame.split("\n", 1)
            out.append((name.removeprefix("event: "), orjson.loads(data.removeprefix("data: "))))
    return out


def test_interleaved_calls_become_sequential_anthropic_blocks() -> None:
    open_block: int | None = None
    snapshot = None
    json_bufs: dict[int, bytes] = {}  # the SDK keeps each block's JSON between events
    for name, payload in events(anthropic_reply.MessagesStream(), INTERLEAVED):
        event = ANTHROPIC_EVENT.validate_python(payload)
        if name == "content_block_start":
            assert open_block is None, "a block started while another was open"
            open_block = payload["index"]
        elif name == "content_block_delta":
            assert payload["index"] == open_block, "a piece for a block that is not open"
        elif name == "content_block_stop":
            assert payload["index"] == open_block
            open_block = None
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
    assert snapshot is not None and snapshot.stop_reason == "tool_use"
    calls = {b.name: b.input for b in snapshot.content if b.type == "tool_use"}
    assert calls == WANT
    assert [b.text for b in snapshot.content if b.type == "text"] == ["Looking both up."]


def test_interleaved_calls_become_sequential_responses_items() -> None:
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
    open_items: set[int] = set()
    completed: dict[str, Any] = {}
    for name, payload in events(responses_reply.ResponsesStream({"model": "auto"}), INTERLEAVED):
        event = RESPONSES_EVENT.validate_python(payload)
        state.handle_event(event)
        if name == "response.output_item.added":
            assert not open_items, "an item was added while another was open"
            open_items.add(payload["output_index"])
        elif name.endswith(".delta"):
            assert payload["output_index"] in open_items, "a piece for an item that is done"
        elif name == "response.output_item.done":
            open_items.remove(payload["output_index"])
        elif name == "response.completed":
            completed = payload["response"]
    calls = {o["name"]: orjson.loads(o["arguments"]) for o in completed["output"] if "name" in o}
    assert calls == WANT
    # What Codex reads item by item matches the final response.
    streamed = {
        o.name: orjson.loads(o.arguments)
        for o in state._output_items.values()
        if o.type == "function_call"
    }
    assert streamed == WANT


def test_calls_one_after_another_still_stream_live() -> None:
    """The second call's block starts when its first piece arrives, not at the end."""
    stream = anthropic_reply.MessagesStream()
    stream.feed(chunk({"role": "assistant", "content": ""}))
    stream.feed(call(0, '{"city": "Paris"}', "weather"))
    second = b"".join(stream.feed(call(1, '{"q": ', "search")))
    assert b"content_block_stop" in second and b"content_block_start" in second
    assert b'"partial_json":"{\\"q\\": "' in second


# Any interleaving of any split of several calls' arguments and some text.
_pieces = st.lists(st.text(alphabet='ab"{} ,:', min_size=1, max_size=4), min_size=1, max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_interleaving_keeps_every_piece_in_its_block(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 3), label="calls")
    wholes = {
        i: data.draw(
            st.dictionaries(st.text("xyz", max_size=3), st.integers(-999, 999), max_size=2)
        )
        for i in range(n)
    }
    texts: dict[Any, str] = {i: orjson.dumps(w).decode() for i, w in wholes.items()}
    splits: dict[Key, list[str]] = {
        i: _split(texts[i], data.draw(_cuts(len(texts[i])))) for i in range(n)
    }
    splits[TEXT] = data.draw(_pieces, label="text")
    order = data.draw(st.permutations([k for k, parts in splits.items() for _ in parts]))
    cursor = dict.fromkeys(splits, 0)
    sequencer, open_key, stopped = Sequencer(), None, set()
    seen: dict[int, tuple[Key, str]] = {}
    steps = []
    for key in order:
        part = splits[key][cursor[key]]
        cursor[key] += 1
        steps += sequencer.piece(key, part)
    steps += sequencer.end()
    for step, block, text in steps:
        if step == "open":
            assert open_key is None and id(block) not in stopped
            open_key = id(block)
        elif step == "piece":
            assert id(block) == open_key
            seen[id(block)] = (block.key, seen.get(id(block), (block.key, ""))[1] + text)
        else:
            assert id(block) == open_key
            stopped.add(id(block))
            open_key = None
    assert open_key is None
    calls = {key: text for key, text in seen.values() if key != TEXT}
    assert calls == {i: texts[i] for i in range(n) if texts[i]}
    assert "".join(text for key, text in seen.values() if key == TEXT) == "".join(splits[TEXT])


def _cuts(length: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(1, max(1, length - 1)), max_size=3, unique=True).map(sorted)


def _split(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *[c for c in cuts if 0 < c < len(text)], len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def test_every_upstream_piece_reaches_the_relay_even_when_it_makes_no_event() -> None:
    """Pieces held back behind an incomplete call made no event, so the relay's stall timer
    (which counts what reaches it) ended a live stream as stalled (found in review)."""
    import asyncio

    from router.translate.exchange import _translated

    upstream = [
        chunk({"role": "assistant", "content": ""}),
        {**call(0, "", "get_time")},  # no arguments yet: the call may still grow
        *[chunk({"content": f"word{i} "}) for i in range(5)],
        chunk({}, "tool_calls"),
    ]
    raw = [b"data: " + orjson.dumps(c) + b"\n\n" for c in upstream] + [b"data: [DONE]\n\n"]

    async def pieces() -> Any:
        for piece in raw:
            yield piece

    async def collect() -> list[bytes]:
        return [
            item async for item in _translated(pieces(), anthropic_reply.MessagesStream(), "local")
        ]

    out = asyncio.run(collect())
    assert len(out) == len(raw)  # one item per upstream piece, empty or not
    assert out[2:7] == [b""] * 5  # the text waits behind the call...
    assert b"word4" in out[-1]  # ...and comes out at the end, nothing lost


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-999, 999) | st.text('a"\\{}[],: '),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text('a"\\{}'), inner),
        max_leaves=8,
    ).filter(lambda v: isinstance(v, dict | list)),
    st.integers(1, 7),
)
def test_a_call_is_whole_exactly_when_its_json_is(value: Any, size: int) -> None:
    from router.translate.blocks import JsonShape

    text = orjson.dumps(value).decode()
    shape = JsonShape()
    for start in range(0, len(text), size):
        shape.feed(text[start : start + size])
        assert shape.whole == (start + size >= len(text))
