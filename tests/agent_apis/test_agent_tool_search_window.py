"""A tool search's deferred tools and the context window: routing counts the tools each
backend reads. Claude Code sends its MCP tools deferred (`defer_loading`), and the chat
translation offers only those a reference loaded (`router.translate.tool_search`), as
Anthropic's own API shows them; vLLM's `/v1/messages` renders every tool it is sent.

The window estimate counted every tool for every backend: 2 tools and 300 deferred ones, a
prompt of about 100 tokens, was estimated at 120,756, so `model: auto` skipped a local backend
of 65,536 tokens and `model: local` was refused as too long (found in review).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anthropic
import httpx
import pytest

from router.config import parse
from router.request_size import estimate_prompt_tokens
from tests.agent_apis.agent_stack import APIS, anthropic_client, simulators, stack_config
from tests.agent_apis.test_agent_context_mixed import CLAUDE_CODE
from tests.harness import RunningRouter, router

WINDOW = 16_384  # every backend's but the cloud's
_SCHEMA = {
    "type": "object",
    "properties": {f"p{j}": {"type": "string", "description": "x" * 80} for j in range(10)},
}
TOOLS: list[dict[str, Any]] = [
    {"name": "Bash", "description": "Runs a command.", "input_schema": {"type": "object"}},
    {"name": "ToolSearch", "description": "Loads tools.", "input_schema": {"type": "object"}},
    *(
        {"name": f"mcp__s__t{i}", "description": "d" * 300, "input_schema": _SCHEMA}
        | {"defer_loading": True}
        for i in range(100)
    ),
]
BODY: dict[str, Any] = {
    "model": "auto",
    "max_tokens": 1000,
    "tools": TOOLS,
    "messages": [{"role": "user", "content": "list files"}],
}


@contextmanager
def window_stack(folder: Path, order: list[str]) -> Iterator[RunningRouter]:
    """A router over the backends of `order`, which every route tries in that order:
    `local` (vLLM, Messages translated to chat), `native` (the same vLLM, speaking Messages
    itself) and `claude` (Anthropic's own API), each told a window of `WINDOW`, and a chat
    `cloud` with room."""
    with simulators() as servers:
        config = stack_config(servers, folder, ["local"]).model_dump()
        by_name = {b["name"]: b for b in config["backends"]}
        local = {**by_name["local"], "apis": ["chat"], "context_window": WINDOW}
        every = {
            "local": local,
            "native": {**local, "name": "native", "apis": APIS["local"]},
            "claude": {**by_name["claude"], "context_window": WINDOW},
            "cloud": {**by_name["cloud"], "context_window": 1_000_000},
        }
        config["backends"] = [every[name] for name in order]
        config["routes"] = {route: order for route in config["routes"]}
        with router(parse({**config, "resilience": {"enabled": False}})) as running:
            yield running


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    """All four backends, tried `local`, `native`, `claude`, `cloud`."""
    with window_stack(
        tmp_path_factory.mktemp("window"), ["local", "native", "claude", "cloud"]
    ) as running:
        yield running


def test_the_body_is_over_the_window_with_every_tool_and_under_it_without() -> None:
    """The premise: the deferred tools alone overflow the window."""
    assert estimate_prompt_tokens("messages", BODY, every_tool=True) > WINDOW
    assert estimate_prompt_tokens("messages", BODY) < 200


def test_only_the_backend_that_renders_every_tool_is_skipped(proxy: RunningRouter) -> None:
    explained = httpx.post(
        f"{proxy.url}/router/explain",
        json={**BODY, "api": "messages"},
        trust_env=False,
        timeout=30,
    ).json()
    assert [(s["backend"], s["reason"]) for s in explained["skipped"]] == [
        ("native", "context_window")
    ]
    assert [s["backend"] for s in explained["backends"]] == ["local", "claude", "cloud"]


def test_auto_is_served_by_the_translated_local_backend(proxy: RunningRouter) -> None:
    raw = anthropic_client(proxy).messages.with_raw_response.create(**BODY)
    assert raw.headers["x-smf-backend"] == "local"
    assert raw.parse().type == "message"


@pytest.mark.parametrize("backend", ["local", "claude"])
def test_a_backend_named_serves_it(proxy: RunningRouter, backend: str) -> None:
    """It was a 400: "prompt is too long"."""
    raw = anthropic_client(proxy).messages.with_raw_response.create(**{**BODY, "model": backend})
    assert raw.headers["x-smf-backend"] == backend


def test_the_native_backend_named_is_refused_as_too_long(proxy: RunningRouter) -> None:
    """vLLM's Messages would render all 102 tools: the window check stands there."""
    with pytest.raises(anthropic.BadRequestError) as refused:
        anthropic_client(proxy).messages.create(**{**BODY, "model": "native"})
    assert "too long" in str(refused.value)


def test_the_native_backend_refused_for_output_room_is_told_its_own_numbers(
    proxy: RunningRouter,
) -> None:
    """The refusal names the prompt the backend was judged by: "prompt + max_tokens >
    window" holds of it, and Claude Code lowers `max_tokens` by those numbers."""
    every = estimate_prompt_tokens("messages", BODY, every_tool=True)
    tools = TOOLS[: len(TOOLS) * (WINDOW // 2) // every]  # about half the window
    body = {**BODY, "model": "native", "tools": tools}
    prompt = estimate_prompt_tokens("messages", body, every_tool=True)
    asked = WINDOW - prompt + 100  # room for the offered tools, none for them all
    assert estimate_prompt_tokens("messages", body) + asked < WINDOW
    with pytest.raises(anthropic.BadRequestError) as refused:
        anthropic_client(proxy).messages.create(**{**body, "max_tokens": asked})
    found = CLAUDE_CODE.search(str(refused.value))
    assert found is not None, str(refused.value)
    assert tuple(map(int, found.groups())) == (prompt, asked, WINDOW)
