"""How a chat upstream said its answer ended, as Claude Code and Codex are told it, through
the official SDKs over a scripted chat upstream, streamed and whole.

Found in review: Mistral's `finish_reason: "model_length"` (its API's FinishReason: the
context window cut the answer) read as an end, so a cut answer reached Claude Code as
`end_turn` (a cut tool call as `tool_use`, a tool to run with half its input) and Codex as
`completed`; it is now a token limit's cut, as `length` is (`wire.LIMIT_REASONS`). And an
upstream that said `tool_calls` over a text answer gave Claude Code `stop_reason:
"tool_use"` with no tool_use block, which Anthropic never sends: a client looping on it
found no call to run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.agent_apis.agent_stack import WEATHER_TOOLS, anthropic_client, openai_client
from tests.agent_apis.chat_chunks import USAGE, chunk, sse, whole_reply
from tests.agent_apis.scripted_chat import ASK, routed, served_by

CUT_CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather"}}
CUT_ARGUMENTS = '{"city": "Par'
RESPONSES_TOOLS: Any = [
    {"type": "function", "name": t["name"], "parameters": t["input_schema"]} for t in WEATHER_TOOLS
]


def _scripted(message: dict[str, Any], finish: str, stream: bool) -> bytes:
    """A chat reply of `message` (its text, then its calls' first fragments whole) ending
    with `finish`, as a stream (with a usage chunk and [DONE]) or a whole reply."""
    if not stream:
        return orjson.dumps({**whole_reply(message, finish), "usage": USAGE})
    chunks = [chunk({"role": "assistant", "content": message.get("content") or ""})]
    for index, call in enumerate(message.get("tool_calls") or ()):
        chunks.append(chunk({"tool_calls": [{"index": index, **call}]}))
    chunks += [chunk({}, finish), {**chunk({}), "choices": [], "usage": USAGE}]
    return sse(*chunks) + b"data: [DONE]\n\n"


def _message(proxy: Any, stream: bool) -> Any:
    """The Messages reply (made whole by the SDK when streamed)."""
    client = anthropic_client(proxy).messages
    ask: Any = {"model": "coding", "max_tokens": 50, "messages": ASK, "tools": WEATHER_TOOLS}
    if not stream:
        return client.create(**ask)
    with client.stream(**ask) as s:
        return s.get_final_message()


def _response(proxy: Any, stream: bool) -> Any:
    """The Responses reply, a stream's as its last event carries it (the SDK's `stream()`
    helper takes a `response.completed` only)."""
    responses = openai_client(proxy).responses
    ask: Any = {"model": "coding", "input": ASK, "tools": RESPONSES_TOOLS}
    if not stream:
        return responses.create(**ask)
    events = list(responses.create(**ask, stream=True))
    assert events[-1].type in ("response.completed", "response.incomplete")
    return events[-1].response


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("api", ["messages", "responses"])
def test_mistrals_model_length_is_a_cut_answer_for_claude_code_and_codex(
    tmp_path: Path, api: str, stream: bool
) -> None:
    """Text, then a call the context window cut mid-JSON: Claude Code is told `max_tokens`
    (no tool to run), Codex gets an incomplete response whose cut call is incomplete."""
    call = {**CUT_CALL, "function": {"name": "get_weather", "arguments": CUT_ARGUMENTS}}
    body = _scripted({"content": "Sure. ", "tool_calls": [call]}, "model_length", stream)
    with routed(tmp_path, body, whole=not stream) as (proxy, records):
        if api == "messages":
            message = _message(proxy, stream)
            assert message.stop_reason == "max_tokens"
            assert [b.type for b in message.content] == ["text", "tool_use"]
        else:
            response = _response(proxy, stream)
            assert response.status == "incomplete"
            assert response.incomplete_details.reason == "max_output_tokens"
            items = [(i.type, i.status) for i in response.output]
            assert items == [("message", "completed"), ("function_call", "incomplete")]
        record = records.wait(10)
    assert (record.outcome, served_by(record)) == ("ok", [("local", None)])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_mistrals_model_length_on_text_alone_is_max_tokens(tmp_path: Path, stream: bool) -> None:
    """It was `end_turn`: the cut answer read as complete."""
    body = _scripted({"content": "Hello wor"}, "model_length", stream)
    with routed(tmp_path, body, whole=not stream) as (proxy, _):
        message = _message(proxy, stream)
    assert message.stop_reason == "max_tokens" and message.content[0].text == "Hello wor"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_tool_calls_said_over_a_text_answer_is_no_tool_use(tmp_path: Path, stream: bool) -> None:
    """`finish_reason: "tool_calls"` with no call: `end_turn`, the text the whole answer."""
    body = _scripted({"content": "Hello"}, "tool_calls", stream)
    with routed(tmp_path, body, whole=not stream) as (proxy, records):
        message = _message(proxy, stream)
        record = records.wait(10)
    assert message.stop_reason == "end_turn" and message.stop_sequence is None
    assert [(b.type, b.text) for b in message.content if b.type == "text"] == [("text", "Hello")]
    assert record.outcome == "ok"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_tool_calls_with_a_call_is_still_tool_use(tmp_path: Path, stream: bool) -> None:
    """The usual case stays as it was: a whole call said `tool_calls` is a tool to run."""
    call = {**CUT_CALL, "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    body = _scripted({"content": None, "tool_calls": [call]}, "tool_calls", stream)
    with routed(tmp_path, body, whole=not stream) as (proxy, _):
        message = _message(proxy, stream)
    assert message.stop_reason == "tool_use"
    assert [b.input for b in message.content if b.type == "tool_use"] == [{"city": "Paris"}]
