"""Shipping finished spans to OTLP from a background thread, off the request path.

`router.tracing` records spans as plain slotted objects (a few microseconds each); this
module turns them into the SDK's `ReadableSpan` and hands batches to the OTLP exporter on
its own thread, like the SDK's BatchSpanProcessor but without the SDK's per-span cost on
the event loop. Honours `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_QUEUE_SIZE` and
`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`; a full queue drops spans and counts them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("smf_router.span_export")

SERVER, CLIENT, INTERNAL = "server", "client", "internal"

# At shutdown, how long one export may run before the endpoint counts as broken: an answering
# collector takes milliseconds; the exporter retrying a refused, failing or silent one runs
# for its whole timeout (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s by default).
EXPORT_GRACE_S = 2.0
ABORT_WAIT_S = 1.0  # for the thread after its exporter was shut down


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
        self.dropped = 0
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
        left = len(self._queue)
        if left:
            log.warning(
                "tracing dropped %d spans at exit: the OTLP endpoint is not taking them", left
            )
            self.dropped += left

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
