"""Agent API requests become chat: Messages → chat and Responses → chat, with the shapes
Claude Code and Codex send (tools, tool results, images, consecutive turns)."""

from __future__ import annotations

import orjson
import pytest

from router.config import Backend
from router.translate import anthropic_request, responses_request
from router.translate.exchange import keeps_cache
from router.translate.responses_request import Untranslatable


@pytest.mark.parametrize("field", ["output_config", "output_format"])
def test_messages_structured_output_becomes_a_response_format(field: str) -> None:
    """Anthropic's JSON-schema output (GA `output_config.format`, beta `output_format`) was
    dropped on the way to a chat backend: JSON asked, prose answered (found in review)."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    fmt = {"type": "json_schema", "schema": schema}
    wrapped = {"format": fmt, "effort": "high"} if field == "output_config" else fmt
    body = {"model": "auto", "max_tokens": 9, "messages": [{"role": "user", "content": "x"}]}
    chat = anthropic_request.to_chat({**body, field: wrapped})
    assert chat["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": schema},
    }
    assert "response_format" not in anthropic_request.to_chat({**body, "output_config": {}})
    # the beta's field beside an `output_config` that holds only `effort` (found in review)
    both = {**body, "output_config": {"effort": "low"}, "output_format": fmt}
    assert anthropic_request.to_chat(both)["response_format"]["json_schema"]["schema"] == schema


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
    # one system message, first: Qwen's chat templates refuse a second (vllm#41114)
    assert roles == ["system", "user", "assistant", "tool", "tool"]
    assert chat["messages"][0]["content"] == "You are Codex.\n\nrules"
    calls = chat["messages"][2]["tool_calls"]
    assert [c["id"] for c in calls] == ["c1", "c2"]
    assert orjson.loads(calls[1]["function"]["arguments"]) == {"input": "*** Begin"}
    assert [t["function"]["name"] for t in chat["tools"]] == ["shell", "apply_patch"]
    assert chat["max_tokens"] == 100 and chat["response_format"] == {"type": "json_object"}
    assert responses_request.reply_tools(body)[0] == {"apply_patch"}
    with pytest.raises(Untranslatable):
        responses_request.to_chat({**body, "previous_response_id": "resp_1"})
    with pytest.raises(Untranslatable):  # the Conversations API's id was dropped without a word
        responses_request.to_chat({**body, "conversation": {"id": "conv_1"}})


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


def test_a_long_run_of_assistant_turns_becomes_one_message_in_order() -> None:
    """A run is merged once at its end (merging turn by turn was quadratic, found in review):
    every text and call of the run, in order, in one message; a user turn ends the run."""
    turns: list[dict[str, object]] = [{"role": "user", "content": "go"}]
    texts, ids = [], []
    for i in range(300):
        if i % 5 == 0:  # a turn of plain text
            texts.append(f"said {i}")
            turns.append({"role": "assistant", "content": texts[-1]})
            continue
        blocks: list[dict[str, object]] = [{"type": "thinking", "thinking": "hm"}]
        if i % 3:
            texts.append(f"text {i}")
            blocks.append({"type": "text", "text": texts[-1]})
        if i % 2:  # neither text nor call (i = 6, 12, …): a thinking-only turn, dropped
            ids.append(f"t{i}")
            blocks.append({"type": "tool_use", "id": ids[-1], "name": "f", "input": {"i": i}})
        turns.append({"role": "assistant", "content": blocks})
    turns += [{"role": "assistant", "content": ""}, {"role": "user", "content": "more"}]
    turns += [{"role": "assistant", "content": "one"}, {"role": "assistant", "content": "two"}]
    chat = anthropic_request.to_chat({"model": "auto", "messages": turns})["messages"]
    assert [m["role"] for m in chat] == ["user", "assistant", "user", "assistant"]
    assert chat[1]["content"] == "\n".join(texts)
    assert [c["id"] for c in chat[1]["tool_calls"]] == ids
    assert chat[1]["tool_calls"][0]["function"]["arguments"] == '{"i":1}'
    assert chat[3] == {"role": "assistant", "content": "one\ntwo"}


CACHED = {
    "model": "auto",
    "max_tokens": 64,
    "system": [{"type": "text", "text": "Long.", "cache_control": {"type": "ephemeral"}}],
    "tools": [{"name": "t", "input_schema": {"type": "object"}, "cache_control": {"type": "x"}}],
    "messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "t"}]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "ok", "cache_control": {}},
                {"type": "text", "text": "Go on.", "cache_control": {"type": "ephemeral"}},
            ],
        },
    ],
}


def test_cache_breakpoints_are_kept_only_when_asked() -> None:
    """Kept for a litellm Anthropic backend, which hands them back to Anthropic; plain
    shapes for any other chat server, which may refuse an unknown field in a part."""
    mark = {"type": "ephemeral"}
    kept = anthropic_request.to_chat(CACHED, cache=True)
    system, _, result, user = kept["messages"]
    assert system["content"] == [{"type": "text", "text": "Long.", "cache_control": mark}]
    assert result["cache_control"] == {} and result["role"] == "tool"
    assert user["content"] == [{"type": "text", "text": "Go on.", "cache_control": mark}]
    assert kept["tools"][0]["cache_control"] == {"type": "x"}
    plain = anthropic_request.to_chat(CACHED)
    assert b"cache_control" not in orjson.dumps(plain)
    assert plain["messages"][0]["content"] == "Long."
    assert plain["messages"][3]["content"] == "Go on."


def test_only_a_litellm_anthropic_backend_keeps_cache_breakpoints() -> None:
    def backend(**fields: object) -> Backend:
        return Backend.model_validate({"name": "b", "tier": "cloud", **fields})

    assert keeps_cache(backend(kind="litellm", model="anthropic/claude-sonnet-4-5"))
    provider = {"custom_llm_provider": "anthropic"}
    assert keeps_cache(backend(kind="litellm", model="claude-x", extra_body=provider))
    # litellm sends a plain model it knows to Anthropic, as the request will go (review)
    assert keeps_cache(backend(kind="litellm", model="claude-sonnet-4-5"))
    assert not keeps_cache(backend(kind="litellm", model="vertex_ai/claude-sonnet-4-5"))
    assert not keeps_cache(backend(kind="litellm", model="openai/gpt-4o"))
    assert not keeps_cache(backend(base_url="http://x/v1", model="anthropic/claude"))
