"""The metrics read at scrape time rather than counted as things happen: the ledger writer's
queue, flush time and record counts, the spans tracing lost, and the router process's
memory, CPU and collections.

Reading them only when Prometheus asks keeps them off the request path. `router.metrics`
defines them through the factories it passes in, so every family keeps its `smf_router_`
name and its place in the exposition.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from router import process_stats
from router.metric_store import Family
from router.span_export import DROP_REASONS

Define = Callable[[str, str, tuple[str, ...]], Family]


class LedgerSource(Protocol):
    """What the ledger writer exposes; read at scrape time, never on the request path."""

    @property
    def queue_depth(self) -> int: ...
    @property
    def pending_rows(self) -> int: ...
    @property
    def last_flush_seconds(self) -> float: ...
    @property
    def flush_running_seconds(self) -> float: ...
    @property
    def dropped_total(self) -> int: ...
    @property
    def written_total(self) -> int: ...


class SpanSource(Protocol):
    """What tracing exposes: spans lost by reason (`router.span_export.DROP_REASONS`)."""

    def dropped_spans(self) -> dict[str, int]: ...


class ScrapedFamilies:
    """The ledger and process families, and `read()`, which fills them before a scrape."""

    def __init__(self, gauge: Define, counter: Define) -> None:
        self.ledger_source: LedgerSource | None = None
        self.span_source: SpanSource | None = None
        self.ledger_queue = gauge("ledger_queue_depth", "Records waiting to be written.", ())
        self.ledger_pending = gauge(
            "ledger_pending_records",
            "Rows held in memory because their ledger write failed; retried at every flush.",
            (),
        )
        self.ledger_flush = gauge(
            "ledger_last_flush_seconds", "How long the last ledger flush took.", ()
        )
        self.ledger_flush_running = gauge(
            "ledger_flush_running_seconds",
            "How long the ledger flush under way has run; 0 between flushes.",
            (),
        )
        self.ledger_dropped = counter(
            "ledger_dropped_records_total", "Records the ledger had to drop.", ()
        )
        self.ledger_written = counter(
            "ledger_written_records_total", "Records written to the ledger.", ()
        )
        self.spans_dropped = counter(
            "tracing_dropped_spans_total",
            "Spans tracing lost: a full queue, or a batch the OTLP endpoint did not take.",
            ("reason",),
        )
        for reason in DROP_REASONS:  # 0 from the start, and while tracing is off
            self.spans_dropped.set((reason,), 0)
        self.resident = gauge(
            "process_resident_memory_bytes", "Resident memory of the router process.", ()
        )
        self.arrow = gauge(
            "process_arrow_allocated_bytes",
            "Memory held by Arrow's pool (ledger flushes and merges), part of resident memory.",
            (),
        )
        self.cpu = counter(
            "process_cpu_seconds_total", "CPU time of the router process (user + system).", ()
        )
        self.collections = counter(
            "gc_collections_total",
            "Garbage collections by generation; generation 2 is a full one (see router.heap).",
            ("generation",),
        )

    def read(self) -> None:
        self._read_ledger()
        self._read_spans()
        self._read_process()

    def _read_spans(self) -> None:
        src = self.span_source
        if src is None:
            return
        for reason, count in src.dropped_spans().items():
            self.spans_dropped.set((reason,), float(count))

    def _read_process(self) -> None:
        stats = process_stats.read()
        if stats.resident_bytes is not None:
            self.resident.set((), float(stats.resident_bytes))
        self.arrow.set((), float(stats.arrow_bytes))
        self.cpu.set((), stats.cpu_seconds)
        for generation, count in enumerate(stats.collections):
            self.collections.set((str(generation),), float(count))

    def _read_ledger(self) -> None:
        """Copy the ledger writer's numbers into their families."""
        src = self.ledger_source
        if src is None:
            return
        self.ledger_queue.set((), float(src.queue_depth))
        self.ledger_pending.set((), float(src.pending_rows))
        self.ledger_flush.set((), float(src.last_flush_seconds))
        self.ledger_flush_running.set((), float(src.flush_running_seconds))
        self.ledger_dropped.set((), float(src.dropped_total))
        self.ledger_written.set((), float(src.written_total))
