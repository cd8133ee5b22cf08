"""Chat replies become agent API replies, checked against the official SDKs' own models.

Chat → Messages and chat → Responses, whole and streamed. Each translated event is
validated strictly by the SDK's type (a missing required field fails here, not in a
user's agent). Requests are in `test_agent_request_translation`.
"""

from __future__ import annotations

from typing import Any

import anthropic.types as at
import openai.types.responses as rt
import orjson
import pytest
from pydantic import TypeAdapter

from router.translate import anthropic_reply, responses_items, responses_reply, responses_whole
from tests.agent_apis.chat_chunks import (
    TEXT_STREAM,
    TOOL_STREAM,
    USAGE,
    call,
    chunk,
    payloads,
    run,
)
from tests.memory import small_deltas, traced

ANTHROPIC_EVENT: TypeAdapter[Any] = TypeAdapter(at.RawMessageStreamEvent)
RESPONSES_EVENT: TypeAdapter[Any] = TypeAdapter(rt.ResponseStreamEvent)


def chat_reply(message: dict[str, Any], finish: str) -> dict[str, Any]:
    """A whole chat reply of the one choice `message`, ended by `finish`, with `USAGE`."""
    choice = {"index": 0, "finish_reason": finish, "message": message}
    return {
        "id": "c1",
        "object": "chat.completion",
        "model": "m",
        "usage": USAGE,
        "choices": [choice],
    }


def test_chat_reply_becomes_a_valid_anthropic_message() -> None:
    call = {"name": "get_weather", "arguments": '{"city":"Paris"}'}
    said = {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
    }
    chat = chat_reply(said, "tool_calls")
    message = at.Message.model_validate(anthropic_reply.from_chat(chat))
    assert message.stop_reason == "tool_use"
    assert message.content[1].type == "tool_use" and message.content[1].input == {"city": "Paris"}
    # Anthropic's input_tokens exclude cache reads (FACTS.md).
    assert message.usage.input_tokens == 10 and message.usage.cache_read_input_tokens == 30


def test_cache_writes_reported_by_a_chat_backend_reach_both_agent_apis() -> None:
    """litellm reports Claude's cache writes in chat usage (inside prompt_tokens): Claude
    Code must see them as cache_creation_input_tokens, not as fresh input."""
    chat_usage = {
        "prompt_tokens": 102_010,
        "completion_tokens": 100,
        "total_tokens": 102_110,
        "prompt_tokens_details": {"cached_tokens": 2_000, "cache_write_tokens": 100_000},
    }
    messages = at.Usage.model_validate(anthropic_reply.usage(chat_usage))
    assert (messages.input_tokens, messages.cache_creation_input_tokens) == (10, 100_000)
    assert messages.cache_read_input_tokens == 2_000
    responses = responses_items.usage(chat_usage)
    assert responses is not None
    assert responses["input_tokens_details"] == {
        "cached_tokens": 2_000,
        "cache_write_tokens": 100_000,
    }


@pytest.mark.parametrize(("chunks", "stop"), [(TEXT_STREAM, "end_turn"), (TOOL_STREAM, "tool_use")])
def test_chat_stream_becomes_anthropic_events_in_order(
    chunks: list[dict[str, Any]], stop: str
) -> None:
    events = run(anthropic_reply.MessagesStream(), chunks)
    for name, payload in events:
        assert ANTHROPIC_EVENT.validate_python(payload).type == name
    kinds = [n for n, _ in events]
    assert kinds == [
        "message_start",
        "content_block_start",
        *["content_block_delta"] * 2,
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    delta = events[-2][1]
    assert delta["delta"]["stop_reason"] == stop
    assert delta["usage"]["output_tokens"] == 9 and delta["usage"]["cache_read_input_tokens"] == 30
    if stop == "tool_use":  # the pieces held (an empty delta), the input sent whole at the stop
        pieces = [p["delta"]["partial_json"] for n, p in events if n == "content_block_delta"]
        assert pieces[:-1] == [""] and orjson.loads(pieces[-1]) == {"city": "Paris"}


def test_chat_reply_becomes_a_valid_response() -> None:
    chat = chat_reply({"role": "assistant", "content": "partial"}, "length")
    response = rt.Response.model_validate(responses_whole.from_chat(chat, {"model": "auto"}))
    assert response.output_text == "partial"
    assert response.status == "incomplete"
    assert response.usage is not None and response.usage.input_tokens_details.cached_tokens == 30


@pytest.mark.parametrize("chunks", [TEXT_STREAM, TOOL_STREAM])
def test_chat_stream_becomes_responses_events_in_order(chunks: list[dict[str, Any]]) -> None:
    events = run(responses_reply.ResponsesStream({"model": "auto"}), chunks)
    for name, payload in events:
        assert RESPONSES_EVENT.validate_python(payload).type == name
    kinds = [n for n, _ in events]
    assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert kinds[-2:] == ["response.output_item.done", "response.completed"]
    assert [p["sequence_number"] for _, p in events] == list(range(len(events)))
    final = events[-1][1]["response"]
    assert final["usage"]["output_tokens"] == 9
    item = final["output"][0]
    if chunks is TOOL_STREAM:
        assert "response.function_call_arguments.delta" in kinds
        assert item["type"] == "function_call" and orjson.loads(item["arguments"]) == {
            "city": "Paris"
        }
    else:
        assert item["content"][0]["text"] == "Hello world"


def test_a_custom_tool_call_streams_back_as_custom_tool_call() -> None:
    patch = orjson.dumps({"input": "*** Begin Patch\n*** End Patch"}).decode()
    chunks = [
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_9",
                        "type": "function",
                        "function": {"name": "apply_patch", "arguments": patch[:10]},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": patch[10:]}}]}),
        chunk({}, "tool_calls"),
    ]
    stream = responses_reply.ResponsesStream({"model": "auto"}, frozenset({"apply_patch"}))
    events = run(stream, chunks)
    for _, payload in events:
        RESPONSES_EVENT.validate_python(payload)
    done = next(p for n, p in events if n == "response.output_item.done")["item"]
    assert done["type"] == "custom_tool_call" and done["call_id"] == "call_9"
    assert done["input"] == "*** Begin Patch\n*** End Patch"
    assert "response.function_call_arguments.delta" not in [n for n, _ in events]


def test_a_tool_call_cut_by_the_token_limit_is_not_reported_as_a_tool_to_run() -> None:
    """Told "tool_use", Claude Code runs the tool with half its arguments; "max_tokens" makes
    it ask again. A tool call that ended normally (vLLM may say "stop") stays "tool_use"."""
    cut = [*TOOL_STREAM[:3], chunk({}, "length"), TOOL_STREAM[-1]]
    events = run(anthropic_reply.MessagesStream(), cut)
    assert events[-2][1]["delta"]["stop_reason"] == "max_tokens"
    whole = {
        "id": "c1",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "length",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "write", "arguments": '{"path": "a.py", "te'},
                        }
                    ],
                },
            }
        ],
    }
    assert anthropic_reply.from_chat(whole)["stop_reason"] == "max_tokens"
    for finish, stop in (
        ("tool_calls", "tool_use"),
        ("stop", "tool_use"),
        ("length", "max_tokens"),
    ):
        assert anthropic_reply.stop_reason(finish, has_tool_calls=True) == (stop, None)


def test_a_matched_stop_sequence_is_reported_as_anthropic_does() -> None:
    """vLLM names the stop string it matched in `stop_reason`; Claude Code was told
    end_turn with no sequence (found in review). A token id (end of sequence) is not one."""
    whole: dict[str, Any] = {
        "id": "c",
        "model": "m",
        "choices": [
            {"finish_reason": "stop", "stop_reason": "###", "message": {"content": "done"}}
        ],
    }
    message = at.Message.model_validate(anthropic_reply.from_chat(whole))
    assert (message.stop_reason, message.stop_sequence) == ("stop_sequence", "###")
    eos = {**whole, "choices": [{**whole["choices"][0], "stop_reason": 0}]}
    assert anthropic_reply.from_chat(eos)["stop_reason"] == "end_turn"
    streamed = run(
        anthropic_reply.MessagesStream(),
        [chunk({"content": "done"}), {**chunk({}, "stop"), "choices": [
            {"index": 0, "delta": {}, "finish_reason": "stop", "stop_reason": "###"}]}],
    )  # fmt: skip
    delta = next(p for n, p in streamed if n == "message_delta")["delta"]
    assert delta == {"stop_reason": "stop_sequence", "stop_sequence": "###"}


def test_a_refusal_is_not_an_empty_success() -> None:
    """OpenAI's structured outputs refuse in `message.refusal` with empty content: both
    agent APIs got an empty, successful reply with no reason (found in review)."""
    whole = {
        "id": "c",
        "model": "m",
        "choices": [
            {"finish_reason": "stop", "message": {"content": None, "refusal": "I can't help."}}
        ],
    }
    message = at.Message.model_validate(anthropic_reply.from_chat(whole))
    assert message.stop_reason == "refusal" and message.content[0].text == "I can't help."  # type: ignore[union-attr]
    response = rt.Response.model_validate(responses_whole.from_chat(whole, {"model": "auto"}))
    assert response.output[0].content[0].type == "refusal"  # type: ignore[union-attr,index]

    chunks = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"refusal": "I can't "}),
        chunk({"refusal": "help."}),
        chunk({}, "stop"),
    ]
    messages = run(anthropic_reply.MessagesStream(), chunks)
    for name, payload in messages:
        assert ANTHROPIC_EVENT.validate_python(payload).type == name
    assert next(p for n, p in messages if n == "message_delta")["delta"]["stop_reason"] == "refusal"
    events = run(responses_reply.ResponsesStream({"model": "auto"}), chunks)
    for name, payload in events:
        assert RESPONSES_EVENT.validate_python(payload).type == name
    done = [p for n, p in events if n == "response.refusal.done"]
    assert done and done[0]["refusal"] == "I can't help."
    final = next(p for n, p in events if n == "response.completed")["response"]
    assert final["output"][0]["content"] == [{"type": "refusal", "refusal": "I can't help."}]


@pytest.mark.parametrize("api", ["messages", "responses"])
@pytest.mark.parametrize("kind", ["text", "call"])
def test_a_long_answer_in_small_deltas_is_kept_joined(api: str, kind: str) -> None:
    """Text and a call's arguments were kept one `str` per delta (some 60 bytes each) by the
    open block, by the call's numbering (`CallKeys`) and by the Responses item: 200 KB in
    4-character deltas held 3.5 to 4 MB (found in re-review). They are joined as they come."""
    stream: Any = anthropic_reply.MessagesStream()
    if api == "responses":
        stream = responses_reply.ResponsesStream({"model": "auto"})
    stream.feed(chunk({"role": "assistant", "content": ""}))
    if kind == "call":
        stream.feed(call(0, '{"path": "', "write_file"))
    count = 50_000  # 200 KB
    with traced() as kept:
        for piece in small_deltas(count):
            stream.feed(call(0, piece) if kind == "call" else chunk({"content": piece}))
    assert kept.held < 4 * 4 * count  # a few copies of the text, and the joining's spare room


@pytest.mark.parametrize(
    ("api", "name"),
    [("messages", "write_file"), ("responses", "write_file"), ("responses", "apply_patch")],
)
def test_a_streamed_calls_arguments_are_kept_once(api: str, name: str) -> None:
    """A call's arguments were kept joined by its block, again by its numbering (`CallKeys`)
    and, on Responses, by its item too: 200 KB in 4-character deltas (a big file's
    `write_file`, Codex's `apply_patch`) held 2.1 times their size on Messages, 3.2 on
    Responses, while the call streamed (found in re-review). The three share one `Text`
    now, as a text's is kept once (1.1 times); the events carry the same arguments."""
    stream: Any = anthropic_reply.MessagesStream(clock=lambda: 0.0)
    if api == "responses":
        custom = frozenset({"apply_patch"})
        stream = responses_reply.ResponsesStream({"model": "auto"}, custom, lambda: 0.0)
    stream.feed(chunk({"role": "assistant", "content": ""}))
    stream.feed(call(0, '{"input": "', name))
    count = 50_000  # 200 KB
    with traced() as kept:
        for piece in small_deltas(count):
            stream.feed(call(0, piece))
    assert kept.held < 1.5 * 4 * count  # once, and the joining's spare room
    events = payloads([*stream.feed(call(0, '"}')), *stream.feed(chunk({}, "tool_calls"))])
    events += payloads(stream.end())
    text = "".join(small_deltas(count))
    arguments = '{"input": "' + text + '"}'
    if api == "messages":
        given = [p["delta"]["partial_json"] for n, p in events if n == "content_block_delta"]
        assert [piece for piece in given if piece] == [arguments]  # and keep-alives, empty
        return
    done = {n: p for n, p in events if n.endswith("done")}
    if name == "apply_patch":
        assert done["response.custom_tool_call_input.done"]["input"] == text
        assert done["response.output_item.done"]["item"]["input"] == text
    else:
        assert done["response.function_call_arguments.done"]["arguments"] == arguments
        assert done["response.output_item.done"]["item"]["arguments"] == arguments
