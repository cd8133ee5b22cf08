"""A router over three simulators for the agent-API tests, with each backend's APIs chosen.

`local` (vLLM profile) speaks chat, completions, Responses and Messages natively; `cloud`
(OpenAI profile) speaks chat only as far as the router knows, so Messages and Responses
reach it translated; `claude` (Anthropic profile) speaks Messages only.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from classifier.intent import INTENTS
from router.config import Config, parse
from tests.harness import Collect, Running, RunningRouter, router, simulator
from tests.resilience.conftest import until

TIMEOUTS = {"connect_s": 2, "first_token_s": 2, "idle_s": 1.5, "total_s": 20}
APIS: dict[str, list[str]] = {
    "local": ["chat", "completions", "responses", "messages"],
    "cloud": ["chat", "completions"],
    "claude": ["messages"],
}
# Claude Code's kind of tool call, in Messages' shape, and a turn that asks for it.
WEATHER_TOOLS: Any = [
    {
        "name": "get_weather",
        "description": "Current weather for a city",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }
]
WEATHER_ASK: Any = [{"role": "user", "content": "What's the weather in Paris?"}]
# The same tool in the chat API's shape (`tools` of a chat request)
CHAT_WEATHER_TOOLS: Any = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": WEATHER_TOOLS[0]["input_schema"],
        },
    }
]


def stack_config(servers: dict[str, Running], tmp: Path, route: list[str]) -> Config:
    backends: list[dict[str, Any]] = [
        {
            "name": name,
            "tier": "local" if name == "local" else "cloud",
            "base_url": server.url,
            "model": f"{name}-model",
            "apis": APIS[name],
            "timeouts": TIMEOUTS,
            "retry_after_max_s": 0.2,
        }
        for name, server in servers.items()
    ]
    return parse(
        {
            "backends": backends,
            "routes": {intent: route for intent in INTENTS},
            "ledger": {"path": str(tmp / "ledger"), "flush_interval_s": 0.2},
        }
    )


@contextmanager
def simulators() -> Iterator[dict[str, Running]]:
    with (
        simulator(profile="vllm", model="local-model", keep_requests=1) as local,
        simulator(profile="cloud", model="cloud-model", keep_requests=1) as cloud,
        simulator(profile="anthropic", model="claude-model") as claude,
    ):
        yield {"local": local, "cloud": cloud, "claude": claude}


@contextmanager
def stack(
    servers: dict[str, Running], tmp: Path, route: list[str] | None = None
) -> Iterator[RunningRouter]:
    with router(stack_config(servers, tmp, route or ["local", "cloud"])) as running:
        yield running


def relayed_and_direct(
    tmp: Path, profile: str, messages: Any, tools: Any, **extra: Any
) -> tuple[bytes, bytes]:
    """A streamed chat request of two choices with `tools` through the router to one
    simulator of `profile`, and the body the router forwarded sent to that simulator
    directly: the stream the client got, and the one the backend made."""
    with simulator(profile=profile, model="cloud-model", repeatable=True) as sim:
        with router(stack_config({"cloud": sim}, tmp, ["cloud"])) as running:
            body = {
                "model": "auto",
                "messages": messages,
                "tools": tools,
                **extra,
                "n": 2,
                "temperature": 1.0,
                "stream": True,
                "stream_options": {"include_usage": True},  # the client's: nothing is stripped
            }
            relayed = httpx.post(f"{running.url}/chat/completions", json=body, timeout=10)
            relayed.raise_for_status()
        forwarded = sim.stats()["last_request"]  # what the router asked the backend
        direct = httpx.post(f"{sim.url}/chat/completions", json=forwarded, timeout=10)
    return relayed.content, direct.content


def last_request(server: Running) -> dict[str, Any]:
    """The body a simulator last received: what the router sent it."""
    body: dict[str, Any] = server.stats()["last_request"]
    return body


def anthropic_client(server: Running) -> anthropic.Anthropic:
    """The official `anthropic` SDK on `server` (its root: the SDK adds /v1), without
    retries: a test sees each answer as it was sent."""
    return anthropic.Anthropic(base_url=server.root, api_key="none", max_retries=0)


def openai_client(server: Running) -> openai.OpenAI:
    """The official `openai` SDK on `server`, without retries."""
    return openai.OpenAI(base_url=server.url, api_key="none", max_retries=0)


def answered(
    client: openai.OpenAI, kwargs: dict[str, Any], *, stream: bool
) -> tuple[httpx.Headers, str | None]:
    """The router's headers for the chat `kwargs`, sent whole or streamed through the SDK,
    and the whole reply's content (None streamed): a whole reply has choices, a streamed
    one a chunk that finishes. The callers assert what the content must be."""
    if not stream:
        raw = client.chat.completions.with_raw_response.create(**kwargs)
        choices = raw.parse().choices
        assert choices
        return raw.headers, choices[0].message.content
    with client.chat.completions.with_streaming_response.create(**kwargs, stream=True) as streamed:
        assert [c for c in streamed.parse() if c.choices and c.choices[0].finish_reason]
        return streamed.headers, None


def messages_stream_error(
    proxy: RunningRouter, model: str, ask: list[dict[str, Any]], max_tokens: int = 200
) -> dict[str, Any]:
    """The `error` object of the Anthropic error event that ends a Messages stream."""
    client = anthropic_client(proxy)
    with (
        pytest.raises(anthropic.APIStatusError) as failed,
        client.messages.stream(model=model, max_tokens=max_tokens, messages=ask) as s,  # type: ignore[arg-type]
    ):
        for _ in s:
            pass
    body = failed.value.body
    assert isinstance(body, dict)
    error: dict[str, Any] = body["error"]
    return error


def responses_stream_error(proxy: RunningRouter, model: str, ask: list[dict[str, Any]]) -> Any:
    """The error of the `response.failed` that ends a Responses stream (nothing completed)."""
    client = openai_client(proxy)
    events = list(client.responses.create(model=model, input=ask, stream=True))  # type: ignore[arg-type]
    assert events[-1].type == "response.failed"
    assert not any(e.type in ("response.completed", "response.incomplete") for e in events)
    return events[-1].response.error  # type: ignore[union-attr]


def explained(proxy: RunningRouter, body: dict[str, Any], api: str | None = None) -> dict[str, Any]:
    """What `POST /v1/router/explain` says of `body` (of `api`'s shape, when given)."""
    sent = body if api is None else {"api": api, **body}
    reply = httpx.post(f"{proxy.root}/v1/router/explain", json=sent, timeout=30)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def streamed_headers(proxy: RunningRouter, records: Collect, body: dict[str, Any]) -> httpx.Headers:
    """The headers of the router's answer to the chat `body`, streamed through the official
    SDK and read to its end as an agent reads it, once its record (in `records`, a sink
    after the sticky table's) has finished: the conversation is pinned by then."""
    finished = len(records.records)
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    with client.chat.completions.with_streaming_response.create(**copy.deepcopy(body)) as raw:
        assert raw.status_code == 200
        raw.read()
        headers = raw.headers
    until(lambda: len(records.records) > finished, what="the record finished")
    return headers
