"""What a client's body can make a litellm backend do, and what it cannot.

litellm's keyword arguments steer litellm itself (`base_url`, `api_key`, `mock_response`,
`timeout`, …): a body spread into them would let a client redirect the backend's request,
with its key, or answer without any upstream. The adapter gives litellm only OpenAI's chat
fields and those the backend's `extra_body` names (`test_litellm_extra_body`); the rest of a
body is dropped. Real sockets: the router, litellm, and simulators
speaking Anthropic's Messages API (the configured one checks the configured key).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from router.config import parse
from tests.harness import Running, claude_backend, router, simulator

INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")
KEY_ENV = "SMF_TEST_CLAUDE_KEY"
KEY = "sk-ant-configured-0123456789"
HELLO: list[Any] = [{"role": "user", "content": "Say hello."}]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Running, str]]:
    """The configured upstream, another one a client might name, and the router's URL."""
    os.environ[KEY_ENV] = KEY
    with (
        simulator(profile="anthropic", model="claude-sonnet-4-5", api_key=KEY) as claude,
        simulator(profile="anthropic", model="claude-sonnet-4-5") as elsewhere,
    ):
        config = parse(
            {
                "backends": [
                    {
                        **claude_backend(claude),
                        "api_key_env": KEY_ENV,
                        "extra_body": {"top_k": 5},
                        # the simulator obeys this header: a fault that leaves whole replies be
                        "headers": {"x-sim-fault": "missing_done"},
                    }
                ],
                "routes": {i: ["claude"] for i in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("fields") / "ledger")},
                "resilience": {"failure_threshold": 1},  # one failure would open the circuit
            }
        )
        with router(config) as proxy:
            yield claude, elsewhere, proxy.url
    os.environ.pop(KEY_ENV, None)


def test_a_body_cannot_steer_litellm(stack: tuple[Running, Running, str]) -> None:
    """Each of these reached litellm as a keyword argument: the request went to the client's
    URL with the backend's key, a mock answer was billed as the backend's, or a clash with
    the adapter's own argument failed the attempt and opened the backend's circuit."""
    claude, elsewhere, url = stack
    steering: dict[str, Any] = {
        "base_url": elsewhere.root,
        "api_base": elsewhere.root,
        "api_key": "sk-client-chosen",
        "mock_response": "an answer no upstream gave",
        "custom_llm_provider": "openai",
        "timeout": 0.001,
        "num_retries": 3,
        "drop_params": False,
        "extra_headers": {"x-api-key": "sk-client-chosen"},
    }
    client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
    before = claude.completions("/v1/messages")
    for field, value in steering.items():
        raw = client.chat.completions.with_raw_response.create(
            model="claude", messages=HELLO, max_tokens=20, extra_body={field: value}
        )
        assert raw.headers["x-smf-backend"] == "claude", field
        assert raw.parse().choices[0].message.content != steering["mock_response"]
    # every request reached the configured upstream, which took only the configured key
    assert claude.completions("/v1/messages") == before + len(steering)
    assert elsewhere.stats()["requests"] == 0


def test_chat_fields_and_configured_extras_reach_the_provider(
    stack: tuple[Running, Running, str],
) -> None:
    claude, _, url = stack
    client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
    client.chat.completions.create(
        model="claude",
        messages=HELLO,
        max_tokens=20,
        temperature=0.5,
        stop=["END"],
        extra_body={"not_an_openai_field": 1},
    )
    sent = claude.stats()["last_request"]
    assert sent["temperature"] == 0.5 and sent["stop_sequences"] == ["END"]
    assert sent["top_k"] == 5  # the backend's extra_body, in Anthropic's own terms
    assert "not_an_openai_field" not in sent


def test_configured_headers_reach_the_provider(stack: tuple[Running, Running, str]) -> None:
    """README: `headers` are static headers sent upstream; a litellm backend sent none. The
    configured `x-sim-fault` that arrives shows in the simulator's fault count."""
    claude, _, url = stack
    before = claude.stats()["by_fault"].get("missing_done", 0)
    client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
    client.chat.completions.create(model="claude", messages=HELLO, max_tokens=20)
    assert claude.stats()["by_fault"].get("missing_done", 0) == before + 1


def test_claude_codes_cache_breakpoints_reach_anthropic(
    stack: tuple[Running, Running, str],
) -> None:
    """Translation to chat flattened the system prompt to one string, joined the user's text
    parts and rebuilt the tools without their `cache_control`: through a litellm Anthropic
    backend Claude Code's prompt cache was never hit, every turn paid in full (found in
    review). litellm hands the breakpoints on when chat's parts carry them."""
    claude, _, url = stack
    mark = {"type": "ephemeral"}
    tool = {"name": "read", "input_schema": {"type": "object"}, "cache_control": mark}
    ask = {
        "model": "claude",
        "max_tokens": 20,
        "system": [
            {"type": "text", "text": "You are Claude Code."},
            {"type": "text", "text": "A long prompt.", "cache_control": mark},
        ],
        "tools": [tool],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Context."},
                    {"type": "text", "text": "Say hello.", "cache_control": mark},
                ],
            }
        ],
    }
    reply = httpx.post(f"{url}/messages", json=ask, timeout=30)
    assert reply.status_code == 200, reply.text
    sent = claude.stats()["last_request"]
    assert [b.get("cache_control") for b in sent["system"]] == [None, mark]
    assert [b.get("cache_control") for b in sent["messages"][0]["content"]] == [None, mark]
    assert sent["tools"][0]["cache_control"] == mark


def test_what_the_provider_lacks_is_dropped_an_undefined_part_is_the_clients_400(
    stack: tuple[Running, Running, str],
) -> None:
    """README says what litellm (called with `drop_params`) does with what Anthropic lacks: a
    field or an OpenAI content part it has no form for is dropped, with a 200 (no
    `logprobs`); a part of a type OpenAI's chat does not define is the client's 400 (a guard
    of those words: the README said every part litellm cannot convert was a 400)."""
    claude, _, url = stack
    audio = {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}
    ask = [{"role": "user", "content": [{"type": "text", "text": "Say hello."}, audio]}]
    body = {"model": "claude", "messages": ask, "max_tokens": 20, "logprobs": True, "seed": 3}
    reply = httpx.post(f"{url}/chat/completions", json=body, timeout=30)
    assert reply.status_code == 200, reply.text
    assert reply.json()["choices"][0].get("logprobs") is None
    sent = claude.stats()["last_request"]
    assert sent["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Say hello."}]}
    ]
    assert "seed" not in sent and "logprobs" not in sent
    before = claude.completions("/v1/messages")
    odd = [{"role": "user", "content": [{"type": "hologram", "data": "x"}]}]
    reply = httpx.post(f"{url}/chat/completions", json={**body, "messages": odd}, timeout=30)
    assert reply.status_code == 400, reply.text
    assert claude.completions("/v1/messages") == before
