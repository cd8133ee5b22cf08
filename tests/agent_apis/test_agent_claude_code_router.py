"""claude-code-router's OpenRouter `reasoning` reaches no backend that does not take it.

claude-code-router (`ccr`, 2.0.0, driving Claude Code 2.1.197) turns Claude Code's thinking
into OpenRouter's `"reasoning": {"effort": "high", "enabled": false}` on every chat request
(recorded in a live review). The router passed it on: OpenAI refuses it with a 400
("Unrecognized request argument supplied: reasoning"), so every ask routed to an OpenAI
cloud failed, and one local 500 falling back there became a hard 400
(`router.backends.openrouter_reasoning`). Real sockets: the official SDK through the router
to the simulators, each of which keeps the last body it was sent (`keep_requests`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router.backends.openai_compatible import OpenAICompatibleBackend
from router.config import Backend, parse
from router.record import Api
from tests.agent_apis.agent_stack import (
    answered,
    last_request,
    openai_client,
    stack,
    stack_config,
)
from tests.harness import INTENTS, Running, RunningRouter, openai_via_litellm, router

# What CCR sends beside the conversation, as recorded: system as text parts, a 64k limit
SYSTEM: Any = {
    "role": "system",
    "content": [{"type": "text", "text": "You are a Claude agent, built on Anthropic's SDK."}],
}
ASK: Any = [SYSTEM, {"role": "user", "content": "Write a short haiku about autumn leaves."}]
OFF = {"effort": "high", "enabled": False}


def _ccr(reasoning: Any, **more: Any) -> dict[str, Any]:
    return {
        "model": "auto",
        "messages": ASK,
        "max_tokens": 64000,
        "extra_body": {"reasoning": reasoning, **more},
    }


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("first", ["cloud", "local"])
def test_ccrs_reasoning_off_is_served(
    servers: dict[str, Running], tmp_path: Path, first: str, stream: bool
) -> None:
    """Whole and streamed (CCR streams): served by the cloud (a 400 before) without
    `reasoning` nor any `reasoning_effort`, and by vLLM with it as sent (vLLM lets a field
    it does not know go)."""
    with stack(servers, tmp_path, [first]) as proxy:
        headers, _ = answered(openai_client(proxy), _ccr(OFF), stream=stream)
    assert headers["x-smf-backend"] == first
    body = last_request(servers[first])
    assert (body["messages"], body["max_tokens"]) == (ASK, 64000)
    if first == "local":
        assert body["reasoning"] == OFF
    else:
        assert not {"reasoning", "reasoning_effort"} & set(body), body


def test_a_local_500_falls_back_to_the_cloud(servers: dict[str, Running], tmp_path: Path) -> None:
    """The live review's fallback: one 500 from local, and the cloud serves CCR's request
    (it answered 400 there, and Claude Code does not retry a 4xx)."""
    servers["local"].control("faults", {"fault": "server_error", "times": 1})
    try:
        with stack(servers, tmp_path, ["local", "cloud"]) as proxy:
            headers, _ = answered(openai_client(proxy), _ccr(OFF), stream=True)
    finally:
        servers["local"].control("faults", {"fault": None})
    assert (headers["x-smf-backend"], headers["x-smf-attempts"]) == ("cloud", "2")
    assert "reasoning" not in last_request(servers["cloud"])


@pytest.mark.parametrize(
    ("reasoning", "more", "effort"),
    [
        ({"effort": "low"}, {}, "low"),
        ({"effort": "high", "enabled": True, "exclude": True}, {}, "high"),
        ({"effort": "high"}, {"reasoning_effort": "minimal"}, "minimal"),  # the client's wins
    ],
)
def test_an_effort_asked_for_reaches_the_cloud_as_reasoning_effort(
    servers: dict[str, Running], tmp_path: Path, reasoning: Any, more: Any, effort: str
) -> None:
    with stack(servers, tmp_path, ["cloud"]) as proxy:
        _, content = answered(openai_client(proxy), _ccr(reasoning, **more), stream=False)
    assert content
    body = last_request(servers["cloud"])
    assert (body["reasoning_effort"], "reasoning" in body) == (effort, False)


def test_a_litellm_backend_is_handed_the_effort(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """litellm is handed OpenAI's chat fields alone, `reasoning` not among them: the effort
    goes as `reasoning_effort`, which litellm maps for its provider (OpenAI's as it is)."""
    config = parse(
        {
            "backends": [openai_via_litellm("cloud", servers["cloud"].url, "cloud-model")],
            "routes": {intent: ["cloud"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
        }
    )
    with router(config) as proxy:
        _, content = answered(openai_client(proxy), _ccr({"effort": "low"}), stream=False)
    assert content
    body = last_request(servers["cloud"])
    assert (body["reasoning_effort"], "reasoning" in body) == ("low", False)


@pytest.fixture
def responses_cloud(servers: dict[str, Running], tmp_path: Path) -> Iterator[RunningRouter]:
    """The router with its OpenAI cloud speaking Responses natively, every route there."""
    data = stack_config(servers, tmp_path, ["cloud"]).model_dump(mode="json")
    for backend in data["backends"]:
        if backend["name"] == "cloud":
            backend["apis"] = ["chat", "responses"]
    with router(parse(data)) as running:
        yield running


def test_a_responses_bodys_reasoning_goes_as_sent(
    servers: dict[str, Running], responses_cloud: RunningRouter
) -> None:
    """On Responses `reasoning` is OpenAI's own (`{"effort", "summary"}`): untouched."""
    asked = {"effort": "low", "summary": "auto"}
    raw = openai_client(responses_cloud).responses.with_raw_response.create(
        model="auto",
        input="Write a haiku",
        reasoning=asked,  # type: ignore[arg-type]
    )
    assert raw.parse().status == "completed"
    assert raw.headers["x-smf-backend"] == "cloud"
    body = last_request(servers["cloud"])
    assert (body["reasoning"], "reasoning_effort" in body) == (asked, False)


def _sent(api: Api, reasoning: Any, **settings: Any) -> dict[str, Any]:
    """What a backend adapter (live attempts, fallbacks and shadow replays alike) makes of
    a body carrying `reasoning`, but for the model."""
    backend = OpenAICompatibleBackend(Backend(name="b", model="m", **settings))
    sent = backend.body_for(api, {"model": "auto", "prompt": "hi", "reasoning": reasoning})
    assert sent.pop("model") == "m"
    return sent


OPENAI = {"tier": "cloud", "base_url": "https://api.openai.com/v1"}
HI = {"prompt": "hi"}


@pytest.mark.parametrize(
    ("reasoning", "sent"),
    [
        (OFF, HI),
        ({"enabled": False}, HI),
        ({"effort": "medium", "enabled": False}, HI),
        ({"effort": "medium"}, {**HI, "reasoning_effort": "medium"}),
        ({"effort": "none"}, {**HI, "reasoning_effort": "none"}),
        ({"max_tokens": 2000}, HI),  # OpenAI's chat has no reasoning budget
        ({"exclude": True}, HI),
        ({"enabled": True}, HI),
        ({}, HI),
        (None, HI),
        ("high", HI),
        ({"effort": "low", "enabled": None}, {**HI, "reasoning_effort": "low"}),  # inferred
        # no boolean, no effort: OpenRouter's `enabled` is a boolean, its `effort` a name
        ({"effort": "high", "enabled": "false"}, HI),
        ({"effort": "high", "enabled": 0}, HI),
        ({"effort": "high", "enabled": 1}, HI),
        ({"effort": ""}, HI),
        ({"effort": 3}, HI),
    ],
)
def test_an_openai_chat_body_gets_what_openai_reads(reasoning: Any, sent: Any) -> None:
    assert _sent("chat", reasoning, **OPENAI) == sent
    assert _sent("chat", reasoning, tier="local", base_url="https://api.openai.com/v1") == sent


@pytest.mark.parametrize(
    ("api", "settings"),
    [
        ("responses", OPENAI),  # OpenAI's own field there
        ("completions", OPENAI),
        ("messages", OPENAI),
        ("chat", {"tier": "local", "base_url": "http://127.0.0.1:8888/v1"}),  # vLLM
        ("chat", {"tier": "cloud", "base_url": "https://openrouter.ai/api/v1"}),
        ("chat", {**OPENAI, "extra_body": {"reasoning": {"effort": "low"}}}),
    ],
)
def test_a_backend_that_takes_it_is_sent_it_as_sent(api: Api, settings: Any) -> None:
    """The client's value, which wins over an `extra_body` default as for any extra."""
    assert _sent(api, OFF, **settings) == {**HI, "reasoning": OFF}


GATEWAY = {"tier": "cloud", "base_url": "https://gw.example.com/openrouter/v1"}


def test_openrouter_behind_a_gateway_is_named_by_extra_body() -> None:
    """The README's way for OpenRouter behind another host, which the host check does not
    see: `extra_body: {reasoning: null}` sends a client's `reasoning` as sent, and a body
    without one with the default, `null`."""
    assert _sent("chat", OFF, **GATEWAY) == HI  # taken for OpenAI's chat: OFF is left out
    named = {**GATEWAY, "extra_body": {"reasoning": None}}
    assert _sent("chat", OFF, **named) == {**HI, "reasoning": OFF}
    backend = OpenAICompatibleBackend(Backend(name="b", model="m", **named))
    assert backend.body_for("chat", {"model": "auto", "prompt": "hi"})["reasoning"] is None
