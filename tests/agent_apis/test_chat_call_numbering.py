"""Parallel tool calls reach chat clients numbered as OpenAI numbers them, whatever the
upstream did: the openai SDK's stream accumulator (like most agent loops) joins fragments
by `index`, so Ollama's calls, all at `index: 0` (ollama/ollama#15457) or with no `index`
at all (before 0.4.7, #7881), became one call whose arguments were `{...}{...}`. A stream
numbered and shaped as OpenAI's reaches the client byte for byte (vLLM's gets its opening
fragments' empty arguments: `test_chat_call_opening`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from router.relay import Tally
from tests.agent_apis.agent_stack import openai_client, relayed_and_direct, stack_config
from tests.harness import config_for, router, scripted_stream, simulator

TOOLS: Any = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
    for name in ("read_file", "write_file")
]
MESSAGES: Any = [{"role": "user", "content": "Read a.py and write b.py"}]
WANT = [("read_file", {"path": "src/main.py"}), ("write_file", {"path": "src/main.py"})]


@pytest.mark.parametrize("fault", ["ollama_tool_calls", "unindexed_tool_calls"])
def test_ollamas_parallel_calls_reach_the_openai_sdk_apart(fault: str, tmp_path: Path) -> None:
    """The SDK's accumulated message had one call, `read_file`, with arguments
    `{"path": ...}{"path": ...}` (`index: 0`), or the SDK failed on the missing index."""
    with (
        simulator(profile="cloud", model="cloud-model", fault=fault) as sim,
        router(stack_config({"cloud": sim}, tmp_path, ["cloud"])) as running,
    ):
        client = openai_client(running)
        with client.chat.completions.stream(model="auto", messages=MESSAGES, tools=TOOLS) as stream:
            seen = [
                (c.index, c.function.name if c.function else None)
                for e in stream
                if e.type == "chunk" and e.chunk.choices
                for c in e.chunk.choices[0].delta.tool_calls or ()
            ]
            final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls or []
    assert [(c.function.name, orjson.loads(c.function.arguments)) for c in calls] == WANT
    assert len({c.id for c in calls}) == 2 and all(c.id for c in calls)
    assert seen == [(0, "read_file"), (1, "write_file")]  # what a client reading chunks sees
    assert final.choices[0].finish_reason == "tool_calls"


def test_openai_numbered_calls_pass_through_byte_for_byte(tmp_path: Path) -> None:
    """OpenAI's stream (two choices, a call in each, both `index: 0`, as each choice numbers
    its own calls) reaches the client exactly as the backend sent it; vLLM's, numbered the
    same, differs only in its calls' openings (`test_chat_call_opening`)."""
    relayed, direct = relayed_and_direct(tmp_path, "cloud", MESSAGES, TOOLS)
    assert b'"tool_calls"' in relayed and b'"index":1,"delta"' in relayed
    assert relayed == direct


def _chunk(choice: int, calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {"choices": [{"index": choice, "delta": {"tool_calls": calls}}]}


def _call(index: int, call_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    call: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if call_id and name:
        call |= {"id": call_id, "type": "function"}
        call["function"]["name"] = name
    return call


def test_each_choice_numbers_its_own_calls() -> None:
    """Two choices' calls, each choice's whole at `index: 0` and then another at 1: one
    numbering for the whole stream would have renumbered the second choice's calls 2, 3."""
    stream = [
        _chunk(0, [_call(0, "a", "read_file", '{"path": "a.py"}')]),
        _chunk(1, [_call(0, "b", "read_file", '{"path": "b.py"}')]),
        _chunk(0, [_call(1, "c", "write_file", '{"path": ')]),
        _chunk(1, [_call(1, "d", "write_file", '{"path": ')]),
        _chunk(0, [_call(1, None, None, '"c.py"}')]),
        _chunk(1, [_call(1, None, None, '"d.py"}')]),
    ]
    tally = Tally(keep_text=True)
    for obj in stream:
        before = orjson.dumps(obj)
        assert not tally.see(obj) and orjson.dumps(obj) == before
    kept = [(c["function"]["name"], c["function"]["arguments"]) for c in tally.answer_tool_calls()]
    assert kept == [("read_file", '{"path": "a.py"}'), ("write_file", '{"path": "c.py"}')]


def _ollama_call(call_id: str, name: str, event_id: int) -> bytes:
    call = {"id": call_id, "index": 0, "type": "function"}
    call["function"] = {"name": name, "arguments": '{"path": "a.py"}'}
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    choice = {"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}
    return f"id: {event_id}\n".encode() + b"data: " + orjson.dumps(chunk | {"choices": [choice]})


def test_a_renumbered_chunk_keeps_its_event_lines(tmp_path: Path) -> None:
    """The renumbered event was rebuilt from its data alone: the upstream's `id:` line went
    (found in review); every other event keeps its framing as sent."""
    end = b'data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m",'
    end += b'"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}'
    events = [_ollama_call("call_a", "read_file", 1), _ollama_call("call_b", "write_file", 2)]
    body = b"\n\n".join([*events, end, b"data: [DONE]"]) + b"\n\n"
    with (
        scripted_stream(body) as upstream,
        router(config_for({"local": upstream}, tmp_path)) as proxy,
    ):
        ask = {"model": "coding", "messages": MESSAGES, "tools": TOOLS, "stream": True}
        sent = httpx.post(f"{proxy.url}/chat/completions", json=ask, timeout=30).content
    frames = [frame for frame in sent.split(b"\n\n") if b"call_" in frame]
    assert [frame.split(b"\n")[0] for frame in frames] == [b"id: 1", b"id: 2"]
    calls = [orjson.loads(frame.split(b"data: ")[1]) for frame in frames]
    assert [c["choices"][0]["delta"]["tool_calls"][0]["index"] for c in calls] == [0, 1]


def test_the_kept_text_of_several_choices_is_the_first_choices() -> None:
    """With `n: 2` the text kept for shadow comparison and the ledger interleaved both
    answers (found in review); the kept calls were already the first choice's."""
    tally = Tally(keep_text=True)
    for index, word in [(0, "And "), (1, "Cost "), (0, "every"), (1, "so")]:
        tally.see({"choices": [{"index": index, "delta": {"content": word}}]})
    assert str(tally.text) == "And every"
