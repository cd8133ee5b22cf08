"""Shipping finished spans to OTLP from a background thread, off the request path.

`router.tracing` records spans as plain slotted objects (a few microseconds each); this
module turns them into the SDK's `ReadableSpan` and hands batches to the OTLP exporter on
its own thread, like the SDK's BatchSpanProcessor but without the SDK's per-span cost on
the event loop. Honours `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_QUEUE_SIZE` and
`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, checked as the SDK checks them (`router.span_export_env`).
Spans a full queue drops, and those of batches the endpoint did not take, are counted
(`smf_router_tracing_dropped_spans_total`), and the exporter's own line per failed batch is
cut to one every few minutes (`ExportLogLimiter`).
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from threading import Lock  # by name: a test swaps the module's threading for a stub
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from evals.redaction import without_secrets
from router.log_sparing import Sparing
from router.span_export_env import batch_settings
from router.trace_context import tracestate_entries

log = logging.getLogger("smf_router.span_export")

SERVER, CLIENT, INTERNAL = "server", "client", "internal"

# At shutdown, how long one export may run before the endpoint counts as broken: an answering
# collector takes milliseconds; the exporter retrying a refused, failing or silent one runs
# for its whole timeout (OTEL_EXPORTER_OTLP_TIMEOUT or OTEL_BSP_EXPORT_TIMEOUT, 10 s by default).
EXPORT_GRACE_S = 2.0
ABORT_WAIT_S = 1.0  # for the thread after its exporter was shut down

# Why spans were lost: the queue was full, or the endpoint did not take their batch.
DROP_REASONS = ("queue_full", "export_failed")
EXPORTER_LOGGER = "opentelemetry.exporter.otlp.proto.http.trace_exporter"
EXPORT_LOG_INTERVAL_S = 600.0  # see `ExportLogLimiter`


class SpanEvent(NamedTuple):
    """Something that happened at `time_ns` during a span (OTel's span Event): a request
    span's backend the plan passed over (`Tracing.skipped`)."""

    name: str
    time_ns: int
    attributes: dict[str, Any]


class SpanLink(NamedTuple):
    """A span of another trace that one is about (OTel's span Link): a shadow replay's
    names the live request span it mirrors."""

    trace_id: int
    span_id: int
    sampled: bool


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
    tracestate: str | None = None  # the caller's, forwarded to backends (`router.trace_context`)
    end_ns: int = 0
    attributes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    links: tuple[SpanLink, ...] = ()
    events: list[SpanEvent] = field(default_factory=list)


class SpanShipper:
    """Queues finished spans and exports them in batches on a daemon thread."""

    def __init__(self, exporter: Any, resource: Any, env: Mapping[str, str]) -> None:
        self._exporter = exporter
        self._resource = resource
        settings = batch_settings(env)  # each at least 1: 0 made the thread spin
        self.max_queue = settings.max_queue
        self.batch = settings.batch
        self.delay_s = settings.delay_s
        self.dropped = 0  # a full queue (the event loop's count)
        self.export_failed = 0  # in batches the endpoint did not take (the thread's count)
        self._queue: deque[SpanRecord] = deque()
        self._wake = threading.Event()
        self._stopping = False
        self._closed = False
        self._export_began: float | None = None  # monotonic start of the export running now
        # The batch being exported: its spans are counted lost by whoever gives up on it
        # first, the thread when the export fails, or `shutdown` when it leaves it running.
        self._in_flight = 0
        self._in_flight_lock = Lock()
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
        # an export still blocked (a collector that never answers) is lost with the process:
        # left out, "dropped 249 spans at exit" was said of 400 lost (found in review)
        abandoned = self._claim_in_flight()
        if self.dropped:
            log.warning("tracing dropped %d spans (queue full)", self.dropped)
        if self.export_failed:
            log.warning("tracing lost %d spans the OTLP endpoint did not take", self.export_failed)
        left = len(self._queue) + abandoned
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

    def _claim_in_flight(self) -> int:
        """The size of the batch being exported, now no longer anyone else's to count."""
        with self._in_flight_lock:
            size, self._in_flight = self._in_flight, 0
        return size

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
        self._in_flight = len(spans)
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
            lost = self._claim_in_flight()  # 0 once `shutdown` counted the batch
            if failed:
                self.export_failed += lost


class ExportLogLimiter(logging.Filter):
    """Lets through at most one of the OTLP exporter's per-batch failure lines ("Transient
    error ... retrying", "Failed to export ... batch") of each kind of failure every
    `interval_s`, rewritten to name the endpoint's host and how many lines of that kind were
    held back since the last one.

    With the collector down the exporter logged every retry of every batch (~15,000 lines a
    day; found in review), though the loss itself is now counted in
    `smf_router_tracing_dropped_spans_total`. A fixed interval keeps one line in the log
    saying the collector is still unreachable, which is all a reader needs next to the
    counter. The interval is per kind (`failure_kind`: the exception's class, the HTTP
    status): with one window for all, a collector back but answering 401 (every batch lost,
    for good) stayed hidden behind the last "connection refused" line for up to 10 min
    (found in review). The line names the host and port and keeps the exporter's cause (refused,
    a 401, a timeout), without any URL's user info or query (`without_secrets`). The exporter's
    other lines (shutdown, an oversized batch) are rare and pass as they are. Runs on the
    export thread only: no lock."""

    def __init__(
        self,
        endpoint: str,
        interval_s: float = EXPORT_LOG_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        parts = urlsplit(endpoint)
        self.host = parts.netloc.rpartition("@")[2]
        self.interval_s = interval_s
        self.clock = clock
        self._windows: dict[str, Sparing] = {}  # failure kind -> its lines' interval
        self._last_kind = GAVE_UP  # of the batch being tried (see `failure_kind`)

    @property
    def held_back(self) -> int:
        """Failure lines held back since the last of their kind was logged, all kinds."""
        return sum(w.held for w in self._windows.values())

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(("Transient error", "Failed to export")):
            return True
        kind = self._kind_of(record)
        last_of_batch = str(record.msg).startswith("Failed to export")
        self._last_kind = GAVE_UP if last_of_batch else kind
        window = self._windows.setdefault(kind, Sparing(self.interval_s))
        held = window.passes(self.clock())
        if held is None:
            return False
        cause = without_secrets(record.getMessage())[:300]  # cut once clean: see there
        record.msg = (
            "OTLP collector at %s is not taking spans: %s (%d such exporter lines held back "
            "since the last; at most one per kind of failure every %.0f min; lost spans are "
            "counted in smf_router_tracing_dropped_spans_total)"
        )
        record.args = (self.host, cause, held, self.interval_s / 60)
        return True

    def _kind_of(self, record: logging.LogRecord) -> str:
        """The failure a line reports, bounded to `MAX_FAILURE_KINDS` kinds: past them (a
        collector inventing reason phrases) the windows that are over are forgotten, and
        what is still new shares one window."""
        kind = failure_kind(str(record.msg), record.args, self._last_kind)
        windows = self._windows
        if kind not in windows and len(windows) >= MAX_FAILURE_KINDS:
            now = self.clock()
            for old in [k for k, w in windows.items() if (w.next_at or 0) <= now and not w.held]:
                del windows[old]
            if len(windows) >= MAX_FAILURE_KINDS:
                return "other"
        return kind


MAX_FAILURE_KINDS = 16
GAVE_UP = "gave up"  # a batch's last line with no failure seen before it (see `failure_kind`)


def failure_kind(msg: str, args: Any, last: str) -> str:
    """What failed, as `ExportLogLimiter` keys its windows: "HTTP 401" for a status the
    exporter gave up on, else the exception's class (`ConnectionError`) or the server's reason
    phrase ("Service Unavailable"; a text is cut at its first "(" or ":"). The exporter's
    "Failed to export ... due to timeout, max retries or shutdown" names no cause: it ends the
    retries of the batch's failure logged before it (`last`), so it is of that kind; with none
    (the first try ran out the time) it is `GAVE_UP`."""
    values = args if isinstance(args, tuple) else ()
    if msg.startswith("Transient error") and values:
        cause: object = values[0]
    elif msg.startswith("Failed to export") and len(values) >= 3:
        if values[1]:
            return f"HTTP {values[1]}"
        cause = values[2]
    else:
        return last
    if isinstance(cause, BaseException):
        return type(cause).__name__
    return re.split(r"[(:]", str(cause), maxsplit=1)[0].strip()[:60] or "unknown"


class HeaderValueMask(logging.Filter):
    """Names the header, never its value, in the SDK's warning about an entry of
    `OTEL_EXPORTER_OTLP_HEADERS` it cannot parse: it quoted the entry whole, and the usual
    slip (`Authorization: Bearer <token>` for `Authorization=Bearer%20<token>`) put the
    token in the log at every start."""

    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("Header format invalid") and isinstance(record.args, tuple):
            entry = str(record.args[0]) if record.args else ""
            record.args = (shown_entry(entry),)
        return True


# A header's name as an entry of OTEL_EXPORTER_OTLP_HEADERS starts with it: before `=`/`:`.
_HEADER_NAME = re.compile(r"\s*([A-Za-z0-9_-]{1,40})\s*[=:]")


def shown_entry(entry: str) -> str:
    """What a log may say of a headers entry: its name when it has one, else only its length
    (an entry without `=` or `:` is often the token itself, or the tail of a value cut at a
    comma: printing "the name" printed the secret)."""
    named = _HEADER_NAME.match(entry)
    if named:
        return f"{named.group(1)} (its value is not shown)"
    return f"an entry of {len(entry)} characters without a name (not shown)"


HEADERS_LOGGER = "opentelemetry.util.re"  # parses OTEL_EXPORTER_OTLP_(TRACES_)HEADERS


def quiet_exporter_log(endpoint: str) -> ExportLogLimiter:
    """Put an `ExportLogLimiter` for `endpoint` on the OTLP exporter's logger, replacing the
    one an earlier `Tracing` put there, and a `HeaderValueMask` on the header parser's (before
    the exporter is made: it parses the headers then)."""
    headers = logging.getLogger(HEADERS_LOGGER)
    if not any(isinstance(f, HeaderValueMask) for f in headers.filters):
        headers.addFilter(HeaderValueMask())
    logger = logging.getLogger(EXPORTER_LOGGER)
    for old in [f for f in logger.filters if isinstance(f, ExportLogLimiter)]:
        logger.removeFilter(old)
    limiter = ExportLogLimiter(endpoint)
    logger.addFilter(limiter)
    return limiter


def readable(span: SpanRecord, resource: Any) -> Any:
    """The SDK's `ReadableSpan` for one recorded span (what OTLP exporters take). Its context
    and its parent's carry the caller's `tracestate`, as the SDK's spans inherit it: vendors
    that keep sampling data there (OTel's `ot=th:...`) read it on every span (left out, the
    exported spans had none: found in review)."""
    from opentelemetry.sdk.trace import Event, ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceFlags

    flags = TraceFlags(TraceFlags.SAMPLED)
    state = trace_state(span.tracestate)
    parent = None
    if span.parent_id is not None:
        parent = SpanContext(span.trace_id, span.parent_id, span.remote_parent, flags, state)
    kinds = {SERVER: SpanKind.SERVER, CLIENT: SpanKind.CLIENT}
    status = Status(StatusCode.ERROR, span.error) if span.error else Status(StatusCode.UNSET)
    attributes = {k: tuple(v) if isinstance(v, list) else v for k, v in span.attributes.items()}
    links = [
        Link(SpanContext(link.trace_id, link.span_id, False, TraceFlags(int(link.sampled))))
        for link in span.links
    ]
    events = [Event(e.name, e.attributes, e.time_ns) for e in span.events]
    return ReadableSpan(
        name=span.name,
        context=SpanContext(span.trace_id, span.span_id, False, flags, state),
        parent=parent,
        resource=resource,
        attributes=attributes,
        events=events,
        kind=kinds.get(span.kind, SpanKind.INTERNAL),
        status=status,
        start_time=span.start_ns,
        end_time=span.end_ns,
        links=links,
        instrumentation_scope=InstrumentationScope("smf-router"),
    )


@functools.lru_cache(maxsize=64)  # a request's spans share one; read on the export thread
def trace_state(tracestate: str | None) -> Any:
    """The SDK's `TraceState` of the caller's `tracestate` header: its entries when the
    header is a valid list (`router.trace_context.tracestate_entries`), else none, as the
    SDK's own reading has it. Not `TraceState.from_header`: it logs a warning quoting a
    malformed member, a line per span that any client can make."""
    from opentelemetry.trace import TraceState

    return TraceState(list(tracestate_entries(tracestate)) if tracestate else None)
