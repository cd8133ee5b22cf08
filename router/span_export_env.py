"""The `OTEL_BSP_*` variables `router.span_export` honours, read once at start and checked.

A value the OpenTelemetry SDK's BatchSpanProcessor would refuse (a schedule delay, queue size
or batch size below 1) is a warning naming the variable, and its default is used: with
`OTEL_BSP_SCHEDULE_DELAY=0` the export thread spun (`Event.wait(0)` returns at once: a core
busy while idle, taking the GIL from the event loop; p50 43.9 -> 57.1 ms under load), and
with `OTEL_BSP_MAX_EXPORT_BATCH_SIZE=0` it exported empty batches ~1M times a second and
never sent a span (both found in review). A batch larger than the queue could never fill:
it is cut to the queue size. `OTEL_BSP_EXPORT_TIMEOUT` bounds one export (see
`exporter_timeout_s`); it was ignored though the docs said `OTEL_BSP_*` work as usual.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

log = logging.getLogger("smf_router.span_export")

DEFAULT_MAX_QUEUE = 2048
DEFAULT_BATCH = 512
DEFAULT_DELAY_MS = 5000
# A day: longer waits made Event.wait raise OverflowError past time_t and the export thread
# died, every span after counted as queue_full (found in review); a full queue still ships.
MAX_DELAY_MS = 86_400_000
# The exporter reads these itself (as seconds); the more specific setting wins over ours.
EXPORTER_TIMEOUT_VARS = ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")


@dataclass(frozen=True, slots=True)
class BatchSettings:
    """How `SpanShipper` queues and batches: every value at least 1, batch <= queue."""

    max_queue: int
    batch: int
    delay_s: float


def _int_env(env: Mapping[str, str], name: str, default: int) -> int:
    try:
        return int(env.get(name, default))
    except ValueError:
        log.warning("%s is not an integer; using %d", name, default)
        return default


def positive_env(env: Mapping[str, str], name: str, default: int) -> int:
    """`name` as an integer of at least 1; else a warning naming it, and `default`."""
    value = _int_env(env, name, default)
    if value < 1:
        log.warning("%s=%d must be at least 1; using %d", name, value, default)
        return default
    return value


def batch_settings(env: Mapping[str, str]) -> BatchSettings:
    """The shipper's settings from `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`
    and `OTEL_BSP_SCHEDULE_DELAY` (milliseconds), checked as the module says. A batch size set
    above the queue size is a warning; the default one (512) under a smaller queue is cut
    silently, as setting only the queue size is no mistake."""
    max_queue = positive_env(env, "OTEL_BSP_MAX_QUEUE_SIZE", DEFAULT_MAX_QUEUE)
    batch = positive_env(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", DEFAULT_BATCH)
    if batch > max_queue:
        if "OTEL_BSP_MAX_EXPORT_BATCH_SIZE" in env:
            log.warning(
                "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=%d is above OTEL_BSP_MAX_QUEUE_SIZE; using %d",
                batch,
                max_queue,
            )
        batch = max_queue
    delay_ms = positive_env(env, "OTEL_BSP_SCHEDULE_DELAY", DEFAULT_DELAY_MS)
    if delay_ms > MAX_DELAY_MS:  # "never": past this the export thread's wait overflowed
        log.warning("OTEL_BSP_SCHEDULE_DELAY=%d is too long; using %d", delay_ms, MAX_DELAY_MS)
        delay_ms = MAX_DELAY_MS
    return BatchSettings(max_queue=max_queue, batch=batch, delay_s=delay_ms / 1000)


def exporter_timeout_s(env: Mapping[str, str]) -> float | None:
    """The OTLP exporter's `timeout=` (seconds) from `OTEL_BSP_EXPORT_TIMEOUT` (milliseconds),
    or None to leave it to the exporter: when the variable is unset or bad (a warning), and
    when `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` or `OTEL_EXPORTER_OTLP_TIMEOUT` is set, which
    the exporter reads itself and which, being the exporter's own, win."""
    raw = env.get("OTEL_BSP_EXPORT_TIMEOUT")
    if raw is None:
        return None
    try:
        timeout_ms = int(raw)
    except ValueError:
        timeout_ms = 0
    if timeout_ms < 1:
        log.warning(
            "OTEL_BSP_EXPORT_TIMEOUT=%r is not an integer of at least 1 (milliseconds); "
            "using the exporter's timeout",
            raw,
        )
        return None
    if any(env.get(name) for name in EXPORTER_TIMEOUT_VARS):
        return None
    return timeout_ms / 1000
