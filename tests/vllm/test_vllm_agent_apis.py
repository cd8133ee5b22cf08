"""`/v1/responses` and `/v1/messages` through smf-router, passed natively to vLLM's own
endpoints (Codex speaks Responses, Claude Code speaks Messages), with the official SDKs."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx
import openai
import pytest
from router_stack import Stack, ledger_row

USER: Any = [{"role": "user", "content": "What is the weather like in Paris today?"}]


@pytest.fixture
def claude(stack: Stack, vllm_base_url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=stack.root, api_key="unused", max_retries=0, timeout=120)


def test_responses_native_on_vllm_with_usage_in_ledger(stack: Stack, client: openai.OpenAI) -> None:
    raw = client.responses.with_raw_response.create(
        model="local", input="Hello", max_output_tokens=5, temperature=0
    )
    reply = raw.parse()
    assert raw.headers["x-smf-backend"] == "local"
    assert reply.object == "response"
    assert reply.output_text
    assert reply.usage is not None and 0 < reply.usage.output_tokens <= 5
    row = ledger_row(stack.ledger, raw.headers["x-request-id"])
    assert (row["prompt_tokens"], row["completion_tokens"]) == (
        reply.usage.input_tokens, reply.usage.output_tokens,
    )  # fmt: skip


def test_responses_stream_ends_with_completed_event(stack: Stack, client: openai.OpenAI) -> None:
    events = list(
        client.responses.create(
            model="local", input="Hello", max_output_tokens=5, temperature=0, stream=True
        )
    )
    types = [e.type for e in events]
    assert types[0] == "response.created"
    assert types[-1] == "response.completed"
    assert "response.output_text.delta" in types
    final: Any = events[-1]
    assert final.response.usage.output_tokens > 0


def test_messages_native_on_vllm(stack: Stack, claude: anthropic.Anthropic) -> None:
    raw = claude.messages.with_raw_response.create(model="local", max_tokens=5, messages=USER)
    reply = raw.parse()
    assert raw.headers["x-smf-backend"] == "local"
    assert reply.type == "message"
    assert reply.stop_reason == "max_tokens"
    assert reply.usage.output_tokens == 5
    row = ledger_row(stack.ledger, raw.headers["x-request-id"])
    assert (row["prompt_tokens"], row["completion_tokens"]) == (reply.usage.input_tokens, 5)


def test_messages_stream_reassembled_by_anthropic_sdk(claude: anthropic.Anthropic) -> None:
    with claude.messages.stream(model="local", max_tokens=5, messages=USER) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "max_tokens"
    assert final.usage.output_tokens == 5
    assert final.content and final.content[0].type == "text"


def test_count_tokens_equals_vllm_count(stack: Stack, vllm_base_url: str) -> None:
    body = {"model": "local", "messages": USER}
    routed = httpx.post(f"{stack.root}/v1/messages/count_tokens", json=body, timeout=30)
    direct = httpx.post(
        f"{vllm_base_url}/v1/messages/count_tokens", json={**body, "model": "tiny"}, timeout=30
    )
    assert routed.status_code == 200
    assert routed.json()["input_tokens"] == direct.json()["input_tokens"]
    assert routed.headers["x-smf-backend"] == "local"


def test_messages_context_too_long_on_vllm_falls_back_translated_to_cloud(
    claude: anthropic.Anthropic,
) -> None:
    dense: Any = [{"role": "user", "content": "天气晴朗" * 150}]  # fits the estimate, not vLLM
    raw = claude.messages.with_raw_response.create(
        model="coding",
        max_tokens=5,
        messages=dense,
    )
    assert raw.headers["x-smf-backend"] == "cloud"
    assert raw.headers["x-smf-attempts"] == "2"
    assert raw.parse().content


def test_agent_bodies_vllm_refuses_are_made_what_it_takes(
    client: openai.OpenAI, claude: anthropic.Anthropic
) -> None:
    """Codex's `apply_patch` grammar and Claude Code's server tools, natively on vLLM: it
    refused both with a 400; they reach it free-form and dropped. More stop sequences than
    it takes are the router's 400, naming the client's field."""
    grammar = {"type": "grammar", "syntax": "lark", "definition": 'start: "*** Begin Patch"'}
    patch: Any = {
        "type": "custom",
        "name": "apply_patch",
        "description": "Edit.",
        "format": grammar,
    }
    raw = client.responses.with_raw_response.create(
        model="local", input="Hello", max_output_tokens=5, tools=[patch]
    )
    assert raw.headers["x-smf-backend"] == "local"
    web_search: Any = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    weather: Any = {"name": "get_weather", "input_schema": {"type": "object"}}
    named: Any = {"type": "tool", "name": "web_search"}
    reply = claude.messages.with_raw_response.create(
        model="local", max_tokens=5, messages=USER, tools=[weather, web_search], tool_choice=named
    )
    assert reply.headers["x-smf-backend"] == "local"
    with pytest.raises(anthropic.BadRequestError) as refused:
        claude.messages.create(
            model="local", max_tokens=5, messages=USER, stop_sequences=["a", "b", "c", "d", "e"]
        )
    assert "'stop_sequences' holds 5" in str(refused.value)
