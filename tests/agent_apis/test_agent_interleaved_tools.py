"""Parallel tool calls whose chat pieces interleave (index 0, 1, 0 …) reach Claude Code and
Codex whole: one block or item open at a time, no piece after its block stopped, and each
call's input exactly what the upstream sent. Checked by the SDKs' own stream accumulators."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import anthropic.types as at
import openai.types.responses as rt
import orjson
import pytest
from anthropic.lib.streaming._messages import accumulate_event
from hypothesis import given, settings
from hypothesis import strategies as st
from openai import omit
from openai.lib.streaming.responses._responses import ResponseStreamState
from pydantic import TypeAdapter

from router.translate import anthropic_reply, responses_reply
from router.translate.blocks import TEXT, Key, Sequencer
from tests.agent_apis.agent_stack import anthropic_client, openai_client, stack_config
from tests.harness import RunningRouter, router, simulator

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


def whole_call(call_id: str, name: str, arguments: str, index: int | None = 0) -> dict[str, Any]:
    """A call in one fragment, as Ollama streams each (`index` None: one without any)."""
    piece: dict[str, Any] = {"id": call_id, "type": "function"}
    piece["function"] = {"name": name, "arguments": arguments}
    return piece if index is None else {"index": index} | piece


PARIS, ROME = '{"city": "Paris"}', '{"city": "Rome"}'
WANT_TWO = [("call_a", "weather", {"city": "Paris"}), ("call_b", "weather", {"city": "Rome"})]
# Parallel calls of upstreams that do not number or name them as OpenAI does.
UNNUMBERED = {
    # Ollama: each call whole in its own chunk, every one `index: 0` (ollama/ollama#15457)
    "same_index": [
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [whole_call("call_a", "weather", PARIS)]}),
        chunk({"tool_calls": [whole_call("call_b", "weather", ROME)]}),
        chunk({}, "tool_calls"),
    ],
    # no `index` at all, the calls side by side in one delta (Ollama before 0.4.7, #7881)
    "no_index": [
        chunk({"role": "assistant", "content": ""}),
        chunk(
            {
                "tool_calls": [
                    whole_call("call_a", "weather", PARIS, None),
                    whole_call("call_b", "weather", ROME, None),
                ]
            }
        ),
        chunk({}, "tool_calls"),
    ],
    # another id on every fragment, the name only on the first (litellm's OCI provider)
    "new_id_each_fragment": [
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [whole_call("call_a", "weather", "")]}),
        chunk({"tool_calls": [{"index": 0, "id": "x1", "function": {"arguments": '{"city": '}}]}),
        chunk({"tool_calls": [{"index": 0, "id": "x2", "function": {"arguments": '"Paris"}'}}]}),
        chunk({"tool_calls": [whole_call("call_b", "weather", "", 1)]}),
        chunk({"tool_calls": [{"index": 1, "id": "x3", "function": {"arguments": ROME}}]}),
        chunk({}, "tool_calls"),
    ],
    # a second id on the later fragments of each call (Poolside's streaming API)
    "second_id_later": [
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [whole_call("call_a", "weather", '{"city": ')]}),
        chunk({"tool_calls": [{"index": 0, "id": "p", "function": {"arguments": '"Paris"}'}}]}),
        chunk({"tool_calls": [whole_call("call_b", "weather", '{"city": ', 1)]}),
        chunk({"tool_calls": [{"index": 1, "id": "q", "function": {"arguments": '"Rome"}'}}]}),
        chunk({}, "tool_calls"),
    ],
    # OpenAI's numbering, for contrast: the id only on each call's first fragment
    "interleaved": [
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [whole_call("call_a", "weather", '{"city": ')]}),
        chunk({"tool_calls": [whole_call("call_b", "weather", '{"city": "Ro', 1)]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": 'me"}'}}]}),
        chunk({}, "tool_calls"),
    ],
}


@pytest.mark.parametrize("shape", UNNUMBERED)
def test_parallel_calls_stay_apart_in_anthropic_blocks(shape: str) -> None:
    """Ollama's calls all came as one tool_use block whose input was `{...}{...}`."""
    snapshot = None
    json_bufs: dict[int, bytes] = {}
    for _, payload in events(anthropic_reply.MessagesStream(), UNNUMBERED[shape]):
        event = ANTHROPIC_EVENT.validate_python(payload)
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
    assert snapshot is not None and snapshot.stop_reason == "tool_use"
    calls = [(b.id, b.name, b.input) for b in snapshot.content if b.type == "tool_use"]
    assert calls == WANT_TWO


@pytest.mark.parametrize("shape", UNNUMBERED)
def test_parallel_calls_stay_apart_in_responses_items(shape: str) -> None:
    """Ollama's calls all came as one function_call whose arguments were not JSON."""
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
    completed: dict[str, Any] = {}
    stream = responses_reply.ResponsesStream({"model": "auto"})
    for name, payload in events(stream, UNNUMBERED[shape]):
        state.handle_event(RESPONSES_EVENT.validate_python(payload))
        if name == "response.completed":
            completed = payload["response"]
    final = [(o["call_id"], o["name"], orjson.loads(o["arguments"])) for o in completed["output"]]
    assert final == WANT_TWO
    streamed = [
        (o.call_id, o.name, orjson.loads(o.arguments))
        for o in state._output_items.values()
        if o.type == "function_call"
    ]
    assert streamed == WANT_TWO


@pytest.fixture(scope="module")
def ollama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """A router whose one backend, chat only, streams parallel calls as Ollama does."""
    with simulator(profile="cloud", model="cloud-model", fault="ollama_tool_calls") as sim:
        config = stack_config({"cloud": sim}, tmp_path_factory.mktemp("ollama"), ["cloud"])
        with router(config) as running:
            yield running


TWO_TOOLS = [
    {"name": n, "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}
    for n in ("read_file", "write_file")
]
ASK_TWO = "Read a.py and write b.py"
WANT_E2E = [("read_file", {"path": "src/main.py"}), ("write_file", {"path": "src/main.py"})]


def test_ollamas_parallel_calls_reach_claude_code_apart(ollama: RunningRouter) -> None:
    """They came as one tool_use whose input was `{...}{...}`: the SDK could not parse it."""
    client = anthropic_client(ollama)
    messages: Any = [{"role": "user", "content": ASK_TWO}]
    with client.messages.stream(
        model="auto",
        max_tokens=200,
        messages=messages,
        tools=TWO_TOOLS,  # type: ignore[arg-type]
    ) as stream:
        final = stream.get_final_message()
    calls = [b for b in final.content if b.type == "tool_use"]
    assert [(b.name, b.input) for b in calls] == WANT_E2E
    assert len({b.id for b in calls}) == 2 and final.stop_reason == "tool_use"


def test_ollamas_parallel_calls_reach_codex_apart(ollama: RunningRouter) -> None:
    """They came as one function_call whose arguments were not JSON."""
    client = openai_client(ollama)
    tools: Any = [
        {"type": "function", "name": t["name"], "parameters": t["input_schema"]} for t in TWO_TOOLS
    ]
    with client.responses.stream(model="auto", input=ASK_TWO, tools=tools) as stream:
        done = [e.item for e in stream if e.type == "response.output_item.done"]
        final = stream.get_final_response()
    for items in (done, final.output):
        calls = [i for i in items if i.type == "function_call"]
        assert [(i.name, orjson.loads(i.arguments)) for i in calls] == WANT_E2E
        assert len({i.call_id for i in calls}) == 2


def test_calls_one_after_another_still_stream_live() -> None:
    """The second call's block starts when its first piece arrives, not at the end; the
    first call's input goes out whole as its block stops, the second's piece is held."""
    stream = anthropic_reply.MessagesStream()
    stream.feed(chunk({"role": "assistant", "content": ""}))
    stream.feed(call(0, '{"city": "Paris"}', "weather"))
    second = b"".join(stream.feed(call(1, '{"q": ', "search")))
    assert b"content_block_stop" in second and b"content_block_start" in second
    assert b'"partial_json":"{\\"city\\": \\"Paris\\"}"' in second
    assert b'\\"q\\"' not in second


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
