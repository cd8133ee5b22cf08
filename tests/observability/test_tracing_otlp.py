"""Spans from `router.tracing` arrive at a real OTLP/HTTP receiver on 127.0.0.1."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from classifier.intent import INTENTS
from router.config import Backend, parse
from router.record import Attempt, Record, Usage
from router.span_attributes import provider_name
from router.tracing import NO_SPAN, Tracing
from tests.harness import config_for, router, simulator
from tests.ports import on_a_free_port

LOCAL = Backend(name="local", tier="local", base_url="http://h/v1", model="m")
"""The backend an attempt is made with (`Tracing.start_attempt`), where which one is moot."""


class Receiver:
    """A tiny OTLP/HTTP traces endpoint that decodes every export it is sent, and answers
    the statuses in `first` (in order), then `status`; on a port `pick` chose, bound as picked
    (another while it is taken: `tests.ports`), by default any free one."""

    def __init__(
        self, status: int = 200, first: Sequence[int] = (), pick: Callable[[], int] | None = None
    ) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        answers = list(first)
        self.paths: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                msg = ExportTraceServiceRequest()
                msg.ParseFromString(body)
                receiver.paths.append(self.path)
                receiver.requests.append(msg)
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(answers.pop(0) if answers else status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        def bound(port: int) -> ThreadingHTTPServer:
            return ThreadingHTTPServer(("127.0.0.1", port), Handler)

        self.server = on_a_free_port(bound, pick) if pick else bound(0)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def spans(self) -> list[Any]:
        return [
            span
            for req in self.requests
            for rs in req.resource_spans
            for ss in rs.scope_spans
            for span in ss.spans
        ]

    def service_names(self) -> set[str]:
        return {
            a.value.string_value
            for req in self.requests
            for rs in req.resource_spans
            for a in rs.resource.attributes
            if a.key == "service.name"
        }


@contextmanager
def receiving(
    status: int = 200, first: Sequence[int] = (), pick: Callable[[], int] | None = None
) -> Iterator[Receiver]:
    r = Receiver(status, first, pick)
    r.thread.start()
    try:
        yield r
    finally:
        r.server.shutdown()
        r.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as r:
        yield r


def attrs(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.attributes:
        v = kv.value
        kind = v.WhichOneof("value")
        if kind == "array_value":
            out[kv.key] = [x.string_value for x in v.array_value.values]
        else:
            out[kv.key] = getattr(v, kind)
    return out


def test_streamed_request_with_fallback_exports_the_span_tree(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    tracing = Tracing.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url})
    assert tracing.enabled
    caller = {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}

    root = tracing.start_request("chat", "auto", headers=caller)
    classify = tracing.start_child(root, "classify", {"smf.intent": "coding"})
    tracing.end(classify, {"smf.confidence": 0.91})
    laguna = "poolside/Laguna-S-2.1-NVFP4"
    local = Backend(name="local", tier="local", base_url="http://h:8000/v1", model=laguna)
    first = tracing.start_attempt(root, local)
    tracing.end(first, error="unreachable")
    openai = "https://api.openai.com/v1"
    cloud = Backend(name="cloud", tier="cloud", base_url=openai, model="gpt-4o")
    second = tracing.start_attempt(root, cloud)
    headers: dict[str, str] = {}
    tracing.inject(second, headers)
    tracing.end(second, {"gen_ai.usage.output_tokens": 12})
    ledger = tracing.start_child(root, "ledger")
    tracing.end(ledger)
    record = Record(
        request_id="req-1",
        started_at=0.0,
        caller="alice",
        requested_model="auto",
        intent="coding",
        confidence=0.91,
        intent_source="model",
        route="coding",
        backend="cloud",
        tier="cloud",
        served_model="gpt-4o",
        attempts=[
            Attempt("local", "local", outcome="error", error_kind="unreachable"),
            Attempt("cloud", "cloud"),
        ],
        fallback_reason="unreachable",
        stream=True,
        usage=Usage(prompt_tokens=50, completion_tokens=12),
        prompt_text="secret prompt",
    )
    tracing.finish_request(root, record, finish_reasons=["stop"])
    tracing.shutdown()

    assert receiver.paths and set(receiver.paths) == {"/v1/traces"}
    assert receiver.service_names() == {"smf-router"}
    spans = {s.name: s for s in receiver.spans()}
    names = {"chat auto", "classify", f"chat {laguna}", "chat gpt-4o", "ledger"}
    assert set(spans) == names
    req = spans["chat auto"]
    # continues the caller's trace; every child hangs under the request span
    assert req.trace_id.hex() == "0af7651916cd43dd8448eb211c80319c"
    assert req.parent_span_id.hex() == "b7ad6b7169203331"
    for name in names - {"chat auto"}:
        assert spans[name].parent_span_id == req.span_id
        assert spans[name].trace_id == req.trace_id
    # traceparent for the backend call names the attempt span
    trace_hex, span_hex = req.trace_id.hex(), spans["chat gpt-4o"].span_id.hex()
    assert headers["traceparent"] == f"00-{trace_hex}-{span_hex}-01"

    a = attrs(req)
    assert a["gen_ai.operation.name"] == "chat"
    assert a["gen_ai.request.model"] == "auto"
    assert a["gen_ai.response.model"] == "gpt-4o"
    assert a["gen_ai.provider.name"] == "openai"
    assert a["gen_ai.usage.input_tokens"] == 50
    assert a["gen_ai.usage.output_tokens"] == 12
    assert a["gen_ai.response.finish_reasons"] == ["stop"]
    assert a["smf.intent"] == "coding"
    assert a["smf.confidence"] == pytest.approx(0.91)
    assert a["smf.backend"] == "cloud"
    assert a["smf.attempts"] == 2
    assert a["smf.fallback_reason"] == "unreachable"
    assert req.kind == req.SPAN_KIND_SERVER
    assert req.status.code == req.status.STATUS_CODE_UNSET

    failed = spans[f"chat {laguna}"]
    assert failed.kind == failed.SPAN_KIND_CLIENT
    assert failed.status.code == failed.status.STATUS_CODE_ERROR
    assert attrs(failed)["error.type"] == "unreachable"
    assert attrs(failed)["gen_ai.provider.name"] == "vllm"
    assert attrs(spans["chat gpt-4o"])["gen_ai.usage.output_tokens"] == 12

    every_value = [str(v) for s in spans.values() for v in attrs(s).values()]
    assert not any("alice" in v or "secret prompt" in v for v in every_value)
    assert a["smf.request_id"] == "req-1"  # the ledger row's and the reply's x-request-id


def test_failed_request_span_is_marked_with_its_error_kind(receiver: Receiver) -> None:
    tracing = Tracing.from_env({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": receiver.url + "/custom"})
    root = tracing.start_request("completions", "local")
    record = Record(request_id="r", started_at=0.0, outcome="upstream_error", error_kind="timeout")
    tracing.finish_request(root, record)
    tracing.shutdown()
    assert receiver.paths == ["/custom"]
    (span,) = receiver.spans()
    assert span.name == "text_completion local"
    assert span.status.code == span.status.STATUS_CODE_ERROR
    assert attrs(span)["error.type"] == "timeout"


def test_refused_and_explained_requests_leave_no_orphan_spans_nor_classifier_counts(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A bad `x-smf-private` was refused after the request span began: nobody ended it, but
    its classify child went out, an orphan. Explain made such spans too, and counted in the
    classifier metrics as if it were traffic (found in review)."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    body = {"model": "auto", "messages": [{"role": "user", "content": "Write a Python sort."}]}
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as proxy,
    ):
        chat = f"{proxy.url}/chat/completions"
        refused = httpx.post(chat, json=body, headers={"x-smf-private": "maybe"}, timeout=10)
        explained = httpx.post(f"{proxy.url}/router/explain", json=body, timeout=10)
        served = httpx.post(chat, json={**body, "max_tokens": 3}, timeout=10)
        metrics = httpx.get(f"{proxy.root}/metrics", timeout=10).text
    assert (refused.status_code, explained.status_code, served.status_code) == (400, 200, 200)
    assert "smf_router_classifier_duration_seconds_count 1.0" in metrics.splitlines()
    spans = receiver.spans()  # the router's exit flushed them
    assert sorted(s.name for s in spans) == ["chat auto", "chat local-model", "classify", "ledger"]
    ids = {s.span_id for s in spans}
    assert all(s.parent_span_id in ids for s in spans if s.name != "chat auto")


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"},
        {"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"},
    ],
)
def test_off_means_no_sdk_objects_and_no_spans(env: dict[str, str]) -> None:
    tracing = Tracing.from_env(env)
    assert not tracing.enabled
    assert tracing._shipper is None
    span = tracing.start_request("chat", "auto")
    assert span is NO_SPAN
    child = tracing.start_attempt(span, LOCAL)
    assert child is NO_SPAN
    headers: dict[str, str] = {}
    tracing.inject(child, headers)
    tracing.end(child, error="timeout")
    tracing.finish_request(span, Record(request_id="r", started_at=0.0))
    tracing.shutdown()
    assert headers == {}


def test_off_imports_no_sdk_at_all() -> None:
    code = (
        "import sys; from router.tracing import Tracing; t = Tracing.from_env({}); "
        "t.end(t.start_request('chat', 'auto')); "
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_unsampled_traces_propagate_but_export_nothing(receiver: Receiver) -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_TRACES_SAMPLER": "always_off"}
    tracing = Tracing.from_env(env)
    root = tracing.start_request("chat", "auto")
    attempt = tracing.start_attempt(root, LOCAL)
    headers: dict[str, str] = {}
    tracing.inject(attempt, headers)
    tracing.end(attempt)
    tracing.finish_request(root, Record(request_id="r", started_at=0.0))
    # parent-based (the default): an unsampled caller keeps its trace unsampled
    follow = Tracing.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url})
    caller = {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"}
    child_of_unsampled = follow.start_request("chat", "auto", headers=caller)
    follow.end(child_of_unsampled)
    sampled = follow.start_request("chat", "kept", headers={"traceparent": "garbage"})
    follow.end(sampled)
    tracing.shutdown()
    follow.shutdown()
    assert headers["traceparent"].endswith("-00")
    assert [s.name for s in receiver.spans()] == ["chat kept"]


def test_shutdown_ends_the_exporter_retries_when_the_collector_fails(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A collector that answers 503 (or refuses, or never answers) kept the exporter retrying
    for its whole timeout (10 s), and shutdown waited for it: every stop of the router took
    ~10 s longer (found in review). Now the retry is cut short by the exporter's shutdown."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with receiving(status=503) as failing:
        tracing = Tracing.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": failing.url})
        tracing.end(tracing.start_request("chat", "auto"))
        with caplog.at_level(logging.WARNING, logger="opentelemetry"):
            tracing.shutdown()
    assert failing.requests  # the batch was offered to the collector
    assert "aborting retry" in caplog.text  # not given up after the whole retry budget


def test_an_export_that_failed_before_shutdown_does_not_cost_the_spans_queued_since(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A collector that refused one batch (a restart) made the next shutdown judge it
    broken at once and drop every queued span, untried, unlogged and uncounted (found in
    review). Only exports begun during shutdown judge the endpoint now."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    env = {"OTEL_BSP_SCHEDULE_DELAY": "600000", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "2"}
    with receiving(first=[400]) as restarting:  # 400: refused, and not retried
        tracing = Tracing.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": restarting.url, **env})
        for name in ("early", "early"):  # a full batch: exported (and refused) at once
            tracing.end(tracing.start_request("chat", name))
        for _ in range(1000):
            if restarting.requests:
                break
            time.sleep(0.01)
        tracing.end(tracing.start_request("chat", "late"))  # waits for the next batch
        tracing.shutdown()
    assert "chat late" in [s.name for s in restarting.spans()]


def test_a_stream_that_failed_in_band_reports_the_200_its_client_got(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The request span said 502 for a stream cut after two tokens, though its client got a
    200 and an error event: traces disagreed with every access log (found in review)."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    body = {"model": "local", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    with (
        simulator(profile="vllm", model="local-model", fault="cut_stream") as local,
        router(config_for({"local": local}, tmp_path)) as proxy,
        httpx.stream("POST", f"{proxy.url}/chat/completions", json=body) as reply,
    ):
        assert reply.status_code == 200 and '"error"' in reply.read().decode()
    (span,) = [s for s in receiver.spans() if s.kind == s.SPAN_KIND_SERVER]
    assert attrs(span)["http.response.status_code"] == 200
    assert attrs(span)["smf.outcome"] == "upstream_error" and attrs(span)["error.type"]
    assert span.status.code == span.status.STATUS_CODE_ERROR


def test_provider_names_are_the_genai_conventions_well_known_values() -> None:
    """litellm's prefixes went out as they are (`bedrock`, `gemini`, `xai`...), which no
    GenAI dashboard groups with the conventions' `aws.bedrock`, `gcp.gemini`, `x_ai`."""
    models = {
        "g": "gemini/gemini-2.5-pro",
        "b": "bedrock/anthropic.claude-3",
        "v": "vertex_ai/gemini-2.5-pro",
        "az": "azure/gpt-4o",
        "mi": "mistral/mistral-large",
        "x": "xai/grok-3",
        "a": "anthropic/claude-sonnet-4",
        "o": "openrouter/some-model",
    }
    litellm = [
        {"name": n, "tier": "cloud", "kind": "litellm", "model": m} for n, m in models.items()
    ]
    config = parse({"backends": litellm, "routes": {i: ["g"] for i in INTENTS}})
    assert {backend.name: provider_name(backend) for backend in config.backends} == {
        "g": "gcp.gemini",
        "b": "aws.bedrock",
        "v": "gcp.vertex_ai",
        "az": "azure.ai.openai",
        "mi": "mistral_ai",
        "x": "x_ai",
        "a": "anthropic",
        "o": "openrouter",  # not a well-known value: kept, as the conventions allow
    }
