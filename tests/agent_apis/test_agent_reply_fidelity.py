"""What a translated reply must not make up: tool ids, usage, how the answer ended.

The whole and the streamed translation of the same chat reply must agree, and what the
upstream did not say (its usage, a finished answer) must not be reported as if it had.
"""

from __future__ import annotations

import anthropic.types as at
import pytest

from router.backends.openai_compatible import OpenAICompatibleBackend
from router.config import Backend
from router.translate import anthropic_reply
from router.translate.tool_ids import ToolIds
from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_apis.chat_chunks import chunk, run, whole_reply
from tests.harness import Collect, Running, RunningRouter

CALLS = [
    {"index": 0, "type": "function", "function": {"name": "read", "arguments": '{"p": 1}'}},
    {"index": 1, "type": "function", "function": {"name": "list", "arguments": "{}"}},
]


def test_a_tool_call_without_an_id_gets_the_same_id_whole_and_streamed() -> None:
    """A chat upstream that sends no call id: the stream said `toolu_N`, the whole reply an
    empty id, which leaves Claude Code's tool_result nothing to pair with (found in review).
    The ids are `toolu_<part>_N`, the part one message's own (`tool_ids`): given the same
    part, both translations give the same ids."""
    whole = whole_reply({"content": None, "tool_calls": CALLS})
    message = at.Message.model_validate(anthropic_reply.from_chat(whole, ids=ToolIds("p1")))
    whole_ids = [block.id for block in message.content if block.type == "tool_use"]
    streamed = run(
        anthropic_reply.MessagesStream(ids=ToolIds("p1")),
        [chunk({"tool_calls": [call]}) for call in CALLS] + [chunk({}, "tool_calls")],
    )
    stream_ids = [
        payload["content_block"]["id"]
        for name, payload in streamed
        if name == "content_block_start" and payload["content_block"]["type"] == "tool_use"
    ]
    assert whole_ids == stream_ids == ["toolu_p1_0", "toolu_p1_1"]


def test_the_token_limit_reaches_a_chat_backend_as_max_tokens(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """The name every server that speaks chat reads: Ollama ignores `max_completion_tokens`,
    so a translated limit sent only under that name was lost there (found in review). The
    limit binds: the answer stops there."""
    messages = anthropic_client(proxy)
    ask = [{"role": "user", "content": "Write a long essay about the sea."}]
    message = messages.messages.create(model="cloud", max_tokens=5, messages=ask)  # type: ignore[arg-type]
    sent = servers["cloud"].stats()["last_request"]
    assert sent["max_tokens"] == 5 and "max_completion_tokens" not in sent
    assert message.stop_reason == "max_tokens" and message.usage.output_tokens == 5
    responses = openai_client(proxy)
    response = responses.responses.create(model="cloud", input=ask, max_output_tokens=16)  # type: ignore[arg-type]
    sent = servers["cloud"].stats()["last_request"]
    assert sent["max_tokens"] == 16 and "max_completion_tokens" not in sent
    assert response.status == "incomplete" and response.usage is not None
    assert response.usage.output_tokens == 16


@pytest.mark.parametrize(
    ("base_url", "sent"),
    [
        ("https://api.openai.com/v1", {"max_completion_tokens": 64}),
        ("https://team.openai.azure.com/openai/v1", {"max_completion_tokens": 64}),
        ("http://localhost:11434/v1", {"max_tokens": 64}),  # Ollama
        ("http://spark:8888/v1", {"max_tokens": 64}),  # vLLM
    ],
)
def test_openais_own_api_gets_the_token_limit_under_its_current_name(
    base_url: str, sent: dict[str, int]
) -> None:
    """OpenAI's reasoning models (o-series, gpt-5) refuse chat's deprecated `max_tokens`
    ("use 'max_completion_tokens'"), which Claude Code's and Codex's translated requests
    and many chat clients send (found in review)."""
    settings = Backend(name="b", tier="cloud", base_url=base_url, model="m")
    body = {"model": "auto", "messages": [], "max_tokens": 64}
    out = OpenAICompatibleBackend(settings).body_for("chat", body)
    assert {k: v for k, v in out.items() if k.startswith("max_")} == sent
    assert OpenAICompatibleBackend(settings).body_for("completions", body)["max_tokens"] == 64


def test_a_null_max_completion_tokens_does_not_keep_max_tokens_for_openai() -> None:
    """`max_completion_tokens: null` is unset, as the window check reads it: the rename ran
    only when the key was missing, so both went on and a reasoning model refused the request
    (found in review). Both null: one null, under the current name."""
    settings = Backend(name="b", tier="cloud", base_url="https://api.openai.com/v1", model="m")
    backend = OpenAICompatibleBackend(settings)
    body = {"model": "auto", "messages": [], "max_tokens": 50, "max_completion_tokens": None}
    out = backend.body_for("chat", body)
    assert {k: v for k, v in out.items() if k.startswith("max_")} == {"max_completion_tokens": 50}
    body = {"model": "auto", "messages": [], "max_tokens": None, "max_completion_tokens": None}
    out = backend.body_for("chat", body)
    assert {k: v for k, v in out.items() if k.startswith("max_")} == {"max_completion_tokens": None}


def test_max_tokens_beside_a_max_completion_tokens_is_not_sent_to_openai() -> None:
    """Both numbers: OpenAI's reasoning models refuse the request for `max_tokens` alone, and
    the window check reads `max_completion_tokens` (`request_size.output_limit`), so that one
    goes on. Another backend gets both, as the client sent them."""
    body = {"model": "auto", "messages": [], "max_tokens": 50, "max_completion_tokens": 80}
    hosted = Backend(name="b", tier="cloud", base_url="https://api.openai.com/v1", model="m")
    out = OpenAICompatibleBackend(hosted).body_for("chat", body)
    assert {k: v for k, v in out.items() if k.startswith("max_")} == {"max_completion_tokens": 80}
    local = Backend(name="l", tier="local", base_url="http://127.0.0.1:9/v1", model="m")
    out = OpenAICompatibleBackend(local).body_for("chat", body)
    assert {k: v for k, v in out.items() if k.startswith("max_")} == {
        "max_tokens": 50,
        "max_completion_tokens": 80,
    }


@pytest.mark.parametrize("stream", [False, True])
def test_a_messages_reply_without_upstream_usage_is_recorded_as_estimated(
    proxy: RunningRouter, servers: dict[str, Running], stream: bool
) -> None:
    """A chat upstream that sends no usage (one that ignores `stream_options`): the Messages
    translation must carry numbers, and its zeros were recorded as an exact count of 0
    output tokens; a Responses reply in the same case is estimated (found in review)."""
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    servers["cloud"].control("faults", {"fault": "no_usage"})
    client = anthropic_client(proxy)
    ask = [{"role": "user", "content": "Write a long essay about the sea."}]
    try:
        if stream:
            with client.messages.stream(model="cloud", max_tokens=40, messages=ask) as s:  # type: ignore[arg-type]
                message = s.get_final_message()
        else:
            message = client.messages.create(model="cloud", max_tokens=40, messages=ask)  # type: ignore[arg-type]
        record = records.wait(30)
    finally:
        servers["cloud"].control("faults", {"fault": None})
        proxy.components.gateway.sinks.remove(records)
    assert message.content and message.usage.input_tokens > 0  # the router's estimate
    assert record.outcome == "ok" and record.usage.estimated
    assert record.usage.prompt_tokens == message.usage.input_tokens
    assert record.usage.completion_tokens >= 10  # 40 tokens of text, estimated from its length
