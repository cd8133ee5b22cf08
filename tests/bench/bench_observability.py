"""Benchmark: what metrics and tracing add to one request, and how long a /metrics scrape takes.

Per request it does exactly what the router does: two attempts (a fallback), classification,
the finished record; with tracing, the request span, classify, two attempt (client) spans
with `traceparent` injection, the ledger span and `finish_request`, exported over real
OTLP/HTTP to a receiver on 127.0.0.1. The scrape renders a registry with every label combination of
a busy router populated. Run: ``.venv/bin/python tests/bench/bench_observability.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "observability"))

from metrics_feed import ChattyLedger

from classifier.intent import INTENTS
from router.config import Backend
from router.metrics import Metrics
from router.record import Attempt, Record, Usage
from router.tracing import Tracing

N = 20_000
SCRAPES = 50


def record(i: int) -> Record:
    intent = INTENTS[i % len(INTENTS)]
    return Record(
        request_id=f"r{i}",
        started_at=0.0,
        intent=intent,
        confidence=0.8,
        route=intent,
        backend="cloud",
        tier="cloud",
        served_model="gpt-4o",
        attempts=[
            Attempt("local", "local", outcome="error", error_kind="overloaded", duration_s=0.1),
            Attempt("cloud", "cloud", duration_s=1.0),
        ],
        fallback_reason="overloaded",
        stream=i % 2 == 0,
        usage=Usage(prompt_tokens=900, completion_tokens=120),
        ttft_s=0.3,
        duration_s=1.2,
        cost_usd=0.004,
        counterfactual_usd=0.004,
    )


SETTINGS = {  # what each attempt is made with (`Tracing.start_attempt`)
    "local": Backend(name="local", tier="local", base_url="http://10.0.0.5:8000/v1", model="m"),
    "cloud": Backend(name="cloud", tier="cloud", base_url="https://api.openai.com/v1", model="m"),
}


def one_request(metrics: Metrics | None, tracing: Tracing, rec: Record) -> None:
    span = tracing.start_request("chat", "auto")
    child = tracing.start_child(span, "classify")
    if metrics:
        metrics.classified(rec.intent, rec.confidence, 0.0003)
    tracing.end(child, {"smf.intent": rec.intent, "smf.confidence": rec.confidence})
    for a in rec.attempts:
        attempt = tracing.start_attempt(span, SETTINGS[a.backend])
        headers: dict[str, str] = {}
        tracing.inject(attempt, headers)
        if metrics:
            metrics.attempt_started(a.backend, a.tier)
            metrics.attempt_finished(a.backend, a.tier, a.outcome, a.error_kind)
        tracing.end(attempt, error=a.error_kind)
    handoff = tracing.start_child(span, "ledger")
    tracing.end(handoff)
    if metrics:
        metrics.record_finished(rec)
    tracing.finish_request(span, rec, ["stop"])


class DiscardingShipper:
    """Tracing's hot path without the export thread."""

    def submit(self, span: object) -> None:
        pass

    def shutdown(self) -> None:
        pass


def per_request_us(fn: Callable[[Record], None]) -> tuple[float, float, float]:
    """(CPU p50, CPU p99, wall p50) microseconds per call over N records, after a warm-up.

    CPU time (this thread's) is the honest cost on a shared, busy machine; wall time also
    counts the moments the scheduler or the exporter thread took the core away.
    """
    records = [record(i) for i in range(N)]
    for r in records[:500]:
        fn(r)
    cpu, wall = [], []
    for r in records:
        t0, c0 = time.perf_counter_ns(), time.thread_time_ns()
        fn(r)
        cpu.append(time.thread_time_ns() - c0)
        wall.append(time.perf_counter_ns() - t0)
    cpu.sort()
    wall.sort()
    return cpu[N // 2] / 1000, cpu[int(N * 0.99)] / 1000, wall[N // 2] / 1000


def receiver() -> tuple[str, ThreadingHTTPServer]:
    class Sink(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


def busy_registry() -> Metrics:
    """Every intent × backend × outcome × stream combination a busy router would show."""
    m = Metrics()
    m.set_ledger_source(ChattyLedger())
    backends = [("local", "local"), ("cloud", "cloud"), ("spare", "local"), ("cloud2", "cloud")]
    outcomes = ("ok", "upstream_error", "client_error")
    i = 0
    for intent in INTENTS:
        for backend, tier in backends:
            for outcome in outcomes:
                for stream in (True, False):
                    r = record(i)
                    r.intent, r.route, r.backend, r.tier = intent, intent, backend, tier
                    r.outcome, r.stream, r.error_kind = outcome, stream, "timeout"  # type: ignore[assignment]
                    m.record_finished(r)
                    i += 1
            m.classified(intent, 0.7, 0.0002)
            m.route_gated(backend, intent, False)
            m.canary_result(backend, intent, pass_ratio=0.8, lower=0.58, floor=0.6, ts=1.7e9)
            m.shadow_compared(intent, "cloud", backend, True)
    for backend, tier in backends:
        m.backend_state(backend, tier, True, "closed")
        m.capacity(backend, 3, 1, 0.4)
        for kind in ("timeout", "overloaded", "unreachable", None):
            m.attempt_started(backend, tier)
            m.attempt_finished(backend, tier, "error" if kind else "ok", kind)
    return m


def calibration_ms() -> float:
    """CPU ms of a fixed pure-Python loop: about 40 ms on an idle 2020s x86 core."""
    c0 = time.process_time()
    sum(i * i for i in range(1_000_000))
    return (time.process_time() - c0) * 1000


def main() -> None:
    print(f"calibration loop: {calibration_ms():.0f} ms CPU (≈40 ms on an idle core)")
    off = Tracing.disabled()
    base = per_request_us(lambda r: one_request(None, off, r))
    only = Metrics()
    metrics_only = per_request_us(lambda r: one_request(only, off, r))
    discarding = Tracing(DiscardingShipper())  # type: ignore[arg-type]
    spans_only = per_request_us(lambda r: one_request(only, discarding, r))
    url, server = receiver()
    # The exporter's queue, not the hot path, is what 20k back-to-back requests would overflow.
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": url, "OTEL_BSP_MAX_QUEUE_SIZE": str(6 * N)}
    tracing = Tracing.from_env(env)
    m = Metrics()
    c0 = time.process_time()
    both = per_request_us(lambda r: one_request(m, tracing, r))
    tracing.shutdown()  # waits for the export thread to send every span
    process_us = (time.process_time() - c0) / (N + 500) * 1e6
    server.shutdown()
    print(f"per request over {N} requests (2 attempts each), µs: CPU p50 / CPU p99 / wall p50")
    for name, r in (
        ("nothing on (call overhead)", base),
        ("metrics on, tracing off", metrics_only),
        ("metrics on, spans discarded", spans_only),
        ("metrics on, tracing on (OTLP)", both),
    ):
        print(f"  {name:30} {r[0]:7.1f} / {r[1]:7.1f} / {r[2]:7.1f}")
    print(f"  with tracing, whole-process CPU per request incl. export: {process_us:.0f} µs")

    reg = busy_registry()
    body, _ = reg.render()
    series = sum(1 for line in body.decode().splitlines() if line and not line.startswith("#"))
    cpu, wall = [], []
    for _ in range(SCRAPES):
        t0, c0 = time.perf_counter(), time.process_time()
        reg.render()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    print(
        f"scrape: {series} series, {len(body) / 1024:.0f} KiB, median CPU "
        f"{statistics.median(cpu) * 1000:.1f} ms, median wall {statistics.median(wall) * 1000:.1f}"
        f" ms, max wall {max(wall) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
