"""Every dashboard panel and alert rule, evaluated by a real Prometheus.

Two sources of metrics: (1) a `Metrics` registry fed every kind of event, served over HTTP,
which also makes every alert fire; (2) a real router (`smf-router serve`) in front of the
simulator, serving traffic across all intents with injected faults.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from dashboard_queries import ALERTS, PROMETHEUS_EXAMPLE, Query, alert_queries, all_queries
from prometheus_server import Prometheus, free_port, promtool, require_prometheus

from classifier.intent import INTENTS
from router.metrics import Metrics
from router.record import Attempt, Record, Usage

pytestmark = pytest.mark.slow


def test_promtool_accepts_the_alert_rules_and_example_config() -> None:
    require_prometheus()
    rules = promtool("check", "rules", str(ALERTS))
    assert rules.returncode == 0, rules.stdout + rules.stderr
    config = promtool("check", "config", str(PROMETHEUS_EXAMPLE))
    assert config.returncode == 0, config.stdout + config.stderr


class ChattyLedger:
    """A ledger source that drops a record on every scrape, so the drop alert can fire."""

    def __init__(self) -> None:
        self._reads = itertools.count(1)
        self.queue_depth = 3
        self.last_flush_seconds = 0.004
        self.written_total = 100

    @property
    def dropped_total(self) -> int:
        return next(self._reads)


def feed(metrics: Metrics, n: int) -> None:
    """One round of every event the router reports, fallbacks in most requests."""
    for i, intent in enumerate(INTENTS):
        local_first = i % 2 == 0
        attempts = [
            Attempt("local", "local", outcome="error", error_kind="overloaded"),
            Attempt("cloud", "cloud"),
        ]
        served = attempts[1] if local_first else Attempt("local", "local")
        record = Record(
            request_id=f"r{n}-{i}",
            started_at=0.0,
            intent=intent,
            route=intent,
            backend=served.backend,
            tier=served.tier,
            attempts=attempts if local_first else [served],
            stream=i % 3 == 0,
            usage=Usage(prompt_tokens=100 + n, completion_tokens=40),
            ttft_s=0.2,
            duration_s=1.4,
            cost_usd=0.002 if served.tier == "cloud" else 0.0001,
            counterfactual_usd=0.002,
        )
        metrics.record_finished(record)
        metrics.classified(intent, 0.8, 0.0003)
        for a in record.attempts:
            metrics.attempt_started(a.backend, a.tier)
            metrics.attempt_finished(a.backend, a.tier, a.outcome, a.error_kind, 0.7)
        metrics.shadow_compared(intent, "cloud", "local", agreed=i % 2 == 0)
    failed = Record(request_id=f"f{n}", started_at=0.0, intent="math", route="math")
    failed.outcome, failed.error_kind, failed.status = "upstream_error", "unreachable", 502
    metrics.record_finished(failed)
    metrics.shadow_dropped("queue_full")
    metrics.backend_state("local", "local", up=False, circuit="open")
    metrics.backend_state("cloud", "cloud", up=True, circuit="closed")
    metrics.capacity("local", running=30, waiting=4, kv_cache_usage=0.93)
    metrics.canary_result("local", "math", pass_ratio=0.25, floor=0.5, ts=1_764_000_000)
    metrics.canary_result("local", "coding", pass_ratio=0.9, floor=0.6, ts=1_764_000_000)
    metrics.route_gated("local", "math", gated=True)


@pytest.fixture
def fed_exporter() -> Iterator[str]:
    """An HTTP /metrics endpoint whose counters grow on every scrape."""
    metrics = Metrics()
    metrics.set_ledger_source(ChattyLedger())
    rounds = itertools.count()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            feed(metrics, next(rounds))
            body, ctype = metrics.render()
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def prometheus_factory(tmp_path: Path) -> Iterator[Any]:
    started: list[Prometheus] = []

    def start(jobs: dict[str, list[str]]) -> Prometheus:
        require_prometheus()
        prom = Prometheus(tmp_path, jobs, rule_file=ALERTS)
        started.append(prom)
        prom.wait_ready()
        return prom

    yield start
    for prom in started:
        prom.stop()


def problems(prom: Prometheus, queries: list[Query], pending: frozenset[str]) -> list[str]:
    """Why each query fails: invalid, unknown metric, or no series (unless pending)."""
    known = prom.metric_names()
    out: list[str] = []
    for q in queries:
        status, body = prom.query(q.expr)
        if status != 200 or body.get("status") != "success":
            out.append(f"{q.where}: invalid ({status}) {body.get('error')}: {q.expr}")
            continue
        if q.metrics & pending:
            continue
        missing = {m for m in q.metrics if m not in known}
        if missing:
            out.append(f"{q.where}: unknown metric(s) {sorted(missing)}: {q.expr}")
        elif not body["data"]["result"]:
            out.append(f"{q.where}: no series: {q.expr}")
    return out


def test_every_query_and_alert_fires_on_a_fed_registry(
    fed_exporter: str, prometheus_factory: Any
) -> None:
    dead = f"127.0.0.1:{free_port()}"  # a router that is down, for SmfRouterDown
    prom = prometheus_factory({"smf-router": [fed_exporter, dead]})
    prom.wait_for(f'count_over_time(up{{instance="{fed_exporter}"}}[1m])', 4)
    assert problems(prom, all_queries(), frozenset()) == []
    # every alert expression is true on this data: each rule can fire
    for q in alert_queries():
        assert prom.series(q.expr), f"{q.where} did not fire: {q.expr}"
    # and the checker itself catches each kind of mistake
    broken = [
        Query("typo", "sum(rate(smf_router_requests_totl[15s]))"),
        Query("syntax", "sum(rate(smf_router_requests_total[15s])"),
        Query("empty", 'smf_router_requests_total{intent="nonexistent"}'),
    ]
    found = problems(prom, broken, frozenset())
    assert [p.split(":")[0] for p in found] == ["typo", "syntax", "empty"]
    assert "unknown metric" in found[0] and "invalid (400)" in found[1] and "no series" in found[2]
