"""Spans lost while the OTLP collector is down: counted on /metrics, and logged rarely."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from router.span_export import (
    EXPORTER_LOGGER,
    SERVER,
    ExportLogLimiter,
    SpanRecord,
    readable,
)
from router.tracing import Tracing
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


TRANSIENT = "Transient error %s encountered while exporting %s batch, retrying in %.2fs."
GAVE_UP_ON = "Failed to export %s batch code: %s, reason: %s"


def test_the_limiter_passes_one_failure_line_per_interval_and_names_only_the_host() -> None:
    clock = Clock()
    limiter = ExportLogLimiter(
        "https://user:secret@otel.example:4318/v1/traces?token=abc", 600.0, clock
    )
    failed = "Failed to export %s batch due to timeout, max retries or shutdown."
    refused = ConnectionError("Max retries exceeded with url: /v1/traces?token=abc (refused)")
    first = record(TRANSIENT, refused, "spans", 1.05)
    assert limiter.filter(first)
    text = first.getMessage()
    assert text.startswith("OTLP collector at otel.example:4318 is not taking spans: Transient")
    assert "0 such exporter lines held back" in text
    assert "(refused)" in text  # the cause stays
    assert "secret" not in text and "abc" not in text and "user" not in text
    passed = 0
    for _ in range(1000):  # a burst of failed batches, each retried
        clock.now += 0.5
        passed += limiter.filter(record(TRANSIENT, ConnectionError("refused"), "spans", 2.0))
        passed += limiter.filter(record(failed, "spans"))
    assert passed == 0 and limiter.held_back == 2000
    clock.now = 1000.0 + 600.0
    later = record(TRANSIENT, ConnectionError("refused"), "spans", 2.0)  # the next batch
    assert limiter.filter(later)
    assert "2000 such exporter lines held back" in later.getMessage()
    # the exporter's other lines are rare and say something else: they pass as they are
    aborting = record("Shutdown in progress, aborting retry.")
    assert (
        limiter.filter(aborting)
        and aborting.getMessage() == "Shutdown in progress, aborting retry."
    )


def test_a_new_kind_of_failure_is_logged_at_once_and_each_kind_once_per_interval() -> None:
    """One window for every failure line hid a collector back but answering 401 (every batch
    lost, for good) behind the last "connection refused" line for up to 10 min (found in
    review)."""
    clock = Clock()
    limiter = ExportLogLimiter("http://collector:4318/v1/traces", 600.0, clock)
    assert limiter.filter(record(TRANSIENT, ConnectionError("refused"), "spans", 1.0))
    clock.now += 60
    unauthorized = record(GAVE_UP_ON, "spans", 401, "Unauthorized")
    assert limiter.filter(unauthorized)
    assert "code: 401, reason: Unauthorized (0 such" in unauthorized.getMessage()
    passed = 0
    for _ in range(50):
        clock.now += 5
        passed += limiter.filter(record(GAVE_UP_ON, "spans", 401, "Unauthorized"))
        passed += limiter.filter(record(TRANSIENT, ConnectionError("refused"), "spans", 1.0))
        # the end of the retries of a refused batch is of the refused kind
        passed += limiter.filter(record("Failed to export %s batch due to timeout.", "spans"))
    assert passed == 0 and limiter.held_back == 150
    clock.now = 1000.0 + 600.0  # the refused window is over, the 401 one not yet
    assert limiter.filter(record(TRANSIENT, ConnectionError("refused"), "spans", 1.0))
    assert not limiter.filter(record(GAVE_UP_ON, "spans", 401, "Unauthorized"))
    clock.now = 1000.0 + 660.0
    last = record(GAVE_UP_ON, "spans", 401, "Unauthorized")
    assert limiter.filter(last) and "51 such exporter lines held back" in last.getMessage()
    # a batch whose first try ran out the time, after a refused batch: a kind of its own
    assert limiter.filter(record("Failed to export %s batch due to timeout.", "spans"))


def test_a_token_in_the_cause_is_removed_before_the_line_is_cut() -> None:
    """The cause was cut to 300 characters first and the configured query removed after, by
    exact string: a long token crossing the cut stayed in the log, and so did one requests had
    re-quoted (`%7E` printed as `~`; both found in review)."""
    jwt = "eyJ" + "A" * 400 + "TAIL"
    limiter = ExportLogLimiter(
        f"http://alice:hunter2@otel.example:4318/v1/traces?access_token={jwt}&k=s3cr%2Dt%7Ev",
        600.0,
        Clock(),
    )
    cause = ConnectionError(
        "HTTPConnectionPool(host='otel.example', port=4318): Max retries exceeded with url: "
        f"/v1/traces?access_token={jwt}&k=s3cr-t~v (Caused by NewConnectionError('refused'))"
        " via http://alice:hunter2@otel.example:4318/v1/traces"
    )
    line = record(TRANSIENT, cause, "spans", 1.0)
    assert limiter.filter(line)
    text = line.getMessage()
    assert "eyJ" not in text and "s3cr" not in text and "hunter2" not in text, text
    assert "with url: /v1/traces?*** (Caused by" in text


def test_no_secret_of_the_endpoint_or_its_headers_reaches_the_log(
    refusing_endpoint: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The start logged the endpoint whole ("tracing on: OTLP/HTTP export to
    http://alice:hunter2@...?access_token=..."), the SDK quoted a malformed
    `OTEL_EXPORTER_OTLP_HEADERS` entry whole, token included, and the exporter's lines showed
    a token the limiter's cut had split or requests had re-quoted (found in review)."""
    jwt = "eyJ" + "A" * 400 + "TAIL"
    host = refusing_endpoint.removeprefix("http://")
    endpoint = f"http://alice:hunter2@{host}/v1/traces?access_token={jwt}&k=s3cr%2Dt%7Ev"
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization: Bearer hdr-secret")
    # one retry after ~1 s: the "Transient error" line, which quotes the URL, is logged
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "2")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with caplog.at_level(logging.INFO):
        tracing = Tracing._build(endpoint, {"OTEL_BSP_SCHEDULE_DELAY": "60000"})
        shipper = tracing._shipper
        assert shipper is not None
        span = SpanRecord("chat auto", 1, 1, None, SERVER, 1, end_ns=2)
        shipper._exporter.export([readable(span, shipper._resource)])  # refused, retried
        tracing.shutdown()
    text = "\n".join(r.getMessage() for r in caplog.records)
    for secret in ("hunter2", "eyJ", "s3cr", "hdr-secret"):
        assert secret not in text, text
    assert f"tracing on: OTLP/HTTP export to http://***@{host}/v1/traces?" in text
    assert "Authorization (its value is not shown)" in text
    assert f"OTLP collector at {host} is not taking spans: Transient error" in text
    assert "with url: /v1/traces?*** (Caused by" in text


@pytest.mark.parametrize(
    ("value", "secret"),
    [("sk-live-SECRETTOKEN123", "SECRETTOKEN123"), ("x-key=abc,SECRETPART2", "SECRETPART2")],
)
def test_a_headers_entry_without_a_name_is_not_shown(
    value: str, secret: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An entry with no `=` or `:` (the token alone, or a value's tail after a comma) was
    printed as "the name", secret and all (found in review)."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", value)
    with caplog.at_level(logging.INFO):
        Tracing._build("http://127.0.0.1:9/v1/traces", {}).shutdown()
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "Header format invalid" in text and secret not in text, text
    assert "characters without a name (not shown)" in text
