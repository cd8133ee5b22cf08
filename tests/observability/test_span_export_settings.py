"""The `OTEL_BSP_*` variables of the span export thread: bad values, and the export timeout."""

from __future__ import annotations

import logging
import threading
import types
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from opentelemetry.sdk.trace.export import SpanExportResult

from router import span_export
from router.span_export import SERVER, SpanRecord, SpanShipper
from router.tracing import Tracing
from tests.canary.servers import free_port
from tests.harness import wait_until
from tests.ports import listening, on_a_free_port


class FakeExporter:
    """Takes every batch at once; keeps the sizes of the batches it was given."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.empty = 0  # calls with no span: the spin of a batch size of 0

    def export(self, spans: Sequence[Any]) -> SpanExportResult:
        if spans:
            self.sizes.append(len(spans))
        else:
            self.empty += 1
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


class CountingEvent(threading.Event):
    """The export thread's wake-up event, counting how often the thread waited on it."""

    waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        CountingEvent.waits += 1
        return super().wait(timeout)


def span() -> SpanRecord:
    return SpanRecord("chat auto", 1, 2, None, SERVER, start_ns=1, end_ns=2)


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "smf_router.span_export" and r.levelno == logging.WARNING
    ]


def test_a_batch_size_of_0_still_exports_the_span_in_one_batch(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """With `OTEL_BSP_MAX_EXPORT_BATCH_SIZE=0` the thread took empty batches off a queue that
    was not empty: `export([])` ~1M times a second, and the span never sent (found in
    review). Now 0 is a warning naming the variable, and the default batch size is used."""
    exporter = FakeExporter()
    env = {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "0", "OTEL_BSP_SCHEDULE_DELAY": "20"}
    with caplog.at_level(logging.WARNING, logger="smf_router.span_export"):
        shipper = SpanShipper(exporter, None, env)
        shipper.submit(span())
        wait_until(lambda: bool(exporter.sizes) or exporter.empty > 100, 30)  # a hang guard
        shipper.shutdown(timeout_s=0.5)
    assert (exporter.sizes, exporter.empty) == ([1], 0)
    (line,) = warnings(caplog)  # once, at start
    assert "OTEL_BSP_MAX_EXPORT_BATCH_SIZE" in line


def test_a_schedule_delay_of_0_does_not_spin_the_idle_thread(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With `OTEL_BSP_SCHEDULE_DELAY=0` the idle thread's `wait(0)` returned at once, so it
    looped without pause: a core busy, sharing the GIL with the event loop (p50 43.9 -> 57.1
    ms under load; found in review). Now 0 is a warning, and the default delay is used: an
    idle thread waits once in 0.3 s, not hundreds of thousands of times."""
    events = types.SimpleNamespace(Event=CountingEvent, Thread=threading.Thread)
    monkeypatch.setattr(span_export, "threading", events)
    monkeypatch.setattr(CountingEvent, "waits", 0)
    exporter = FakeExporter()
    with caplog.at_level(logging.WARNING, logger="smf_router.span_export"):
        shipper = SpanShipper(exporter, None, {"OTEL_BSP_SCHEDULE_DELAY": "0"})
        threading.Event().wait(0.3)
        waits = CountingEvent.waits
        shipper.shutdown(timeout_s=0.5)
    assert waits <= 3, waits
    (line,) = warnings(caplog)
    assert "OTEL_BSP_SCHEDULE_DELAY" in line


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"OTEL_BSP_MAX_QUEUE_SIZE": "0"}, "OTEL_BSP_MAX_QUEUE_SIZE"),
        ({"OTEL_BSP_MAX_QUEUE_SIZE": "-5"}, "OTEL_BSP_MAX_QUEUE_SIZE"),
        ({"OTEL_BSP_SCHEDULE_DELAY": "-1"}, "OTEL_BSP_SCHEDULE_DELAY"),
        ({"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "-1"}, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"),
    ],
)
def test_a_value_below_1_is_a_warning_and_the_default_is_used(
    env: dict[str, str], named: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A queue size of 0 dropped every span; the SDK's BatchSpanProcessor refuses all of
    these values. One warning at start names the variable; the SDK's default is used."""
    with caplog.at_level(logging.WARNING, logger="smf_router.span_export"):
        shipper = SpanShipper(FakeExporter(), None, env)
        shipper.shutdown(timeout_s=0.5)
    assert (shipper.max_queue, shipper.batch, shipper.delay_s) == (2048, 512, 5.0)
    (line,) = warnings(caplog)
    assert named in line


def test_a_delay_past_what_a_wait_takes_is_capped_and_the_thread_lives(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A delay meant as "never" made the thread's wait raise OverflowError: the thread died
    and every later span was lost as queue_full (found in re-review)."""
    exporter = FakeExporter()
    env = {"OTEL_BSP_SCHEDULE_DELAY": "10000000000000", "OTEL_BSP_MAX_QUEUE_SIZE": "1"}
    with caplog.at_level(logging.WARNING, logger="smf_router.span_export"):
        shipper = SpanShipper(exporter, None, env)
        shipper.submit(span())  # a full queue wakes the thread: it ships, if it lives
        wait_until(lambda: bool(exporter.sizes), 30)  # a hang guard
        shipper.shutdown(timeout_s=0.5)
    assert exporter.sizes == [1] and shipper.delay_s == 86_400.0
    (line,) = warnings(caplog)
    assert "OTEL_BSP_SCHEDULE_DELAY" in line


def test_a_batch_larger_than_the_queue_is_cut_to_the_queue_size(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A batch that cannot fill the queue never woke the thread early: every span waited
    for the schedule delay. As the SDK requires, a batch is at most the queue size."""
    env = {"OTEL_BSP_MAX_QUEUE_SIZE": "4", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "10"}
    with caplog.at_level(logging.WARNING, logger="smf_router.span_export"):
        shipper = SpanShipper(FakeExporter(), None, env)
        quiet = SpanShipper(FakeExporter(), None, {"OTEL_BSP_MAX_QUEUE_SIZE": "100"})
        shipper.shutdown(timeout_s=0.5)
        quiet.shutdown(timeout_s=0.5)
    assert (shipper.max_queue, shipper.batch) == (4, 4)
    assert (quiet.max_queue, quiet.batch) == (100, 100)  # the default batch: no warning
    (line,) = warnings(caplog)
    assert "OTEL_BSP_MAX_EXPORT_BATCH_SIZE" in line


@contextmanager
def hanging_collector() -> Iterator[str]:
    """A collector that takes the connection and never answers: the kernel completes the
    handshake into the listen backlog and nothing reads it. On a port of 18000-18999."""
    with on_a_free_port(listening, free_port) as sock:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def export_failed_after_one_span(env: dict[str, str]) -> bool:
    """Whether one span's export to a hanging collector failed within 8 s: under the
    exporter's own 10 s that a timeout ignored would leave (4 s was tight on a loaded machine)."""
    with hanging_collector() as url:
        tracing = Tracing.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": url, **env})
        tracing.end(tracing.start_request("chat", "auto"))
        failed = wait_until(lambda: tracing.dropped_spans()["export_failed"] == 1, 8)
        tracing.shutdown()  # at most the 2 s grace on a still hanging export
    return failed


def test_the_bsp_export_timeout_bounds_an_export(monkeypatch: pytest.MonkeyPatch) -> None:
    """`OTEL_BSP_EXPORT_TIMEOUT` was ignored, though the docs said `OTEL_BSP_*` work as usual:
    an export to a hanging collector ran the exporter's 10 s (found in review). Now it is the
    exporter's timeout."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    env = {"OTEL_BSP_EXPORT_TIMEOUT": "300", "OTEL_BSP_SCHEDULE_DELAY": "20"}
    assert export_failed_after_one_span(env), "the export ran past OTEL_BSP_EXPORT_TIMEOUT"


def test_the_exporters_own_timeout_wins_over_the_bsp_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """`OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` (seconds, read by the exporter itself) is the more
    specific setting: a larger `OTEL_BSP_EXPORT_TIMEOUT` does not replace it."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "0.3")
    env = {
        "OTEL_BSP_EXPORT_TIMEOUT": "60000",
        "OTEL_BSP_SCHEDULE_DELAY": "20",
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "0.3",
    }
    assert export_failed_after_one_span(env), "OTEL_BSP_EXPORT_TIMEOUT replaced the exporter's"


@pytest.mark.parametrize("value", ["0", "-1", "ten"])
def test_a_bad_bsp_export_timeout_is_one_warning(
    value: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A bad `OTEL_BSP_EXPORT_TIMEOUT` leaves the exporter's own timeout, and says so once."""
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:18999",
        "OTEL_BSP_EXPORT_TIMEOUT": value,
    }
    with caplog.at_level(logging.WARNING, logger="smf_router.span_export"):
        Tracing.from_env(env).shutdown()  # nothing queued: nothing sent
    (line,) = warnings(caplog)
    assert "OTEL_BSP_EXPORT_TIMEOUT" in line
