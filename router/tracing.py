"""OpenTelemetry traces: one server span per request, children for classify, attempts, ledger;
a root client span per call the router makes on its own (a shadow replay, a canary case).

Off by default and free when off: unless `OTEL_EXPORTER_OTLP_ENDPOINT` or
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is not `true`), no SDK
object exists and every call returns at its first line (the variables are read in
`router.tracing_env`). The API is explicit rather than context managers, because a streamed
request's span outlives the handler's async generator.
Attributes follow the GenAI semantic conventions (`gen_ai.*`, `router.span_attributes`), ours
live under `smf.`; `smf.traffic` tells live requests from the shadow's and the canary's calls.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from router import trace_context
from router.errors import ClientClosed
from router.record import Attempt, Record
from router.span_attributes import (
    OPERATIONS,
    ended_on,
    provider_name,
    raised_attributes,
    record_attributes,
    request_model,
    server_addresses,
    server_attributes,
)
from router.span_export import (
    CLIENT,
    DROP_REASONS,
    INTERNAL,
    SERVER,
    SpanEvent,
    SpanLink,
    SpanRecord,
    SpanShipper,
)
from router.tracing_env import Sampler, exporting, traces_endpoint

if TYPE_CHECKING:
    from router.config import Backend as BackendSettings
    from router.config import Config

Attributes = Mapping[str, str | bool | int | float | Sequence[str]]

# What an attempt leaves on its request span for `finish_request` (`start_attempt`)
CALLED = ("gen_ai.provider.name", "gen_ai.response.model")
SKIPPED = "smf.backend_skipped"  # the event of a backend the plan passed over (`skipped`)


class _NoSpan:
    """The span handed out when tracing is off; every method ignores it."""

    __slots__ = ()


NO_SPAN: Any = _NoSpan()


class Tracing:
    """Starts and ends the router's spans; a disabled instance does nothing at all.

    Spans are recorded as `SpanRecord`s (ids, times, attributes) and exported by a
    `SpanShipper` thread: the OpenTelemetry SDK's own span objects cost more per span than
    the whole per-request budget (see docs/benchmarks.md).
    """

    def __init__(self, shipper: SpanShipper | None = None, sampler: Sampler | None = None) -> None:
        self._shipper = shipper
        self._sampler = sampler or Sampler()
        self._rand = random.Random()
        self.servers: dict[str, dict[str, str | int]] = {}  # base_url -> server.*

    def configure(self, config: Config) -> None:
        """Each backend URL's host and port, from `config`: at start and at each hot
        reload's swap."""
        self.servers = server_addresses(config)

    @property
    def enabled(self) -> bool:
        return self._shipper is not None

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
        return cls(*exporting(endpoint, env))

    def start_request(
        self,
        api: str,
        target: str,
        headers: Mapping[str, str] | None = None,
        requested_model: str | None = None,
        request_id: str | None = None,
    ) -> Any:
        """The server span of one client request; continues the caller's `traceparent`, and
        keeps its `tracestate` for the backend calls (`router.trace_context`). Named
        `{operation} {target}`, the route, backend or `auto` the request resolved to: a name
        from the config, so span names stay a fixed set. Named by the client's `model`, any
        client made a new span name per request, as `x-smf-route` picks the target and
        leaves `model` unchecked (found in review). `requested_model`, the client's `model`
        as sent (the target when not given), is `gen_ai.request.model` alone. `request_id`
        from the start: a request that fails while planned has no record to supply it."""
        if self._shipper is None:
            return NO_SPAN
        operation = OPERATIONS.get(api, "chat")
        parent = trace_context.parse(headers)
        if parent is None:
            trace_id, parent_id, parent_sampled = self._rand.getrandbits(128) or 1, None, None
        else:
            trace_id, parent_id, parent_sampled = parent.trace_id, parent.span_id, parent.sampled
        return SpanRecord(
            name=f"{operation} {target}".strip(),
            trace_id=trace_id,
            span_id=self._rand.getrandbits(64) or 1,
            parent_id=parent_id,
            kind=SERVER,
            start_ns=time.time_ns(),
            sampled=self._sampler.sampled(trace_id, parent_sampled),
            remote_parent=parent is not None,
            tracestate=parent.tracestate if parent is not None else None,
            attributes={
                "gen_ai.operation.name": operation,
                "gen_ai.request.model": target if requested_model is None else requested_model,
                "smf.traffic": "live",
            }
            | ({"smf.request_id": request_id} if request_id else {}),
        )

    def start_child(
        self, parent: Any, name: str, attributes: Attributes | None = None, kind: str = INTERNAL
    ) -> Any:
        """A child span: "classify", "ledger", or an attempt's client span (`start_attempt`)."""
        if parent is NO_SPAN:
            return NO_SPAN
        return SpanRecord(
            name=name,
            trace_id=parent.trace_id,
            span_id=self._rand.getrandbits(64) or 1,
            parent_id=parent.span_id,
            kind=kind,
            start_ns=time.time_ns(),
            sampled=parent.sampled,
            tracestate=parent.tracestate,
            attributes=dict(attributes) if attributes else {},
        )

    def start_attempt(self, parent: Any, settings: BackendSettings) -> Any:
        """The client span of one backend call made with `settings` (the adapter's own, which
        a reload begun since may have replaced): the request's operation (the conventions
        require it of a GenAI client span), the provider, model and server, and
        `smf.traffic` "live" as the request span's, so a query on client spans alone tells
        live calls from the shadow's and the canary's. Named as the conventions name a GenAI
        client span, `{operation} {model}` (`chat sim-a`); `smf.backend` names the backend."""
        if parent is NO_SPAN:
            return NO_SPAN
        operation = parent.attributes.get("gen_ai.operation.name", "chat")
        attrs = self._backend_attributes(operation, settings)
        attrs["smf.traffic"] = "live"
        # the request span names the provider and model of the backend it ends on as
        # called, not as a reload since may have renamed or removed it (`finish_request`)
        parent.attributes["gen_ai.provider.name"] = attrs["gen_ai.provider.name"]
        parent.attributes["gen_ai.response.model"] = attrs["gen_ai.request.model"]
        name = f"{operation} {attrs['gen_ai.request.model']}"
        return self.start_child(parent, name, attrs, CLIENT)

    def start_call(
        self,
        traffic: str,
        settings: BackendSettings,
        attributes: Attributes | None = None,
        link: SpanLink | None = None,
    ) -> Any:
        """The root client span of a chat call the router makes on its own with `settings`,
        `traffic` being "shadow" or "canary": a trace of its own, so that a live request's
        trace holds only what its client waited for. `link` (`link_to`) names the live
        request span a shadow replay mirrors; the replay is sampled as that span was when the
        sampler follows parents, so a kept request keeps its mirror."""
        if self._shipper is None:
            return NO_SPAN
        trace_id = self._rand.getrandbits(128) or 1
        if link is not None and self._sampler.parent_based:
            sampled = link.sampled
        else:
            sampled = self._sampler.sampled(trace_id, None)
        attrs = self._backend_attributes("chat", settings)
        attrs["smf.traffic"] = traffic
        if attributes:
            attrs.update(attributes)
        return SpanRecord(
            name=f"{traffic} chat {attrs['gen_ai.request.model']}",
            trace_id=trace_id,
            span_id=self._rand.getrandbits(64) or 1,
            parent_id=None,
            kind=CLIENT,
            start_ns=time.time_ns(),
            sampled=sampled,
            links=(link,) if link is not None else (),
            attributes=attrs,
        )

    def _backend_attributes(self, operation: str, settings: BackendSettings) -> dict[str, Any]:
        """What every client span says of its backend, live or not: one query (by provider,
        model or server) then finds all the load a backend had. From the settings the call
        is made with, not the config's tables by name: a fallback attempt, or a canary case,
        begun before a reload that re-pointed the backend calls the old server (found in
        review). The server by URL: parsed once per URL, a URL only an old config had too."""
        server = self.servers.get(settings.base_url)
        if server is None:
            server = self.servers[settings.base_url] = server_attributes(settings.base_url)
        return {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": provider_name(settings),
            "gen_ai.request.model": request_model(settings),
            **server,
            "smf.backend": settings.name,
            "smf.tier": settings.tier,
        }

    def skipped(self, span: Any, attempt: Attempt) -> None:
        """An event on the request span for a backend passed over, never called (`attempt`,
        a `skipped` one: its `error_kind` the reason, `rate_limited`, `circuit_open`,
        `context_too_long`, ...), when it was. An event, not an attribute: each names its
        backend and reason as attributes of their own, which Tempo's TraceQL matches
        together (`{ event:name = "smf.backend_skipped" && event.smf.backend = "local" }`)
        and Grafana and Jaeger list under the span at the moment of the skip (a plan's, or a
        fallback's past a context-length refusal), where an array attribute held
        `backend:reason` strings to split. Before, a trace said nothing of them: a 503
        whose every backend was skipped had no attempt span at all (found in review)."""
        if span is NO_SPAN:
            return
        attributes = {"smf.backend": attempt.backend, "smf.tier": attempt.tier}
        if attempt.error_kind:
            attributes["smf.skip_reason"] = attempt.error_kind
        span.events.append(SpanEvent(SKIPPED, time.time_ns(), attributes))

    def end(
        self, span: Any, attributes: Attributes | None = None, error: str | None = None
    ) -> None:
        """End a span; `error` (an error kind) marks it failed and sets `error.type`."""
        if span is NO_SPAN or span.end_ns:
            return
        if attributes:
            span.attributes.update(attributes)
        if error:
            span.error = error
            span.attributes["error.type"] = error
        span.end_ns = time.time_ns()
        if span.sampled and self._shipper is not None:
            self._shipper.submit(span)

    @staticmethod
    def link_to(span: Any) -> SpanLink | None:
        """What a span started later, in another trace, links to (None for `NO_SPAN`)."""
        if span is NO_SPAN:
            return None
        return SpanLink(span.trace_id, span.span_id, span.sampled)

    def inject(self, span: Any, headers: dict[str, str]) -> None:
        """Add `traceparent` (and the caller's `tracestate`) for the backend call made under
        `span`."""
        if span is NO_SPAN:
            return
        trace_context.inject(headers, span.trace_id, span.span_id, span.sampled, span.tracestate)

    def finish_request(
        self, span: Any, record: Record, finish_reasons: Sequence[str] | None = None
    ) -> None:
        """Fill the request span from its finished record, then end it: `error.type` when
        it did not succeed, status ERROR only when the router failed it (`server_failed`).
        The provider and model its last attempt called, as that attempt's span names them:
        the record's `served_model` is the config's (`openai/m`), where the attempt says `m`,
        and a query by model missed the litellm backends' requests (found in review). Those
        of a backend that answered without serving too (its 400 passed through: `ended_on`);
        none when no backend answered (a hang-up before the first byte)."""
        if span is NO_SPAN:
            return
        ended = ended_on(record)  # once, for both
        attributes = record_attributes(record, finish_reasons, ended)
        answered = ended is not None
        for key in CALLED:  # the last attempt's: the backend it ended on, as it was called
            called = span.attributes.pop(key, None)
            if answered and called is not None:
                attributes[key] = called
        error = None if record.outcome == "ok" else (record.error_kind or record.outcome)
        if error is not None:
            attributes["error.type"] = error
        self.end(span, attributes, error if server_failed(record) else None)

    def end_raised(self, span: Any, error: Exception) -> None:
        """End `span` (the request's, or its `classify`) that `error` was raised out of while
        planned, before the front refuses the request: left open, the request span was never
        exported, and the 500 had no span with status ERROR (found in review)."""
        if span is NO_SPAN:
            return
        attributes = raised_attributes(error)
        failed = attributes["smf.outcome"] == "router_error"
        if span.kind != SERVER:  # a child says only what failed
            attributes = {"error.type": attributes["error.type"]}
        self.end(span, attributes, attributes["error.type"] if failed else None)

    def dropped_spans(self) -> dict[str, int]:
        """Spans lost by reason, for `/metrics`: all 0 while tracing is off."""
        if self._shipper is None:
            return dict.fromkeys(DROP_REASONS, 0)
        return self._shipper.dropped_spans()

    def shutdown(self) -> None:
        """Flush buffered spans and stop the exporter (at process exit)."""
        if self._shipper is not None:
            self._shipper.shutdown()
            self._shipper = None


def server_failed(record: Record) -> bool:
    """Whether a finished request failed on the router's side: a backend or the router
    failed it, or the router's drain cancelled it (503). A client's mistake (`client_error`,
    a backend's 4xx passed through included) or a client that left (499) is not: OTel's HTTP
    conventions leave a server span's status unset on a 4xx, and with ERROR there, trace
    error rates counted every bad request and hang-up as the router's failure, where its
    metrics keep them apart (`Gateway.fail`)."""
    if record.outcome == "cancelled":
        return record.status != ClientClosed.status
    return record.outcome in ("upstream_error", "router_error")
