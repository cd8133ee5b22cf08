"""Spans lost while the OTLP collector is down: counted on /metrics, and logged rarely."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from router.span_export import EXPORTER_LOGGER, ExportLogLimiter
from tests.harness import config_for, router, scrape, simulator, wait_until

DROPPED = "smf_router_tracing_dropped_spans_total"


@pytest.fixture
def refusing_endpoint() -> Iterator[str]:
    """A collector that is down: a port bound but never listening refuses every connection
    (and no other test can be handed it meanwhile)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def exporter_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == EXPORTER_LOGGER]


def test_spans_lost_while_the_collector_is_down_show_on_metrics_and_log_once(
    refusing_endpoint: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`SpanShipper.dropped` was read only at exit ("tracing dropped 78565 spans"), and the
    spans of the batches the collector never took were not counted at all; meanwhile the
    exporter logged a warning or an error for every failed batch (~15,000 lines a day; found
    in review). Now the loss is on /metrics as it happens, by reason, and the exporter's
    lines come at most once per `EXPORT_LOG_INTERVAL_S`."""
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": refusing_endpoint,
        # each batch is tried, retried after ~1 s, and given up: two exporter lines a batch
        "OTEL_EXPORTER_OTLP_TIMEOUT": "1.5",
        "OTEL_BSP_MAX_QUEUE_SIZE": "4",
        "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "2",
        "OTEL_BSP_SCHEDULE_DELAY": "20",
        "NO_PROXY": "127.0.0.1",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    body = {"model": "local", "messages": [{"role": "user", "content": "hi"}]}
    with (
        caplog.at_level(logging.WARNING, logger="opentelemetry"),
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as proxy,
    ):
        assert scrape(proxy.root).get(DROPPED, reason="export_failed") == 0  # from the start

        def lost_enough() -> bool:
            """Traffic goes on (four spans a request; most find the queue full) until three
            batches failed: six lines the exporter logged before."""
            reply = httpx.post(f"{proxy.url}/chat/completions", json=body, trust_env=False)
            assert reply.status_code == 200
            now = scrape(proxy.root)
            full, failed = (
                now.get(DROPPED, reason=r) or 0 for r in ("queue_full", "export_failed")
            )
            return full > 0 and failed >= 6

        assert wait_until(lost_enough, 30), "the spans lost are not on /metrics"
        lines = exporter_lines(caplog)
    assert len(lines) == 1, lines
    host = refusing_endpoint.removeprefix("http://")
    assert lines[0].startswith(f"OTLP collector at {host} is not taking spans: ")
    assert "smf_router_tracing_dropped_spans_total" in lines[0]


def record(msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord(EXPORTER_LOGGER, logging.WARNING, __file__, 1, msg, args, None)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_limiter_passes_one_failure_line_per_interval_and_names_only_the_host() -> None:
    clock = Clock()
    limiter = ExportLogLimiter(
        "https://user:secret@otel.example:4318/v1/traces?token=abc", 600.0, clock
    )
    transient = "Transient error %s encountered while exporting %s batch, retrying in %.2fs."
    failed = "Failed to export %s batch due to timeout, max retries or shutdown."
    refused = "Max retries exceeded with url: /v1/traces?token=abc (Connection refused)"
    first = record(transient, refused, "spans", 1.05)
    assert limiter.filter(first)
    text = first.getMessage()
    assert text.startswith("OTLP collector at otel.example:4318 is not taking spans: Transient")
    assert "0 such exporter lines held back" in text
    assert "Connection refused" in text  # the cause stays
    assert "secret" not in text and "abc" not in text and "user" not in text
    passed = 0
    for _ in range(1000):  # a burst of failed batches, each retried
        clock.now += 0.5
        passed += limiter.filter(record(transient, "Connection refused", "spans", 2.0))
        passed += limiter.filter(record(failed, "spans"))
    assert passed == 0 and limiter.held_back == 2000
    clock.now = 1000.0 + 600.0
    later = record(failed, "spans")
    assert limiter.filter(later)
    assert "2000 such exporter lines held back" in later.getMessage()
    # the exporter's other lines are rare and say something else: they pass as they are
    aborting = record("Shutdown in progress, aborting retry.")
    assert (
        limiter.filter(aborting)
        and aborting.getMessage() == "Shutdown in progress, aborting retry."
    )
