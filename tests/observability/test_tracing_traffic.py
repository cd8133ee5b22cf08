"""What a trace says of each call the router makes: the GenAI client attributes of an attempt
(operation, server), and the spans of the calls it makes on its own, told from live traffic
by `smf.traffic`: a shadow replay linked to the request it mirrors, a canary case's call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from test_tracing_otlp import Receiver, attrs, receiving

from classifier.intent import INTENTS
from evals.suite import SHIPPED, load
from router.config import Backend, parse
from router.record import Record
from router.tracing import NO_SPAN, Tracing
from tests.canary.servers import free_port, router, simulator
from tests.harness import config_for
from tests.shadow.shadow_status import until
from tests.slots import status_extra

MATH = {"model": "auto", "messages": [{"role": "user", "content": "What is 1234 + 4321?"}]}


@pytest.fixture
def traced_router_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    """A receiver on a port of 18000-18999, and the environment that has a router trace to it."""
    with receiving(pick=free_port) as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        yield receiver


def _port(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


def _replays_ended(proxy: Any) -> int:
    """The shadow's replays compared or failed (`error`)."""
    counts = status_extra(proxy)["shadow"]["counts"]
    return int(counts.get("compared", 0) + counts.get("dropped_error", 0))


def _values(spans: list[Any]) -> list[str]:
    return [str(v) for s in spans for v in attrs(s).values()]


def test_attempt_spans_name_the_operation_and_the_server_never_its_secrets(
    traced_router_env: Receiver,
) -> None:
    """An attempt (client) span lacked `gen_ai.operation.name`, which the GenAI conventions
    require of a client span, and `server.address`/`server.port`, which they recommend: the
    backend's host and port alone, not the user, password, path or query of its URL."""
    backends = [
        {
            "name": "local",
            "tier": "local",
            "base_url": "http://alice:s3cret@10.0.0.5:8001/v1?api-key=k3y",
            "model": "m",
        },
        {"name": "cloud", "tier": "cloud", "base_url": "https://api.openai.com/v1", "model": "g"},
        {"name": "claude", "tier": "cloud", "kind": "litellm", "model": "anthropic/claude-x"},
    ]
    config = parse({"backends": backends, "routes": {i: ["local"] for i in INTENTS}})
    tracing = Tracing.from_env()
    tracing.configure(config)
    root = tracing.start_request("completions", "auto")
    for backend in ("local", "cloud", "claude"):
        tracing.end(tracing.start_attempt(root, config.backend(backend)))
    tracing.finish_request(root, Record(request_id="r", started_at=0.0))
    tracing.shutdown()

    spans = {s.name: s for s in traced_router_env.spans()}
    assert attrs(spans["text_completion auto"])["smf.traffic"] == "live"
    local, cloud, claude = (attrs(spans[f"text_completion {m}"]) for m in ("m", "g", "claude-x"))
    assert local["gen_ai.operation.name"] == "text_completion"  # the request's operation
    assert local["smf.traffic"] == "live"  # as the request span: client spans alone tell it
    assert (local["server.address"], local["server.port"]) == ("10.0.0.5", 8001)
    assert (cloud["server.address"], cloud["server.port"]) == ("api.openai.com", 443)
    assert claude["gen_ai.operation.name"] == "text_completion"
    assert "server.address" not in claude  # litellm on its provider's own URL: none known
    every = _values(list(spans.values()))
    assert not any(s in v for v in every for s in ("alice", "s3cret", "k3y", "/v1"))


def test_each_shadow_replay_is_a_client_span_linked_to_the_request_it_mirrors(
    traced_router_env: Receiver, tmp_path: Path
) -> None:
    """Shadow replays made no span: a trace backend saw their load on a backend nowhere, and
    nothing told a live request's trace from the router's own calls."""
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model") as local,
    ):
        config = config_for(
            {"local": local, "cloud": cloud}, tmp_path, shadow={"rates": {"math": 1.0}}
        )
        with router(config) as proxy:
            reply = httpx.post(f"{proxy.url}/chat/completions", json=MATH, timeout=10)
            assert reply.headers["x-smf-backend"] == "cloud"
            until(lambda: status_extra(proxy)["shadow"]["counts"].get("compared", 0) == 1)
    spans = traced_router_env.spans()  # the router's exit flushed them

    (live,) = [s for s in spans if s.kind == s.SPAN_KIND_SERVER]
    assert attrs(live)["smf.traffic"] == "live"
    (attempt,) = [s for s in spans if s.name == "chat cloud-model"]
    assert attempt.parent_span_id == live.span_id and attrs(attempt)["smf.backend"] == "cloud"
    assert attrs(attempt)["gen_ai.operation.name"] == "chat"
    assert attrs(attempt)["server.address"] == "127.0.0.1"
    assert attrs(attempt)["server.port"] == _port(cloud.url)

    (shadow,) = [s for s in spans if s.name == "shadow chat local-model"]
    assert shadow.kind == shadow.SPAN_KIND_CLIENT
    assert not shadow.parent_span_id and shadow.trace_id != live.trace_id  # a trace of its own
    (link,) = shadow.links
    assert (link.trace_id, link.span_id) == (live.trace_id, live.span_id)
    a = attrs(shadow)
    assert a["smf.traffic"] == "shadow"
    assert a["gen_ai.operation.name"] == "chat"
    assert a["gen_ai.request.model"] == "local-model"
    assert (a["smf.backend"], a["smf.tier"]) == ("local", "local")
    assert (a["server.address"], a["server.port"]) == ("127.0.0.1", _port(local.url))
    assert a["smf.request_id"] == attrs(live)["smf.request_id"]
    assert a["gen_ai.usage.output_tokens"] > 0
    assert a["gen_ai.response.finish_reasons"] == ["stop"]  # as on the live attempt's span
    assert attrs(attempt)["gen_ai.response.finish_reasons"] == ["stop"]
    assert shadow.status.code == shadow.status.STATUS_CODE_UNSET
    assert not any("1234" in v for v in _values(spans))  # no prompt text anywhere


def test_a_shadow_reply_the_engine_stopped_says_so_on_its_span(
    traced_router_env: Receiver, tmp_path: Path
) -> None:
    """The replay's span said no finish reason, and ended OK for an answer vLLM aborted:
    now `gen_ai.response.finish_reasons` ["abort"] and `error.type` `cut`, as a live
    attempt's span says of it (its ledger row: "unfinished: abort")."""
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model", fault="abort") as local,
    ):
        config = config_for(
            {"local": local, "cloud": cloud}, tmp_path, shadow={"rates": {"math": 1.0}}
        )
        with router(config) as proxy:
            reply = httpx.post(f"{proxy.url}/chat/completions", json=MATH, timeout=10)
            assert reply.headers["x-smf-backend"] == "cloud"
            until(lambda: _replays_ended(proxy) == 1)
    (shadow,) = [s for s in traced_router_env.spans() if s.name == "shadow chat local-model"]
    a = attrs(shadow)
    assert a["gen_ai.response.finish_reasons"] == ["abort"]
    assert a["error.type"] == "cut" and shadow.status.code == shadow.status.STATUS_CODE_ERROR
    assert a["gen_ai.usage.output_tokens"] > 0


def test_each_canary_case_call_is_a_root_span_naming_its_suite_and_case(
    traced_router_env: Receiver, tmp_path: Path
) -> None:
    """The canary's calls made no span either; each is now a root span naming the backend,
    the suite and the case, never the case's prompt."""
    suite = SHIPPED / "math"
    cases = {case.id: case for case in load(suite)}
    with simulator(profile="vllm", model="local-model") as local:
        canary = {"enabled": True, "suites": str(suite), "sample_per_suite": 2, "concurrency": 1}
        config = config_for({"local": local}, tmp_path, canary=canary)
        with router(config) as proxy:
            until(lambda: status_extra(proxy)["canary"]["runs"] >= 1, seconds=60)
    spans = [s for s in traced_router_env.spans() if s.name == "canary chat local-model"]

    assert len(spans) == 2  # one per case asked
    assert len({s.trace_id for s in spans}) == 2  # each a trace of its own
    for span in spans:
        a = attrs(span)
        assert span.kind == span.SPAN_KIND_CLIENT and not span.parent_span_id
        assert a["smf.traffic"] == "canary"
        assert a["smf.canary.suite"] == "math"
        assert a["smf.canary.case_id"] in cases
        assert (a["smf.backend"], a["gen_ai.request.model"]) == ("local", "local-model")
        assert (a["server.address"], a["server.port"]) == ("127.0.0.1", _port(local.url))
        assert not any(cases[a["smf.canary.case_id"]].prompt in v for v in _values([span]))
        assert a["gen_ai.response.finish_reasons"] == ["stop"]  # as an attempt's span says


def test_a_shadow_of_a_request_the_caller_did_not_sample_is_not_exported(
    traced_router_env: Receiver,
) -> None:
    """Parent-based sampling (the default) keeps a replay with the request it mirrors: a
    trace the caller did not sample does not come back as its shadow alone."""
    tracing = Tracing.from_env()
    unsampled = {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"}
    for headers, model in ((unsampled, "dropped"), ({}, "kept")):
        request = tracing.start_request("chat", "auto", headers)
        tracing.end(request)
        link = tracing.link_to(request)
        settings = Backend(name="local", tier="local", base_url="http://h/v1", model=model)
        tracing.end(tracing.start_call("shadow", settings, link=link))
    tracing.shutdown()
    assert sorted(s.name for s in traced_router_env.spans()) == ["chat auto", "shadow chat kept"]


async def test_tracing_off_leaves_the_routers_own_calls_as_they_were() -> None:
    """Off, nothing is wrapped or recorded: the canary's send is handed back as it is."""
    from router.canary_spans import traced  # here: the other tests run without the module

    async def send(body: dict[str, Any]) -> Any:
        return body

    off = Tracing.disabled()
    backend = Backend(name="b", tier="local", base_url="http://h/v1", model="m")
    assert traced(off, backend, send) is send
    assert off.start_call("shadow", backend) is NO_SPAN
    assert off.link_to(NO_SPAN) is None
