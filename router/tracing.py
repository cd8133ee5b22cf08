"""OpenTelemetry traces: one server span per request, children for classify, attempts, ledger.

Off by default and free when off: unless `OTEL_EXPORTER_OTLP_ENDPOINT` or
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is not `true`), no SDK
object exists and every call returns at its first line. The API is explicit rather than
context managers, because a streamed request's span outlives the handler's async generator.
Attributes follow the GenAI semantic conventions (`gen_ai.*`), ours live under `smf.`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from router.record import Record

if TYPE_CHECKING:
    from router.config import Config

log = logging.getLogger(__name__)

Attributes = Mapping[str, str | bool | int | float | Sequence[str]]

# https://opentelemetry.io/docs/specs/semconv/gen-ai/ (gen_ai.operation.name values)
_OPERATIONS = {
    "chat": "chat",
    "completions": "text_completion",
    "responses": "chat",
    "messages": "chat",
}


class _NoSpan:
    """The span handed out when tracing is off; every method ignores it."""

    __slots__ = ()


NO_SPAN: Any = _NoSpan()


class Tracing:
    """Starts and ends the router's spans; a disabled instance does nothing at all."""

    def __init__(self, tracer: Any = None, provider: Any = None, propagator: Any = None) -> None:
        self._tracer = tracer
        self._provider = provider
        self._propagator = propagator
        self.providers: dict[str, str] = {}  # backend name -> gen_ai.provider.name

    @property
    def enabled(self) -> bool:
        return self._tracer is not None

    @classmethod
    def disabled(cls) -> Tracing:
        return cls()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Tracing:
        """Tracing set up from the standard `OTEL_*` variables; off unless an endpoint is set."""
        env = os.environ if env is None else env
        if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
            return cls.disabled()
        if env.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
            return cls.disabled()
        endpoint = traces_endpoint(env)
        if endpoint is None:
            return cls.disabled()
        return cls._build(endpoint, env)

    @classmethod
    def _build(cls, endpoint: str, env: Mapping[str, str]) -> Tracing:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get(
            "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"
        )
        if protocol != "http/protobuf":
            log.warning("OTLP protocol %r is not supported; using http/protobuf", protocol)
        attrs = {} if env.get("OTEL_SERVICE_NAME") else {"service.name": "smf-router"}
        provider = TracerProvider(resource=Resource.create(attrs))
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
        tracer = provider.get_tracer("smf-router")
        log.info("tracing on: OTLP/HTTP export to %s", endpoint)
        return cls(tracer, provider, TraceContextTextMapPropagator())

    def start_request(
        self, api: str, requested_model: str, headers: Mapping[str, str] | None = None
    ) -> Any:
        """The server span of one client request; continues the caller's `traceparent`."""
        if self._tracer is None:
            return NO_SPAN
        from opentelemetry.trace import SpanKind

        operation = _OPERATIONS.get(api, "chat")
        context = self._propagator.extract(dict(headers)) if headers else None
        return self._tracer.start_span(
            f"{operation} {requested_model}".strip(),
            context=context,
            kind=SpanKind.SERVER,
            attributes={
                "gen_ai.operation.name": operation,
                "gen_ai.request.model": requested_model,
            },
        )

    def start_child(self, parent: Any, name: str, attributes: Attributes | None = None) -> Any:
        """A child span: "classify", "attempt <backend>" (a client span) or "ledger"."""
        if self._tracer is None or parent is NO_SPAN:
            return NO_SPAN
        from opentelemetry.trace import SpanKind, set_span_in_context

        kind = SpanKind.CLIENT if name.startswith("attempt ") else SpanKind.INTERNAL
        return self._tracer.start_span(
            name, context=set_span_in_context(parent), kind=kind, attributes=attributes
        )

    def start_attempt(self, parent: Any, backend: str, tier: str, model: str) -> Any:
        """The client span of one backend call, with the GenAI provider and model."""
        if self._tracer is None or parent is NO_SPAN:
            return NO_SPAN
        attrs = {
            "gen_ai.provider.name": self.providers.get(backend, backend),
            "gen_ai.request.model": model,
            "smf.backend": backend,
            "smf.tier": tier,
        }
        return self.start_child(parent, f"attempt {backend}", attrs)

    def end(
        self, span: Any, attributes: Attributes | None = None, error: str | None = None
    ) -> None:
        """End a span; `error` (an error kind) marks it failed and sets `error.type`."""
        if span is NO_SPAN:
            return
        if attributes:
            span.set_attributes(attributes)
        if error:
            from opentelemetry.trace import Status, StatusCode

            span.set_attribute("error.type", error)
            span.set_status(Status(StatusCode.ERROR, error))
        span.end()

    def inject(self, span: Any, headers: dict[str, str]) -> None:
        """Add `traceparent` for the backend call made under `span`."""
        if span is NO_SPAN:
            return
        from opentelemetry.trace import set_span_in_context

        self._propagator.inject(headers, context=set_span_in_context(span))

    def finish_request(
        self, span: Any, record: Record, finish_reasons: Sequence[str] | None = None
    ) -> None:
        """Fill the request span from its finished record, then end it."""
        if span is NO_SPAN:
            return
        error = None if record.outcome == "ok" else (record.error_kind or record.outcome)
        self.end(span, record_attributes(record, self.providers, finish_reasons), error)

    def shutdown(self) -> None:
        """Flush buffered spans and stop the exporter (at process exit)."""
        if self._provider is not None:
            self._provider.shutdown()
            self._provider = self._tracer = None


def record_attributes(
    record: Record, providers: Mapping[str, str], finish_reasons: Sequence[str] | None = None
) -> dict[str, Any]:
    """The span attributes a finished record supplies (never prompt text or the caller)."""
    tried = [a for a in record.attempts if a.outcome != "skipped"]
    attrs: dict[str, Any] = {
        "gen_ai.usage.input_tokens": record.usage.prompt_tokens,
        "gen_ai.usage.output_tokens": record.usage.completion_tokens,
        "smf.intent": record.intent,
        "smf.confidence": record.confidence,
        "smf.route": record.route,
        "smf.attempts": len(tried),
        "smf.outcome": record.outcome,
        "smf.stream": record.stream,
        "http.response.status_code": record.status,
    }
    if record.backend:
        attrs["smf.backend"] = record.backend
        attrs["gen_ai.provider.name"] = providers.get(record.backend, record.backend)
    if record.tier:
        attrs["smf.tier"] = record.tier
    if record.served_model:
        attrs["gen_ai.response.model"] = record.served_model
    if record.fallback_reason:
        attrs["smf.fallback_reason"] = record.fallback_reason
    if record.intent_source:
        attrs["smf.intent_source"] = record.intent_source
    if finish_reasons:
        attrs["gen_ai.response.finish_reasons"] = list(finish_reasons)
    return attrs


def traces_endpoint(env: Mapping[str, str]) -> str | None:
    """The OTLP/HTTP traces URL: the signal variable as is, or the base plus `/v1/traces`."""
    specific = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if specific:
        return specific
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if base:
        return base.rstrip("/") + "/v1/traces"
    return None


def provider_names(config: Config) -> dict[str, str]:
    """`gen_ai.provider.name` per backend: litellm's provider prefix, else a guess by URL."""
    names: dict[str, str] = {}
    for backend in config.backends:
        if backend.kind == "litellm" and "/" in backend.model:
            names[backend.name] = backend.model.split("/", 1)[0]
        elif "api.openai.com" in backend.base_url:
            names[backend.name] = "openai"
        elif backend.tier == "local":
            names[backend.name] = "vllm"
        else:
            names[backend.name] = backend.name
    return names
