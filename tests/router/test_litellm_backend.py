"""A litellm backend (Anthropic Messages on the wire) behind the OpenAI surface, for real."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router.backends import create
from router.config import parse
from tests.harness import Running, RunningRouter, claude_backend, router, simulator

INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")


@pytest.fixture(scope="module")
def setup(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Running, Running, RunningRouter]]:
    with (
        simulator(profile="anthropic", model="claude-sonnet-4-5") as claude,
        simulator(profile="vllm", model="local-model") as local,
    ):
        config = parse(
            {
                "backends": [
                    {
                        **claude_backend(claude),
                        "timeouts": {
                            "connect_s": 2,
                            "first_token_s": 5,
                            "idle_s": 5,
                            "total_s": 20,
                        },
                    },
                    {
                        "name": "local",
                        "tier": "local",
                        "base_url": local.url,
                        "model": "local-model",
                    },
                ],
                "routes": {i: ["claude", "local"] for i in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("litellm") / "ledger")},
            }
        )
        with router(config) as proxy:
            yield claude, local, proxy


def test_plain_and_streamed_through_litellm(setup: tuple[Running, Running, RunningRouter]) -> None:
    claude, _, proxy = setup
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    raw = client.chat.completions.with_raw_response.create(
        model="claude",
        messages=[{"role": "user", "content": "Write a limerick about routers."}],
        max_tokens=60,
    )
    completion = raw.parse()
    assert raw.headers["x-smf-backend"] == "claude"
    assert completion.choices[0].message.content
    assert completion.usage is not None and completion.usage.prompt_tokens > 0
    chunks = list(
        client.chat.completions.create(
            model="claude",
            stream=True,
            max_tokens=60,
            messages=[{"role": "user", "content": "Another one."}],
        )
    )
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert all(c.choices for c in chunks)  # the usage chunk the router asked for is stripped
    assert claude.completions("/v1/messages") == 2


def written_with(setup: tuple[Running, Running, RunningRouter], fault: str, ask: str) -> Any:
    """The raw answer to a writing request `ask` (routed to claude, then local) while
    claude's simulator has `fault`."""
    claude, _, proxy = setup
    claude.control("faults", {"fault": fault})
    try:
        client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
        return client.chat.completions.with_raw_response.create(
            model="writing", messages=[{"role": "user", "content": ask}], max_tokens=40
        )
    finally:
        claude.control("faults", {"fault": None})


def test_anthropic_overload_falls_back(setup: tuple[Running, Running, RunningRouter]) -> None:
    raw = written_with(setup, "server_error:529", "Draft a memo.")
    assert raw.headers["x-smf-backend"] == "local"
    assert raw.headers["x-smf-attempts"] == "2"


def test_anthropic_bad_request_passes_through_without_fallback(
    setup: tuple[Running, Running, RunningRouter],
) -> None:
    claude, local, proxy = setup
    before = local.completions()
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    claude.control("faults", {"fault": "bad_request"})
    try:
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(
                model="writing", messages=[{"role": "user", "content": "hi"}], max_tokens=40
            )
    finally:
        claude.control("faults", {"fault": None})
    assert local.completions() == before


def test_anthropic_context_error_falls_back(setup: tuple[Running, Running, RunningRouter]) -> None:
    raw = written_with(setup, "context_length", "a long one")
    assert raw.headers["x-smf-backend"] == "local"


def test_a_router_that_stops_leaves_no_litellm_task_pending(tmp_path: Path) -> None:
    """litellm runs its logging on a worker task in the loop that first sent through it; a
    router that stops must stop that task with its loop, not leave it to be destroyed
    pending (an "exception ignored" at garbage collection, here an error)."""
    with simulator(profile="anthropic", model="claude-sonnet-4-5") as claude:
        config = parse(
            {
                "backends": [claude_backend(claude)],
                "routes": {i: ["claude"] for i in INTENTS},
                "ledger": {"path": str(tmp_path / "ledger")},
            }
        )
        with router(config) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
            answer = client.chat.completions.create(
                model="claude", messages=[{"role": "user", "content": "Say hello."}]
            )
            assert answer.choices[0].message.content
        # litellm used again from another loop (as `smf-router canary` would) lets go of the
        # stopped loop's worker task: destroyed while pending, it is reported at collection
        adapter = create(config.backend("claude"))
        body = {"messages": [{"role": "user", "content": "Say hello."}]}
        asyncio.run(adapter.send("chat", body, {}, False))
    gc.collect()


def test_completions_go_past_the_litellm_backend(
    setup: tuple[Running, Running, RunningRouter],
) -> None:
    """litellm speaks chat only: /v1/completions on a route that starts with claude is served
    by local (claude answered a final 400 "api completions unsupported")."""
    _, local, proxy = setup
    before = local.completions("/v1/completions")
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    raw = client.completions.with_raw_response.create(
        model="writing", prompt="Once upon a time", max_tokens=10
    )
    assert raw.headers["x-smf-backend"] == "local"
    assert local.completions("/v1/completions") == before + 1


def test_completions_no_backend_of_the_target_speaks_are_a_400(
    setup: tuple[Running, Running, RunningRouter],
) -> None:
    """/v1/completions with model `claude` (litellm, chat only) was a 503
    `no_backend_available`: the SDK retried a request no retry could ever serve."""
    _, _, proxy = setup
    sent: list[httpx.Request] = []
    http = httpx.Client(event_hooks={"request": [sent.append]})
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=2, http_client=http)
    with pytest.raises(openai.BadRequestError) as info:
        client.completions.create(model="claude", prompt="Once upon a time", max_tokens=10)
    assert info.value.status_code == 400
    assert info.value.param == "model"
    assert "'claude'" in info.value.message and "completions API" in info.value.message
    assert len(sent) == 1  # the SDK took it as final
