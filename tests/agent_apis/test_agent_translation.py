"""Every translation pairing, checked against the official SDKs' own pydantic models.

Requests: Messages → chat and Responses → chat. Replies: chat → Messages and chat →
Responses, whole and streamed. Each translated event is validated strictly by the SDK's
type (a missing required field fails here, not in a user's agent).
"""

from __future__ import annotations

from typing import Any

import anthropic.types as at
import openai.types.responses as rt
import orjson
import pytest
from pydantic import TypeAdapter

from router.relay import Tally, usage_of
from router.translate import anthropic_reply, anthropic_request, responses_reply, responses_request
from router.translate.responses_request import Untranslatable

ANTHROPIC_EVENT: TypeAdapter[Any] = TypeAdapter(at.RawMessageStreamEvent)
RESPONSES_EVENT: TypeAdapter[Any] = TypeAdapter(rt.ResponseStreamEvent)


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """A chat chunk shaped like vLLM's (FACTS.md: `usage: null` until the usage chunk)."""
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "local-model",
        "choices": [choice],
        "usage": None,
        **extra,
    }


USAGE = {
    "prompt_tokens": 40,
    "completion_tokens": 9,
    "total_tokens": 49,
    "prompt_tokens_details": {"cached_tokens": 30},
}
TEXT_STREAM = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": "Hello"}),
    chunk({"content": " world"}),
    chunk({}, "stop"),
    {**chunk({}), "choices": [], "usage": USAGE},
]
TOOL_STREAM = [
    chunk({"role": "assistant", "content": ""}),
    chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        }
    ),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}),
    chunk({}, "tool_calls"),
    {**chunk({}), "choices": [], "usage": USAGE},
]


def payloads(events: list[bytes]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for raw in events:
        name_line, data_line = raw.decode().strip().split("\n")
        out.append((name_line.removeprefix("event: "), orjson.loads(data_line[6:])))
    return out


def run(stream: Any, chunks: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    events: list[bytes] = []
    for c in chunks:
        events.extend(stream.feed(c))
    events.extend(stream.end())
    return payloads(events)


def test_messages_request_becomes_chat() -> None:
    body = {
        "model": "auto",
        "max_tokens": 64,
        "system": [{"type": "text", "text": "Be brief."}],
        "stop_sequences": ["END"],
        "tools": [
            {"name": "get_weather", "description": "d", "input_schema": {"type": "object"}},
            {"type": "web_search_20250305", "name": "web_search"},
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "x"},
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [{"type": "text", "text": "18C"}],
                    },
                    {"type": "text", "text": "And tomorrow?"},
                ],
            },
        ],
    }
    chat = anthropic_request.to_chat(body, stream=True)
    assert chat["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "18C"},
        {"role": "user", "content": "And tomorrow?"},
    ]
    assert [t["function"]["name"] for t in chat["tools"]] == ["get_weather"]
    assert chat["tool_choice"] == "required" and chat["parallel_tool_calls"] is False
    assert (
        chat["stop"] == ["END"] and chat["max_tokens"] == 64 and "max_completion_tokens" not in chat
    )
    assert chat["stream_options"] == {"include_usage": True}


def test_chat_reply_becomes_a_valid_anthropic_message() -> None:
    chat = {
        "id": "c1",
        "object": "chat.completion",
        "model": "m",
        "usage": USAGE,
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": "Let me check.",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        }
                    ],
                },
            }
        ],
    }
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
    responses = responses_reply.usage(chat_usage)
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
    if stop == "tool_use":
        pieces = "".join(
            p["delta"]["partial_json"] for n, p in events if n == "content_block_delta"
        )
        assert orjson.loads(pieces) == {"city": "Paris"}


def test_responses_request_becomes_chat_with_codex_shapes() -> None:
    body = {
        "model": "auto",
        "instructions": "You are Codex.",
        "max_output_tokens": 100,
        "tools": [
            {
                "type": "function",
                "name": "shell",
                "parameters": {"type": "object"},
                "strict": False,
            },
            {"type": "custom", "name": "apply_patch", "description": "patch", "format": {}},
            {"type": "web_search"},
        ],
        "tool_choice": "auto",
        "text": {"format": {"type": "json_object"}},
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "rules"}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "fix it"}],
            },
            {"type": "reasoning", "summary": []},
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "shell",
                "arguments": '{"cmd":"ls"}',
            },
            {
                "type": "custom_tool_call",
                "call_id": "c2",
                "name": "apply_patch",
                "input": "*** Begin",
            },
            {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "Done"},
        ],
    }
    chat = responses_request.to_chat(body)
    roles = [m["role"] for m in chat["messages"]]
    assert roles == ["system", "system", "user", "assistant", "tool", "tool"]
    calls = chat["messages"][3]["tool_calls"]
    assert [c["id"] for c in calls] == ["c1", "c2"]
    assert orjson.loads(calls[1]["function"]["arguments"]) == {"input": "*** Begin"}
    assert [t["function"]["name"] for t in chat["tools"]] == ["shell", "apply_patch"]
    assert chat["max_tokens"] == 100 and chat["response_format"] == {"type": "json_object"}
    assert responses_request.custom_tools(body) == {"apply_patch"}
    with pytest.raises(Untranslatable):
        responses_request.to_chat({**body, "previous_response_id": "resp_1"})


def test_an_allowed_tools_choice_offers_only_those_tools_to_a_chat_backend() -> None:
    """Responses' `allowed_tools` choice was dropped: a call it required became optional,
    and the router classified the request as if no call were forced (found in review).
    vLLM's chat API has no `allowed_tools`, so only the allowed tools are offered."""
    tools = [{"type": "function", "name": n} for n in ("get_weather", "get_time", "send")]
    allowed = [{"type": "function", "name": "get_time"}, {"type": "mcp", "server_label": "x"}]
    body = {"model": "m", "input": "What time is it in Oslo?", "tools": tools}
    for mode, expected in (("required", "required"), ("auto", "auto")):
        choice = {"type": "allowed_tools", "mode": mode, "tools": allowed}
        chat = responses_request.to_chat({**body, "tool_choice": choice})
        assert [t["function"]["name"] for t in chat["tools"]] == ["get_time"]
        assert chat["tool_choice"] == expected
    hosted_only = {"type": "allowed_tools", "mode": "required", "tools": allowed[1:]}
    chat = responses_request.to_chat({**body, "tool_choice": hosted_only})
    assert (len(chat["tools"]), chat["tool_choice"]) == (3, "none")


def test_chat_reply_becomes_a_valid_response() -> None:
    chat = {
        "id": "c1",
        "object": "chat.completion",
        "model": "m",
        "usage": USAGE,
        "choices": [
            {
                "index": 0,
                "finish_reason": "length",
                "message": {"role": "assistant", "content": "partial"},
            }
        ],
    }
    response = rt.Response.model_validate(responses_reply.from_chat(chat, {"model": "auto"}))
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


def test_usage_is_normalised_from_the_events_the_relay_watches() -> None:
    tally = Tally(api="messages")
    start = {
        "type": "message_start",
        "message": {
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 30, "output_tokens": 1}
        },
    }
    tally.see(start)
    tally.see(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 9, "input_tokens": None},
        }
    )
    tally.see({"type": "message_stop"})
    usage = usage_of("messages", tally.usage)
    assert usage is not None and tally.done and tally.finish_reasons == ["end_turn"]
    assert (usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens) == (40, 30, 9)
    tally = Tally(api="responses")
    final = responses_reply.from_chat(
        {
            "id": "c",
            "model": "m",
            "usage": USAGE,
            "choices": [{"finish_reason": "stop", "message": {"content": "hi"}}],
        },
        {},
    )
    tally.see({"type": "response.completed", "sequence_number": 7, "response": final})
    usage = usage_of("responses", tally.usage)
    assert usage is not None and tally.done and tally.sequence == 7
    assert (usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens) == (40, 30, 9)


def _kept_calls(api: str, objects: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    tally = Tally(api=api, keep_text=True)  # type: ignore[arg-type]
    for obj in objects:
        tally.see(obj)
    return [
        (c["function"]["name"], orjson.loads(c["function"]["arguments"]))
        for c in tally.answer_tool_calls()
    ]


def test_tool_calls_are_kept_from_messages_and_responses_answers() -> None:
    """What shadow comparison reads: the answer's tool calls, streamed or whole, either API."""
    want = [("get_weather", {"city": "Paris"})]
    messages = run(anthropic_reply.MessagesStream(10), TOOL_STREAM)
    responses = run(responses_reply.ResponsesStream({"model": "auto"}), TOOL_STREAM)
    whole_chat = {
        "id": "c",
        "model": "m",
        "usage": USAGE,
        "choices": [
            {
                "finish_reason": "tool_calls",
                "message": {
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        }
                    ],
                },
            }
        ],
    }
    assert _kept_calls("messages", [p for _, p in messages]) == want
    assert _kept_calls("responses", [p for _, p in responses]) == want
    assert _kept_calls("messages", [anthropic_reply.from_chat(whole_chat)]) == want
    assert _kept_calls("responses", [responses_reply.from_chat(whole_chat, {})]) == want
    unkept = Tally(api="messages")  # the text is not kept: neither are the calls
    for _, payload in messages:
        unkept.see(payload)
    assert unkept.tool_calls == {} and unkept.output_chars > 0


def test_parallel_chat_calls_are_kept_apart_without_openai_numbering() -> None:
    """Ollama numbers every parallel call `index: 0` (ollama/ollama#15457), older Ollama not
    at all (#7881): the tally joined them into one call whose arguments were not JSON."""

    def whole(call_id: str, city: str, index: int | None) -> dict[str, Any]:
        arguments = orjson.dumps({"city": city}).decode()
        function = {"name": "get_weather", "arguments": arguments}
        call: dict[str, Any] = {"id": call_id, "type": "function", "function": function}
        return call if index is None else {"index": index, **call}

    want = [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]
    same_index = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [whole("call_a", "Paris", 0)]}),
        chunk({"tool_calls": [whole("call_b", "Rome", 0)]}),
        chunk({}, "tool_calls"),
    ]
    no_index = [chunk({"tool_calls": [whole("call_a", "Paris", None), whole("c", "Rome", None)]})]
    assert _kept_calls("chat", same_index) == want
    assert _kept_calls("chat", no_index) == want
    assert _kept_calls("chat", TOOL_STREAM) == want[:1]  # OpenAI's numbering, as before


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


def test_an_image_a_tool_returned_reaches_the_model() -> None:
    """A chat tool message holds text only, so the image goes into the user turn after it."""
    image = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
    body = {
        "model": "m",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "look at shot.png"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Reading it."},
                    {"type": "text", "text": "Now."},
                    {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"p": 1}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [{"type": "image", "source": image}],
                    }
                ],
            },
        ],
    }
    messages = anthropic_request.to_chat(body)["messages"]
    assert messages[1]["content"] == "Reading it.\nNow."
    assert messages[2]["role"] == "tool" and messages[2]["content"]
    assert messages[3]["role"] == "user"
    assert messages[3]["content"] == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    ]


def test_codex_tool_output_images_follow_the_tool_results_as_a_user_turn() -> None:
    """Codex's view_image (and MCP tools) return input_image parts: they were dropped and
    the model was told the tool returned nothing (found in review)."""
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}
    body = {
        "model": "auto",
        "input": [
            {"type": "message", "role": "user", "content": "look at both"},
            {"type": "function_call", "call_id": "c1", "name": "view_image", "arguments": "{}"},
            {"type": "function_call", "call_id": "c2", "name": "view_image", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": [image]},
            {"type": "function_call_output", "call_id": "c2", "output": [
                {"type": "input_text", "text": "second"}, image]},
        ],
    }  # fmt: skip
    chat = responses_request.to_chat(body)["messages"]
    assert [m["role"] for m in chat] == ["user", "assistant", "tool", "tool", "user"]
    assert chat[2]["content"] and chat[3]["content"] == "second"
    assert [p["type"] for p in chat[4]["content"]] == ["image_url", "image_url"]
    assert all("_images" not in m for m in chat)


def test_parallel_tool_calls_goes_only_with_tools() -> None:
    """Codex's compaction turn sends tools: [] with parallel_tool_calls; OpenAI refuses
    the flag without tools (found in review)."""
    body = {"model": "auto", "input": "summarise", "tools": [], "parallel_tool_calls": False}
    assert "parallel_tool_calls" not in responses_request.to_chat(body)


def test_consecutive_assistant_turns_merge_and_empty_ones_go() -> None:
    """Anthropic joins consecutive turns of one role; two assistant tool_use turns became
    two chat messages with tool_calls before the results, which OpenAI refuses; a
    thinking-only turn became an assistant message with no content (found in review)."""
    use = {"type": "tool_use", "name": "f", "input": {}}
    body = {
        "model": "auto",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "a"}, {**use, "id": "t1"}]},
            {"role": "assistant", "content": [{**use, "id": "t2"}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "x"},
                {"type": "tool_result", "tool_use_id": "t2", "content": "y"},
                {"type": "document", "source": {"type": "base64", "data": "JVBERi0="}},
            ]},
        ],
    }  # fmt: skip
    chat = anthropic_request.to_chat(body)["messages"]
    assert [m["role"] for m in chat] == ["user", "assistant", "tool", "tool", "user"]
    assert [c["id"] for c in chat[1]["tool_calls"]] == ["t1", "t2"] and chat[1]["content"] == "a"
    assert "document" in chat[4]["content"]


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
    response = rt.Response.model_validate(responses_reply.from_chat(whole, {"model": "auto"}))
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
