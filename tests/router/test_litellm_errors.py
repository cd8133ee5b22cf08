"""How a litellm backend's failures reach the client, the ledger and the circuit breaker.

litellm raises its own exception classes for everything: an upstream's answer, a broken
connection, and its own trouble converting a request. The adapter tells them apart, so that
only a backend that is not working counts against its circuit. Real sockets: the router,
litellm, and simulators speaking Anthropic's Messages API and vLLM's chat.
"""

from __future__ import annotations

import json
import socketserver
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import yaml

from router import reload
from router.backends import litellm as adapter
from router.backends import litellm_errors
from tests.harness import (
    Collect,
    Running,
    RunningRouter,
    breaks_on_call,
    claude_beside,
    claude_then_local,
    collected,
    read_body,
    router,
    sdk,
    simulator,
    upstream,
)

HELLO: list[Any] = [{"role": "user", "content": "Say hello."}]


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Running, Running, RunningRouter]]:
    """claude (litellm) first, local behind it; one failure opens a circuit for a minute, so
    a request that wrongly counted as the backend's failure shows in the next one."""
    with (
        simulator(profile="anthropic", model="claude-sonnet-4-5") as claude,
        simulator(profile="vllm", model="local-model") as local,
    ):
        ledger_dir = tmp_path_factory.mktemp("errors")
        resilience = {"failure_threshold": 1, "open_s": 60, "max_open_s": 60}
        config = claude_then_local(claude, local, ledger_dir, resilience)
        with router(config) as proxy:
            yield claude, local, proxy


def still_serves(proxy: RunningRouter) -> None:
    """claude's circuit is closed: a plain request is answered by claude itself."""
    raw = sdk(proxy).chat.completions.with_raw_response.create(
        model="claude", messages=HELLO, max_tokens=20
    )
    assert raw.headers["x-smf-backend"] == "claude"


def test_a_bug_in_the_adapter_is_the_routers_500_not_the_backends_failure(
    stack: tuple[Running, Running, RunningRouter], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was a 502 `malformed` that opened claude's circuit: a bug of ours, met with one
    client's request, took the backend down for everyone."""
    _, _, proxy = stack
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    monkeypatch.setattr(adapter, "_plain", breaks_on_call(1, adapter._plain))
    with pytest.raises(openai.InternalServerError) as info:
        sdk(proxy).chat.completions.create(model="claude", messages=HELLO, max_tokens=20)
    assert info.value.status_code == 500
    assert "internal router error" in info.value.message
    record = records.wait(30)
    assert (record.outcome, record.error_kind) == ("router_error", "router_error")
    still_serves(proxy)


def test_a_bug_in_the_adapter_mid_stream_is_recorded_as_the_routers_error(
    stack: tuple[Running, Running, RunningRouter], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the commit such a bug was recorded `router_error`; once the stream had begun,
    the same bug was recorded `upstream_error`, the backend's (found in review)."""
    _, _, proxy = stack
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    monkeypatch.setattr(adapter, "_plain", breaks_on_call(3, adapter._plain))
    body = {"model": "claude", "messages": HELLO, "max_tokens": 40, "stream": True}
    with httpx.stream("POST", f"{proxy.url}/chat/completions", json=body, timeout=30) as reply:
        text = reply.read().decode()
    assert reply.status_code == 200 and "internal router error" in text
    record = records.wait(30)
    assert (record.outcome, record.error_kind, record.status) == (
        "router_error",
        "router_error",
        500,
    )
    still_serves(proxy)


UNCONVERTIBLE: dict[str, dict[str, Any]] = {
    "a tool without its function": {"tools": [{"type": "function"}]},
    "a content part of an unknown type": {
        "messages": [{"role": "user", "content": [{"type": "hologram", "x": 1}]}]
    },
    "a json_schema format without its schema": {"response_format": {"type": "json_schema"}},
}


@pytest.mark.parametrize("fields", UNCONVERTIBLE.values(), ids=list(UNCONVERTIBLE))
def test_a_request_litellm_cannot_convert_is_the_clients_400(
    stack: tuple[Running, Running, RunningRouter], fields: dict[str, Any]
) -> None:
    """litellm reports these as an APIConnectionError whose message is a Python traceback:
    that was a 502 `unreachable` carrying the traceback, retried on local and counted
    against claude's circuit."""
    _, local, proxy = stack
    before = local.completions()
    body = {"model": "writing", "messages": HELLO, "max_tokens": 20, **fields}
    response = httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=30)
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "Traceback" not in message and "\n" not in message
    assert local.completions() == before  # the client's to fix: not tried elsewhere
    still_serves(proxy)


def test_an_image_url_that_does_not_resolve_is_the_clients_400(
    stack: tuple[Running, Running, RunningRouter],
) -> None:
    """litellm fetches the image itself and raises its own 400 (ImageFetchError), chained to
    the DNS failure: that was a 502 `unreachable`, tried on local and counted against
    claude's circuit, three such requests opening it for everyone (found in review)."""
    _, local, proxy = stack
    records = collected(proxy)
    before = local.completions()
    image = {"type": "image_url", "image_url": {"url": "http://no-such-host.invalid/cat.png"}}
    ask = [{"role": "user", "content": [{"type": "text", "text": "What is this?"}, image]}]
    body = {"model": "writing", "messages": ask, "max_tokens": 20}
    response = httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=30)
    assert response.status_code == 400, response.text
    message = response.json()["error"]["message"]
    assert "no-such-host.invalid" in message and "user_url_allowed_hosts" not in message
    assert records.wait(30).attempts[0].error_kind == "rejected"
    assert local.completions() == before  # the client's to fix: not tried elsewhere
    still_serves(proxy)


def test_anthropics_overload_is_not_a_backend_failure(
    stack: tuple[Running, Running, RunningRouter],
) -> None:
    """Anthropic's 529 `overloaded_error` is its 503: a working backend, busy right now."""
    claude, _, proxy = stack
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    claude.control("faults", {"fault": "server_error:529"})
    try:
        raw = sdk(proxy).chat.completions.with_raw_response.create(
            model="writing", messages=HELLO, max_tokens=20
        )
    finally:
        claude.control("faults", {"fault": None})
    assert raw.headers["x-smf-backend"] == "local"
    assert records.wait(30).attempts[0].error_kind == "overloaded"
    still_serves(proxy)


def _sse(name: str, **data: Any) -> bytes:
    """One event of Anthropic's stream (its `type` repeats the event's name)."""
    return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()


def _text(text: str) -> bytes:
    return _sse("content_block_delta", index=0, delta={"type": "text_delta", "text": text})


_MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
OVERLOADED_MID_STREAM = b"".join(
    [
        _sse("message_start", message={**_MESSAGE, "usage": {"input_tokens": 9}}),
        _sse("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        _text("Hello"),
        _text(" there"),
        _sse("error", error={"type": "overloaded_error", "message": "Overloaded"}),
    ]
)


class _OverloadedMidStream(socketserver.StreamRequestHandler):
    """Anthropic overloaded mid-stream: two text deltas, then its in-band `error` event."""

    def handle(self) -> None:
        read_body(self)
        head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        self.wfile.write(head + OVERLOADED_MID_STREAM)


@pytest.fixture(scope="module")
def plain(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Running, RunningRouter]]:
    """claude on a simulator, `busy` on an Anthropic that is overloaded mid-stream; no
    breaker, so failures that do count can be looked at one after another."""
    with (
        upstream(_OverloadedMidStream, socketserver.ThreadingTCPServer) as busy,
        simulator(profile="anthropic", model="claude-sonnet-4-5") as claude,
        router(claude_beside(claude, "busy", busy, tmp_path_factory.mktemp("kinds"))) as proxy,
    ):
        yield claude, proxy


@pytest.mark.parametrize(
    ("fault", "kind"), [("reset", "unreachable"), ("malformed_chunk", "malformed")]
)
def test_what_broke_is_named(plain: tuple[Running, RunningRouter], fault: str, kind: str) -> None:
    """A reset connection was a `server_error` (litellm calls it a 500), a reply cut inside
    its JSON `unreachable`."""
    claude, proxy = plain
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    claude.control("faults", {"fault": fault})
    try:
        with pytest.raises(openai.APIStatusError) as info:
            sdk(proxy).chat.completions.create(model="claude", messages=HELLO, max_tokens=20)
    finally:
        claude.control("faults", {"fault": None})
    assert info.value.status_code == 502
    assert records.wait(30).error_kind == kind


def test_an_overload_announced_mid_stream_is_an_overload(
    plain: tuple[Running, RunningRouter],
) -> None:
    """It ended the client's stream as `unreachable`, a failure that opens the circuit."""
    _, proxy = plain
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    stream = sdk(proxy).chat.completions.create(
        model="busy", messages=HELLO, max_tokens=20, stream=True
    )
    text = []
    with pytest.raises(openai.APIError):
        for chunk in stream:
            text.extend(c.delta.content or "" for c in chunk.choices)
    assert "".join(text) == "Hello there"
    assert records.wait(30).error_kind == "overloaded"


def test_a_rate_limit_announced_mid_stream_is_a_rate_limit(
    stack: tuple[Running, Running, RunningRouter],
) -> None:
    """litellm raises a 500 for Anthropic's in-band `rate_limit_error`: it was a
    `server_error` that opened claude's circuit (threshold 1) and gave the client's stream
    an `upstream_error` (found in review)."""
    claude, _, proxy = stack
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    claude.control("faults", {"fault": "error_event:2:429"})
    try:
        stream = sdk(proxy).chat.completions.create(
            model="claude", messages=HELLO, max_tokens=40, stream=True
        )
        with pytest.raises(openai.APIError) as info:
            for _ in stream:
                pass
    finally:
        claude.control("faults", {"fault": None})
    assert (info.value.type, info.value.code) == ("rate_limit_error", "rate_limit_exceeded")
    assert records.wait(30).error_kind == "rate_limited"
    still_serves(proxy)


def test_a_rate_limit_keeps_its_retry_after(
    stack: tuple[Running, Running, RunningRouter],
) -> None:
    """litellm's RateLimitError carries a response of its own, without the upstream's
    headers: the Retry-After was lost, so no retry on the same backend and none for the SDK."""
    claude, _, proxy = stack
    before = claude.completions("/v1/messages")
    claude.control("faults", {"fault": "rate_limit:1"})
    try:
        response = httpx.post(
            f"{proxy.url}/chat/completions",
            json={"model": "claude", "messages": HELLO, "max_tokens": 20},
            timeout=30,
        )
    finally:
        claude.control("faults", {"fault": None})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "1"
    # a wait of 1 s is within retry_after_max_s (2): one more try on claude itself
    assert claude.completions("/v1/messages") == before + 2


MISTYPED = "antropic/claude-sonnet-4-5"  # no provider litellm knows


def test_a_reload_to_a_model_no_provider_serves_is_rejected(
    stack: tuple[Running, Running, RunningRouter], tmp_path: Path
) -> None:
    _, _, proxy = stack
    data = proxy.components.config.model_dump(mode="json")
    data["backends"][0]["model"] = MISTYPED
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(data))
    reloader = reload.reloader_of(proxy.components)
    reloader.source = path
    try:
        rejected = httpx.post(f"{proxy.url}/router/reload", timeout=60)
    finally:
        reloader.source = None
    assert rejected.status_code == 400, rejected.text
    assert "backends.0.model" in rejected.json()["error"]["message"]
    still_serves(proxy)


def test_a_provider_litellm_does_not_know_is_the_backends_configuration(
    plain: tuple[Running, RunningRouter], monkeypatch: pytest.MonkeyPatch
) -> None:
    """litellm's "LLM Provider NOT provided" is a 400 of its own: passed on as the client's
    400, never tried elsewhere. It is the backend's configuration, as a 404 would be (a
    model that slips past the check at start, e.g. one litellm stops knowing)."""
    _, proxy = plain
    claude = proxy.components.backends["claude"]
    monkeypatch.setattr(claude, "settings", claude.settings.model_copy(update={"model": MISTYPED}))
    with pytest.raises(openai.APIStatusError) as info:
        sdk(proxy).chat.completions.create(model="claude", messages=HELLO, max_tokens=20)
    assert info.value.status_code == 502
    body = info.value.body
    assert isinstance(body, dict) and body["code"] == "upstream_refused", body
    assert "prefix" in info.value.message


def test_another_providers_mid_stream_500_that_mentions_a_rate_limit_stays_a_server_error() -> None:
    """Anthropic's in-band error types are read from words because litellm keeps only their
    message; that reading is Anthropic's alone, not every provider's 500."""
    import litellm

    said = "OpenAIException - rate limit reached, server overloaded"
    error = litellm.InternalServerError(message=said, llm_provider="openai", model="gpt-4o")
    assert type(litellm_errors.translate(error, "cloud", sent=True)).__name__ == "ServerError"
