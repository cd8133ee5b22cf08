"""Feeding a `Metrics` every kind of event, so every series exists (and every alert fires)."""

from __future__ import annotations

import itertools

from classifier.intent import INTENTS
from router.metrics import Metrics
from router.record import Attempt, Record, Usage


class ChattyLedger:
    """A ledger source that drops a record on every scrape, so the drop alert can fire."""

    def __init__(self) -> None:
        self._reads = itertools.count(1)
        self.queue_depth = 3
        self.pending_rows = 5  # writes failing: the held-rows alert can fire
        self.last_flush_seconds = 0.004
        self.flush_running_seconds = 600.0  # a write that hangs: the stuck-flush alert fires
        self.written_total = 100

    @property
    def dropped_total(self) -> int:
        return next(self._reads)


class ChattyTracing:
    """A span source that loses spans of both reasons on every scrape (the tracing alert)."""

    def __init__(self) -> None:
        self._reads = itertools.count(1)

    def dropped_spans(self) -> dict[str, int]:
        n = next(self._reads)
        return {"queue_full": n, "export_failed": 512 * n}


def feed(metrics: Metrics, n: int) -> None:
    """One round of every event the router reports, fallbacks in most requests."""
    for i, intent in enumerate(INTENTS):
        local_first = i % 2 == 0
        attempts = [
            Attempt("local", "local", outcome="error", error_kind="overloaded", duration_s=0.3),
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
            metrics.attempt_finished(a.backend, a.tier, a.outcome, a.error_kind)
        metrics.shadow_compared(intent, "cloud", "local", agreed=i % 2 == 0)
    # a cloud backend with no known price: served, its cost unknown (None), past local,
    # which waits out a 429 (SmfBackendRateLimited: its gauge is read at each scrape), and an
    # overloaded 503's wait on cloud2 (SmfBackendOverloaded)
    waits = {("local", "local"): 1800.0, ("cloud", "cloud"): 0.0}
    overloads = {("local", "local"): 0.0, ("cloud", "cloud"): 0.0, ("cloud2", "cloud"): 600.0}
    metrics.set_wait_source(lambda: {"rate_limited": waits, "overloaded": overloads})
    unpriced = Record(
        request_id=f"u{n}",
        started_at=0.0,
        intent="math",
        route="math",
        backend="cloud",
        tier="cloud",
        attempts=[Attempt("local", "local", "skipped", "rate_limited"), Attempt("cloud", "cloud")],
        cost_usd=None,
        counterfactual_usd=None,
    )
    metrics.record_finished(unpriced)
    # a failed request: 1 in 9 of those planned (SmfRequestsFailing)
    failed = Record(request_id=f"f{n}", started_at=0.0, intent="math", route="math")
    failed.outcome, failed.error_kind, failed.status = "upstream_error", "unreachable", 502
    metrics.record_finished(failed)
    # a bad body on chat (refused with a record, `router.api.refusal`), and one elsewhere
    refused = Record(request_id=f"k{n}", started_at=0.0, caller="alice")
    refused.outcome, refused.error_kind, refused.status = "client_error", "invalid_request", 400
    metrics.record_finished(refused)
    metrics.rejected_request("chat", 400)
    metrics.rejected_request("other", 401)
    metrics.shadow_dropped("queue_full")
    # a reload that left a setting for the restart, then a refused file: both alerts can fire
    metrics.config_reloaded(ok=True, at=0.0, restart_needed=True)
    metrics.config_reloaded(ok=False, at=0.0)
    metrics.backend_state("local", "local", up=False, circuit="open")
    metrics.backend_state("cloud", "cloud", up=True, circuit="closed")
    metrics.backend_state("cloud2", "cloud", up=False, circuit="open")  # SmfCloudBackendDown
    metrics.capacity("local", running=30, waiting=4, kv_cache_usage=0.93)
    ts = 1_764_000_000
    metrics.canary_result("local", "math", pass_ratio=0.25, lower=0.1, floor=0.5, ts=ts)
    metrics.canary_result("local", "coding", pass_ratio=0.9, lower=0.7, floor=0.6, ts=ts)
    metrics.canary_result("local", "prose", pass_ratio=0.5, lower=0.2, floor=None, ts=ts)
    metrics.route_gated("local", "math", gated=True)
    # every case of local's tool_calling an error (SmfCanaryBlind); the rest graded
    metrics.canary_cases_expected(["local", "cloud"], ["math", "tool_calling"])
    metrics.canary_suites_loaded({"math": 0, "tool_calling": 1})  # one case has a mistake
    metrics.canary_cases("local", "tool_calling", "error", "transport", 3)
    metrics.canary_cases("local", "math", "pass", None, 2)
    metrics.canary_cases("local", "math", "fail", None)
    metrics.canary_cases("cloud", "math", "error", "timeout")
    metrics.canary_cases("cloud", "math", "pass", None, 2)
    metrics.canary_cases("cloud", "tool_calling", "pass", None, 3)
