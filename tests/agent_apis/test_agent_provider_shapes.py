"""Chat replies in a provider's own shape, read as what they say, through the official SDKs.

Mistral's Magistral models send a message's (and a delta's) `content` as a list of parts,
reasoning first: `[{"type": "thinking", "thinking": [{"type": "text", ...}]}, {"type":
"text", "text": "..."}]` (BerriAI/litellm#16272 shows the stream). The Messages and Responses
translators wrote a whole reply's list as its Python repr and dropped a stream's; the chat
API's ledger recorded no text for it. Now the text parts are the answer, the thinking parts
are reasoning as `reasoning_content` is (a Responses reasoning item, no Messages block), and
chat clients still get the content as it came.

Some servers serialise every chunk with its `"error": null`: read as an in-band error, it
failed every stream of theirs on every API. A null error is none; a real one still ends
the stream (`test_agent_in_band_errors`).

TGI, and llama.cpp's server with `--tool-args-object`, send a tool call's
`function.arguments` as a JSON object, not the JSON text OpenAI sends: a whole reply's
became its Python repr (`{'city': 'Paris'}`, which Claude Code got as `_raw_arguments`
and Codex as arguments no JSON parser reads), a stream's were dropped (an empty input).
Now they are the object's JSON; a chat client gets them as they came.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from router.translate import events
from router.translate.anthropic_reply import MessagesStream
from router.translate.anthropic_reply import from_chat as messages_from_chat
from router.translate.responses_reply import ResponsesStream
from router.translate.responses_whole import from_chat as responses_from_chat
from router.translate.wire import arguments_text, content_text
from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_apis.chat_chunks import USAGE, chunk, run
from tests.agent_apis.scripted_chat import ASK, answered, routed, served_by
from tests.harness import Collect, RunningRouter, config_for, router, scripted_stream

ANSWER = "The answer is 4."


def _thought(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": [{"type": "text", "text": text}]}


MAGISTRAL_CONTENT = [_thought("2 plus 2 "), _thought("makes 4."), {"type": "text", "text": ANSWER}]
MAGISTRAL_STREAM = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": [_thought("2 plus 2 ")]}),
    chunk({"content": [_thought("makes 4.")]}),
    chunk({"content": [{"type": "text", "text": "The answer"}]}),
    chunk({"content": " is 4."}),  # the answer's later pieces may come as plain text
    chunk({}, "stop"),
    {**chunk({}), "choices": [], "usage": USAGE},
]


def _whole_magistral() -> dict[str, Any]:
    message = {"role": "assistant", "content": MAGISTRAL_CONTENT}
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "magistral-medium-2509",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": USAGE,
    }


def _sse(chunks: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + orjson.dumps(c) + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


@contextmanager
def kept_texts(tmp: Path, body: bytes, whole: bool) -> Iterator[tuple[RunningRouter, Collect]]:
    """The router over one chat upstream answering `body`, storing answer texts."""
    kind = "application/json" if whole else "text/event-stream"
    ledger = {"path": str(tmp / "ledger"), "flush_interval_s": 0.2, "store_text": True}
    with (
        scripted_stream(body, kind) as local,
        router(config_for({"local": local}, tmp, ledger=ledger)) as proxy,
    ):
        records = Collect()
        proxy.components.gateway.sinks.append(records)
        yield proxy, records


def test_reply_text_takes_the_text_parts_and_never_a_repr() -> None:
    assert content_text("hi") == "hi"
    assert content_text(MAGISTRAL_CONTENT) == ANSWER
    assert content_text([_thought("hmm")]) == ""
    assert content_text([{"type": "text", "text": "a"}, "b", {"type": "text", "text": 1}]) == "a"
    assert content_text(None) == content_text({"text": "x"}) == ""


def test_the_translators_read_magistral_parts_as_text() -> None:
    whole = _whole_magistral()
    assert messages_from_chat(whole)["content"] == [{"type": "text", "text": ANSWER}]
    output = responses_from_chat(whole, {})["output"]  # the thinking is a reasoning item
    assert [(item["type"], [p["text"] for p in item["content"]]) for item in output] == [
        ("reasoning", ["2 plus 2 makes 4."]),
        ("message", [ANSWER]),
    ]
    said = run(MessagesStream(), MAGISTRAL_STREAM)
    texts = [e["delta"]["text"] for n, e in said if n == "content_block_delta"]
    assert "".join(texts) == ANSWER
    said = run(ResponsesStream({}), MAGISTRAL_STREAM)
    texts = [e["delta"] for n, e in said if n == "response.output_text.delta"]
    assert "".join(texts) == ANSWER
    thoughts = [e["delta"] for n, e in said if n == "response.reasoning_text.delta"]
    assert "".join(thoughts) == "2 plus 2 makes 4."


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("api", ["messages", "responses"])
def test_a_magistral_answer_reaches_agent_clients_as_its_text(
    tmp_path: Path, api: str, stream: bool
) -> None:
    """A whole reply's text was `[{'type': 'thinking', ...}]`; a stream's was " is 4."."""
    body = _sse(MAGISTRAL_STREAM) if stream else orjson.dumps(_whole_magistral())
    with routed(tmp_path, body, whole=not stream) as (proxy, records):
        assert answered(proxy, api, stream) == ANSWER
        record = records.wait(10)
    assert (record.outcome, served_by(record)) == ("ok", [("local", None)])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_magistral_answer_passes_through_chat_and_its_text_is_recorded(
    tmp_path: Path, stream: bool
) -> None:
    """The chat client gets the parts as the upstream sent them; the ledger, which recorded
    no text for them, gets the answer's."""
    body = _sse(MAGISTRAL_STREAM) if stream else orjson.dumps(_whole_magistral())
    request = {"model": "coding", "messages": ASK, "stream": stream}
    with kept_texts(tmp_path, body, whole=not stream) as (proxy, records):
        reply = httpx.post(f"{proxy.url}/chat/completions", json=request, timeout=10)
        record = records.wait(10)
    assert reply.status_code == 200
    if stream:  # every chunk with a choice byte for byte (the usage one only we asked for)
        sent = [orjson.dumps(c) for c in MAGISTRAL_STREAM if c["choices"]]
        events = reply.content.split(b"\n\n")
        assert [e.removeprefix(b"data: ") for e in events if b'"choices":[{' in e] == sent
    else:
        assert reply.json()["choices"][0]["message"]["content"] == MAGISTRAL_CONTENT
    assert (record.outcome, record.completion_text) == ("ok", ANSWER)


@pytest.mark.parametrize("api", ["chat", "messages", "responses"])
def test_a_null_error_in_every_chunk_is_no_error(tmp_path: Path, api: str) -> None:
    """Each chunk was read as an in-band error: the attempt failed before its first token."""
    hi = [chunk({"role": "assistant", "content": ""}), chunk({"content": "hi"}), chunk({}, "stop")]
    body = _sse([{**c, "error": None} for c in hi])
    with routed(tmp_path, body) as (proxy, records):
        assert answered(proxy, api, stream=True) == "hi"
        record = records.wait(10)
    assert (record.outcome, served_by(record)) == ("ok", [("local", None)])


@pytest.mark.parametrize("api", ["messages", "responses"])
def test_a_native_upstreams_null_error_is_none_and_a_real_one_still_fails(api: str) -> None:
    assert events.failure(api, {"id": "x", "error": None}) is None
    real = {"type": "server_error", "message": "boom"}
    assert events.failure(api, {"error": real}) == real
    typed = {"type": "error", "error": real, "code": "server_error", "message": "boom"}
    assert events.failure(api, typed)


PARIS = {"city": "Paris"}
OBJECT_CALL = {"id": "c9", "type": "function", "function": {"name": "get_weather"}}


def test_arguments_text_is_the_json_openai_sends() -> None:
    assert arguments_text('{"city": "Paris"}') == '{"city": "Paris"}'  # as it came
    assert arguments_text(PARIS) == '{"city":"Paris"}'
    assert arguments_text([1]) == "[1]" and arguments_text(None) == ""
    deep: Any = []
    for _ in range(300):  # readable, yet deeper than orjson writes: none, not a traceback
        deep = [deep]
    assert arguments_text(deep) == ""


def _object_arguments(stream: bool) -> bytes:
    """One call whose arguments are an object, streamed or whole."""
    call = {**OBJECT_CALL, "function": {"name": "get_weather", "arguments": PARIS}}
    if stream:
        calls = chunk({"tool_calls": [{"index": 0, **call}]})
        return _sse([chunk({"role": "assistant", "content": ""}), calls, chunk({}, "tool_calls")])
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return orjson.dumps({"id": "c", "object": "chat.completion", "model": "m", "choices": [choice]})


def _called(proxy: RunningRouter, api: str, stream: bool) -> list[Any]:
    """The calls' input (Messages) or parsed arguments (Responses), through the SDKs."""
    tool = {"name": "get_weather", "input_schema": {"type": "object"}}
    if api == "messages":
        client = anthropic_client(proxy).messages
        ask: Any = {"model": "coding", "max_tokens": 50, "messages": ASK, "tools": [tool]}
        if stream:
            with client.stream(**ask) as s:
                message = s.get_final_message()
        else:
            message = client.create(**ask)
        assert message.stop_reason == "tool_use"
        return [b.input for b in message.content if b.type == "tool_use"]
    function = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    asked: Any = {"model": "coding", "input": ASK, "tools": [function]}
    responses = openai_client(proxy).responses
    if stream:
        with responses.stream(**asked) as s:
            response = s.get_final_response()
    else:
        response = responses.create(**asked)
    assert response.status == "completed"
    return [orjson.loads(i.arguments) for i in response.output if i.type == "function_call"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("api", ["messages", "responses"])
def test_tool_arguments_sent_as_an_object_reach_agent_clients_as_their_json(
    tmp_path: Path, api: str, stream: bool
) -> None:
    with routed(tmp_path, _object_arguments(stream), whole=not stream) as (proxy, records):
        assert _called(proxy, api, stream) == [PARIS]
        record = records.wait(10)
    assert (record.outcome, served_by(record)) == ("ok", [("local", None)])
