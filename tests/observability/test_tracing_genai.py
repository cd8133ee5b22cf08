"""The GenAI conventions on an attempt's client span, through the real router and the
official SDKs: its name (`{operation} {model}`), the model as its provider names it, and
the finish reasons its backend said, whatever API the client used. Real sockets on
127.0.0.1 (ports 18000-18999)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_tracing_otlp import Receiver, attrs, receiving

from classifier.intent import INTENTS
from router.config import parse
from tests.agent_apis.agent_stack import TIMEOUTS, anthropic_client, openai_client
from tests.canary.servers import free_port, router, simulator
from tests.harness import openai_via_litellm

ASK: Any = [{"role": "user", "content": "Say hello."}]
# the chat finish reason a Messages stop reason was translated from (`anthropic_reply`)
FROM_CHAT = {"end_turn": "stop", "max_tokens": "length"}


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    """A receiver; a router started in the test exports to it (at its exit at the latest)."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with receiving(pick=free_port) as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        yield receiver


def _traces(receiver: Receiver) -> dict[str, tuple[dict[str, Any], Any]]:
    """Each request's span attributes and its one attempt span, by the request's id."""
    spans = receiver.spans()
    servers = {s.span_id: attrs(s) for s in spans if s.kind == s.SPAN_KIND_SERVER}
    attempts = [s for s in spans if s.kind == s.SPAN_KIND_CLIENT]
    assert len(attempts) == len(servers)
    return {
        servers[a.parent_span_id]["smf.request_id"]: (servers[a.parent_span_id], a)
        for a in attempts
    }


def test_attempt_spans_follow_the_genai_conventions_whatever_api_the_client_used(
    traced: Receiver, tmp_path: Path
) -> None:
    """An attempt span was `attempt <backend>`, not the conventions' `{operation} {model}`;
    it said no finish reason, and the request span's was the client API's (`end_turn`,
    `completed`) where the chat backend said `stop`; a litellm backend's model kept its
    provider prefix (`openai/cloud-model`), which is `gen_ai.provider.name` (found in
    review)."""
    with simulator(profile="cloud", model="cloud-model") as cloud:
        backends = [
            {"name": "chat", "tier": "cloud", "base_url": cloud.url, "model": "cloud-model"},
            openai_via_litellm("ll", cloud.url, "cloud-model"),
        ]
        for backend in backends:
            backend.update(apis=["chat"], timeouts=TIMEOUTS)
        config = parse(
            {
                "backends": backends,
                "routes": {intent: ["chat"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            messages = anthropic_client(proxy).messages.with_raw_response.create(
                model="chat", max_tokens=200, messages=ASK
            )
            responses = openai_client(proxy).responses.with_raw_response.create(
                model="chat", input=ASK, stream=True
            )
            done = [e for e in responses.parse() if e.type == "response.completed"]
            chat = openai_client(proxy).chat.completions.with_raw_response.create(
                model="ll", messages=ASK
            )
    traces = _traces(traced)  # the router's exit flushed them

    request, attempt = traces[messages.headers["x-request-id"]]
    stop_reason = messages.parse().stop_reason
    assert request["gen_ai.response.finish_reasons"] == [stop_reason]  # what its client got
    assert attempt.name == "chat cloud-model"
    assert attrs(attempt)["smf.backend"] == "chat"
    assert attrs(attempt)["gen_ai.response.finish_reasons"] == [FROM_CHAT[str(stop_reason)]]

    request, attempt = traces[responses.headers["x-request-id"]]
    assert [e.response.status for e in done] == ["completed"]
    assert request["gen_ai.response.finish_reasons"] == ["completed"]
    assert attempt.name == "chat cloud-model"
    assert attrs(attempt)["gen_ai.response.finish_reasons"] == ["stop"]  # "length": incomplete

    request, attempt = traces[chat.headers["x-request-id"]]
    a = attrs(attempt)
    assert attempt.name == "chat cloud-model"
    assert (a["gen_ai.request.model"], a["gen_ai.provider.name"]) == ("cloud-model", "openai")
    assert a["smf.backend"] == "ll"
    # the request span's model too: it said the config's `openai/cloud-model`
    assert request["gen_ai.response.model"] == "cloud-model"
    said = chat.parse().choices[0].finish_reason
    assert a["gen_ai.response.finish_reasons"] == request["gen_ai.response.finish_reasons"]
    assert a["gen_ai.response.finish_reasons"] == [said]


def test_request_spans_are_named_by_the_target_never_by_the_clients_model(
    traced: Receiver, tmp_path: Path
) -> None:
    """The request span was `{operation} {model}`, the client's `model` as sent: with
    `x-smf-route` picking the target, `model` is never checked, and any client made a new
    span name per request in Tempo or Jaeger (found in review). Now the route, backend or
    `auto` the request resolved to names it (an alias by what it means); the client's model
    stays `gen_ai.request.model`."""
    with simulator(profile="cloud", model="cloud-model") as cloud:
        backend = {"name": "chat", "tier": "cloud", "base_url": cloud.url, "model": "cloud-model"}
        config = parse(
            {
                "backends": [{**backend, "apis": ["chat"], "timeouts": TIMEOUTS}],
                "routes": {intent: ["chat"] for intent in INTENTS},
                "aliases": {"auto": "auto", "fast": "coding"},
                "ledger": {"path": str(tmp_path / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        asked: dict[str, tuple[str, str]] = {}  # request id: (target, the client's model)
        with router(config) as proxy:
            create = openai_client(proxy).chat.completions.with_raw_response.create
            for target in ("chat", "coding", "auto", "chat", "coding"):  # backend, route, auto
                model = f"client-{uuid.uuid4().hex[:8]}"
                route = {"x-smf-route": target}
                reply = create(model=model, messages=ASK, extra_headers=route)
                asked[reply.headers["x-request-id"]] = (target, model)
            for model, target in (("fast", "coding"), ("auto", "auto"), ("chat", "chat")):
                reply = create(model=model, messages=ASK)
                asked[reply.headers["x-request-id"]] = (target, model)
    requests = [s for s in traced.spans() if s.kind == s.SPAN_KIND_SERVER]
    assert len(requests) == len(asked)
    for span in requests:
        a = attrs(span)
        target, model = asked[a["smf.request_id"]]
        assert (span.name, a["gen_ai.request.model"]) == (f"chat {target}", model)
    assert {s.name for s in requests} == {"chat chat", "chat coding", "chat auto"}
