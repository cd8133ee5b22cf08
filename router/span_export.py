"""Shipping finished spans to OTLP from a background thread, off the request path.

`router.tracing` records spans as plain slotted objects (a few microseconds each); this
module turns them into the SDK's `ReadableSpan` and hands batches to the OTLP exporter on
its own thread, like the SDK's BatchSpanProcessor but without the SDK's per-span cost on
the event loop. Honours `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_QUEUE_SIZE` and
`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`. Spans a full queue drops, and those of batches the
endpoint did not take, are counted (`smf_router_tracing_dropped_spans_total`), and the
exporter's own line per failed batch is cut to one every few minutes (`ExportLogLimiter`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger("smf_router.span_export")

SERVER, CLIENT, INTERNAL = "server", "client", "internal"

# At shutdown, how long one export may run before the endpoint counts as broken: an answering
# collector takes milliseconds; the exporter retrying a refused, failing or silent one runs
# for its whole timeout (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s by default).
EXPORT_GRACE_S = 2.0
ABORT_WAIT_S = 1.0  # for the thread after its exporter was shut down

# Why spans were lost: the queue was full, or the endpoint did not take their batch.
DROP_REASONS = ("queue_full", "export_failed")
EXPORTER_LOGGER = "opentelemetry.exporter.otlp.proto.http.trace_exporter"
EXPORT_LOG_INTERVAL_S = 600.0  # see `ExportLogLimiter`


@dataclass(slots=True, eq=False)
class SpanRecord:
    """A span as the hot path records it: ids, times and attributes, nothing else."""

    name: str
    trace_id: int
    span_id: int
    parent_id: int | None
    kind: str
    start_ns: int
    sampled: bool = True
    remote_parent: bool = False
    end_ns: int = 0
    attributes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def _int_env(env: Mapping[str, str], name: str, default: int) -> int:
    try:
        return int(env.get(name, default))
    except ValueError:
        log.warning("%s is not an integer; using %d", name, default)
        return default


class SpanShipper:
    """Queues finished spans and exports them in batches on a daemon thread."""

    def __init__(self, exporter: Any, resource: Any, env: Mapping[str, str]) -> None:
        self._exporter = exporter
        self._resource = resource
        self.max_queue = _int_env(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048)
        self.batch = _int_env(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512)
        self.delay_s = _int_env(env, "OTEL_BSP_SCHEDULE_DELAY", 5000) / 1000
        self.dropped = 0  # a full queue (the event loop's count)
        self.export_failed = 0  # in batches the endpoint did not take (the thread's count)
        self._queue: deque[SpanRecord] = deque()
        self._wake = threading.Event()
        self._stopping = False
        self._closed = False
        self._export_began: float | None = None  # monotonic start of the export running now
        # An export begun during shutdown failed: the endpoint is not taking spans. One that
        # failed earlier says nothing of now (a collector that restarted is back).
        self._failed_in_shutdown = False
        self._thread = threading.Thread(target=self._run, name="smf-span-export", daemon=True)
        self._thread.start()

    def submit(self, span: SpanRecord) -> None:
        """Called from the event loop: an append, and a wake-up when a batch is ready."""
        if len(self._queue) >= self.max_queue:
            self.dropped += 1
            return
        self._queue.append(span)
        if len(self._queue) >= self.batch:
            self._wake.set()

    def dropped_spans(self) -> dict[str, int]:
        """Spans lost so far by reason (`DROP_REASONS`), read when `/metrics` is scraped."""
        return {"queue_full": self.dropped, "export_failed": self.export_failed}

    def shutdown(self, timeout_s: float = 10.0) -> None:
        """Export what is queued while the endpoint takes it, then stop the thread and the
        exporter. Once an export begun now fails or runs past `EXPORT_GRACE_S` the exporter
        is shut down at once, which ends its retries: a broken endpoint added ~10 s to every
        exit. Spans left in the queue then are dropped, logged and counted."""
        self._stopping = True
        self._wake.set()
        end = time.monotonic() + timeout_s
        while self._thread.is_alive() and not self._broken() and time.monotonic() < end:
            self._thread.join(0.05)
        self._closed = True  # a thread still exporting stops at its batch
        self._exporter.shutdown()
        self._thread.join(ABORT_WAIT_S)
        if self.dropped:
            log.warning("tracing dropped %d spans (queue full)", self.dropped)
        if self.export_failed:
            log.warning("tracing lost %d spans the OTLP endpoint did not take", self.export_failed)
        left = len(self._queue)
        if left:
            log.warning(
                "tracing dropped %d spans at exit: the OTLP endpoint is not taking them", left
            )
            self.export_failed += left

    def _broken(self) -> bool:
        began = self._export_began
        return self._failed_in_shutdown or (
            began is not None and time.monotonic() - began > EXPORT_GRACE_S
        )

    def _run(self) -> None:
        while True:
            self._wake.wait(self.delay_s)
            self._wake.clear()
            stopping = self._stopping
            while self._queue and not self._closed:
                self._export(self._take())
            if stopping or self._closed:
                return

    def _take(self) -> list[SpanRecord]:
        out: list[SpanRecord] = []
        while self._queue and len(out) < self.batch:
            out.append(self._queue.popleft())
        return out

    def _export(self, spans: list[SpanRecord]) -> None:
        from opentelemetry.sdk.trace.export import SpanExportResult

        in_shutdown = self._stopping
        self._export_began = time.monotonic()
        failed = True
        try:
            result = self._exporter.export([readable(s, self._resource) for s in spans])
            failed = result is not SpanExportResult.SUCCESS
        except Exception:  # an exporter bug must never kill the thread
            log.exception("span export failed")
        finally:
            self._export_began = None
            self._failed_in_shutdown |= in_shutdown and failed
            if failed:
                self.export_failed += len(spans)


class ExportLogLimiter(logging.Filter):
    """Lets through at most one of the OTLP exporter's per-batch failure lines ("Transient
    error ... retrying", "Failed to export ... batch") every `interval_s`, rewritten to name
    the endpoint's host and how many lines were held back since the last one.

    With the collector down the exporter logged every retry of every batch (~15,000 lines a
    day; found in review), though the loss itself is now counted in
    `smf_router_tracing_dropped_spans_total`. A fixed interval keeps one line in the log
    saying the collector is still unreachable, which is all a reader needs next to the
    counter. The line names the host and port and keeps the exporter's cause (refused, a
    401, a timeout), with the endpoint's user info and query (where a token may sit) cut
    out: urllib3 quotes the URL it failed on. The exporter's other lines (shutdown, an
    oversized batch) are rare and pass as they are. Runs on the export thread only: no
    lock."""

    def __init__(
        self,
        endpoint: str,
        interval_s: float = EXPORT_LOG_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        parts = urlsplit(endpoint)
        userinfo, _, self.host = parts.netloc.rpartition("@")
        self._secrets = [x for x in (userinfo, parts.query) if x]
        self.interval_s = interval_s
        self.clock = clock
        self._next_at: float | None = None
        self.held_back = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(("Transient error", "Failed to export")):
            return True
        now = self.clock()
        if self._next_at is not None and now < self._next_at:
            self.held_back += 1
            return False
        cause = record.getMessage()[:300]
        for secret in self._secrets:
            cause = cause.replace(secret, "...")
        record.msg = (
            "OTLP collector at %s is not taking spans: %s (%d such exporter lines held back "
            "since the last; at most one every %.0f min; lost spans are counted in "
            "smf_router_tracing_dropped_spans_total)"
        )
        record.args = (self.host, cause, self.held_back, self.interval_s / 60)
        self._next_at, self.held_back = now + self.interval_s, 0
        return True


def quiet_exporter_log(endpoint: str) -> ExportLogLimiter:
    """Put an `ExportLogLimiter` for `endpoint` on the OTLP exporter's logger, replacing the
    one an earlier `Tracing` put there."""
    logger = logging.getLogger(EXPORTER_LOGGER)
    for old in [f for f in logger.filters if isinstance(f, ExportLogLimiter)]:
        logger.removeFilter(old)
    limiter = ExportLogLimiter(endpoint)
    logger.addFilter(limiter)
    return limiter


def readable(span: SpanRecord, resource: Any) -> Any:
    """The SDK's `ReadableSpan` for one recorded span (what OTLP exporters take)."""
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

    flags = TraceFlags(TraceFlags.SAMPLED)
    parent = None
    if span.parent_id is not None:
        parent = SpanContext(span.trace_id, span.parent_id, span.remote_parent, flags)
    kinds = {SERVER: SpanKind.SERVER, CLIENT: SpanKind.CLIENT}
    status = Status(StatusCode.ERROR, span.error) if span.error else Status(StatusCode.UNSET)
    attributes = {k: tuple(v) if isinstance(v, list) else v for k, v in span.attributes.items()}
    return ReadableSpan(
        name=span.name,
        context=SpanContext(span.trace_id, span.span_id, False, flags),
        parent=parent,
        resource=resource,
        attributes=attributes,
        kind=kinds.get(span.kind, SpanKind.INTERNAL),
        status=status,
        start_time=span.start_ns,
        end_time=span.end_ns,
        instrumentation_scope=InstrumentationScope("smf-router"),
    )
