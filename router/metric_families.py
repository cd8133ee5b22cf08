"""The router's metric families: each one's name, help text, labels and buckets, in one place.

`router.metrics.Metrics` is built on these and updates them as events happen; the ledger's
and the process's families, read at scrape time, are `router.metrics_scraped`'s.
`docs/metrics.md` documents each metric; a test keeps that page, this code and the dashboards
in agreement.
"""

from __future__ import annotations

from router.metric_labels import RELOAD_OUTCOMES, SHADOW_DROP_REASONS
from router.metric_store import Family, HistogramFamily

P = "smf_router_"

# LLM-sized buckets (prometheus_client's defaults stop at 10 s; see FACTS.md).
TTFT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
DURATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200)
TPOT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5, 1)
CONFIDENCE_BUCKETS = (0.1, 0.2, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
CLASSIFY_BUCKETS = (5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1)


class MetricFamilies:
    """The families, as attributes. The `_define_*` methods create them, and the order
    `Metrics.__init__` calls them in is the order they are rendered."""

    _families: list[Family]

    def _counter(self, name: str, doc: str, labels: tuple[str, ...]) -> Family:
        self._families.append(Family(P + name, doc, "counter", labels))
        return self._families[-1]

    def _gauge(self, name: str, doc: str, labels: tuple[str, ...]) -> Family:
        self._families.append(Family(P + name, doc, "gauge", labels))
        return self._families[-1]

    def _histogram(
        self, name: str, doc: str, labels: tuple[str, ...], buckets: tuple[float, ...]
    ) -> HistogramFamily:
        self._families.append(HistogramFamily(P + name, doc, labels, buckets))
        return self._families[-1]  # type: ignore[return-value]

    def _define_demo(self) -> None:
        # Demo mode's fake traffic must not pass for real on a dashboard (alert SmfRouterDemo).
        self.demo = self._gauge(
            "demo", "1 when the router runs in demo mode: every backend is a simulator.", ()
        )

    def _define_config(self) -> None:
        # As Prometheus reports its own config (`prometheus_config_last_reload_successful`):
        # a refused reload keeps the old config serving, and the file on disk, which the next
        # restart reads, differs from it unseen (alert SmfRouterConfigReloadFailed).
        self.config_reload_ok = self._gauge(
            "config_last_reload_successful",
            "0 when the last config reload was refused (the running config is older than "
            "the file); 1 when it applied, and from start until the first reload.",
            (),
        )
        self.config_loaded_at = self._gauge(
            "config_last_reload_success_timestamp_seconds",
            "When the running config was loaded: at start, or by the last reload that "
            "applied (unix time).",
            (),
        )
        # A reload that applied but left settings read at start only (ledger.path, server,
        # resilience.enabled, ...) reads 1 above, yet the file and what runs differ until a
        # restart (found in re-review).
        self.config_restart_needed = self._gauge(
            "config_restart_needed",
            "1 while a config reload that applied left settings that only a restart applies "
            "(the reload's restart_needed); 0 from start, and after a reload that left none.",
            (),
        )
        # The gauges say how the last attempt ended: a file refused, then fixed a minute
        # later, left no trace in them (nor an alert, which waits 5 minutes). Each attempt
        # counts here, one from a router with no file to re-read too (refused all the same).
        self.config_reloads = self._counter(
            "config_reloads_total",
            "Config reload attempts (SIGHUP or POST /v1/router/reload), by outcome: applied, "
            "or rejected (the running config stays).",
            ("outcome",),
        )
        for outcome in RELOAD_OUTCOMES:  # a closed set: show zeros
            self.config_reloads.inc((outcome,), 0)

    def _define_requests(self) -> None:
        where = ("intent", "route", "backend", "tier")
        self.requests = self._counter(
            "requests_total", "Client requests, by how they ended.", (*where, "outcome", "stream")
        )
        self.errors = self._counter(
            "errors_total",
            "Client requests that failed, by error kind.",
            ("intent", "outcome", "kind"),
        )
        self.rejected = self._counter(
            "rejected_requests_total",
            "Requests the router refused itself before choosing a backend, by API and status.",
            ("api", "status"),
        )
        self.fallbacks = self._counter(
            "fallbacks_total",
            "Moves from a failed backend to the next one in the plan.",
            ("from_backend", "to_backend", "reason"),
        )
        self.fallback_requests = self._counter(
            "fallback_requests_total",
            "Client requests that moved to another backend at least once.",
            where,
        )
        self.duration = self._histogram(
            "request_duration_seconds",
            "Whole request time, arrival to last byte.",
            ("intent", "backend", "tier", "stream"),
            DURATION_BUCKETS,
        )
        self.ttft = self._histogram(
            "time_to_first_token_seconds",
            "Arrival to the first content byte sent to the client.",
            ("intent", "backend", "tier"),
            TTFT_BUCKETS,
        )
        self.tpot = self._histogram(
            "time_per_output_token_seconds",
            "Decode time per output token after the first.",
            ("backend", "tier"),
            TPOT_BUCKETS,
        )
        self.prompt_tokens = self._counter("prompt_tokens_total", "Prompt tokens.", where)
        self.completion_tokens = self._counter("completion_tokens_total", "Output tokens.", where)
        self.cost = self._counter("cost_usd_total", "What requests actually cost.", where)
        self.counterfactual = self._counter(
            "counterfactual_usd_total", "What the route's cloud backend would have charged.", where
        )
        self.offloaded = self._counter(
            "offloaded_usd_total", "Counterfactual minus cost, for locally served requests.", where
        )
        # Their dollars are in none of the three above: without a count of its own, an
        # unpriced cloud backend read as $0 on the cost dashboard, as if it were free.
        self.unpriced = self._counter(
            "unpriced_requests_total",
            "Served requests whose cost or counterfactual is unknown (a cloud backend with no "
            "price), left out of the dollar counters.",
            where,
        )
        self.confidence = self._histogram(
            "classifier_confidence",
            "Classifier confidence per chosen intent.",
            ("intent",),
            CONFIDENCE_BUCKETS,
        )
        self.classify_time = self._histogram(
            "classifier_duration_seconds", "Time to classify one request.", (), CLASSIFY_BUCKETS
        )

    def _define_backends(self) -> None:
        self.inflight = self._gauge(
            "backend_inflight_requests", "Attempts in flight per backend.", ("backend", "tier")
        )
        self.attempts = self._counter(
            "attempts_total", "Calls to backends.", ("backend", "tier", "outcome", "error_kind")
        )
        self.attempt_time = self._histogram(
            "attempt_duration_seconds",
            "Time of one call to one backend.",
            ("backend", "tier", "outcome"),
            DURATION_BUCKETS,
        )
        # The outage's state, not the probe's: live requests open the circuit too (a refusal,
        # a hang, 5xx), and a backend whose /health passes reads 0 until a live request
        # succeeds there (`Resilience._up`).
        self.up = self._gauge(
            "backend_up",
            "0 from its circuit's opening until a live request succeeds on the backend again "
            "(a passing probe counts after 15 min with no failure), else 1.",
            ("backend", "tier"),
        )
        self.circuit = self._gauge(
            "backend_circuit_state",
            "1 for the circuit breaker's current state, 0 for the others.",
            ("backend", "tier", "state"),
        )
        # A backend the plan passes by is never called, so no attempt counter moves: one
        # waiting out a 429 read 1 in `up`, closed in `circuit` and 0/s in attempts, as if
        # no traffic came, while a route of it alone failed every request (found in review).
        self.skips = self._counter(
            "backend_skips_total",
            "Backends passed by, once per request each, by the plan's reason (circuit_open, "
            "rate_limited, quality_gate, private, context_window, ...).",
            ("backend", "tier", "reason"),
        )
        self.rate_limited = self._gauge(  # read at scrape time (`Metrics.set_wait_source`)
            "backend_rate_limited_seconds",
            "Seconds left of the wait a 429's Retry-After asked for, during which every plan "
            "passes the backend by; 0 when none runs.",
            ("backend", "tier"),
        )
        # An overloaded backend's 503 (or 529) asks for a wait as a 429 does, for up to an
        # hour, kept apart from it: status showed overloaded_for_s 3599.9 while the gauge
        # above read 0, `up` 1 and the circuit closed (found in review).
        self.overloaded = self._gauge(  # read at scrape time, as the one above
            "backend_overloaded_seconds",
            "Seconds left of the wait an overloaded backend's 503 or 529 Retry-After asked "
            "for, during which every plan passes the backend by; 0 when none runs.",
            ("backend", "tier"),
        )
        self.running = self._gauge(
            "backend_running_requests", "Requests the backend reports running.", ("backend",)
        )
        self.waiting = self._gauge(
            "backend_waiting_requests", "Requests the backend reports queued.", ("backend",)
        )
        self.kv_cache = self._gauge(
            "backend_kv_cache_usage_ratio", "KV-cache use the backend reports, 0-1.", ("backend",)
        )

    def _define_quality(self) -> None:
        bs = ("backend", "suite")
        self.canary_pass = self._gauge("canary_pass_ratio", "Canary pass rate over the window.", bs)
        self.canary_lower = self._gauge(
            "canary_pass_lower_bound_ratio",
            "Wilson lower bound (95%) of the pass rate, which a gate compares with the floor.",
            bs,
        )
        self.canary_floor = self._gauge(
            "canary_floor_ratio", "Pass-rate floor, for suites that have one.", bs
        )
        self.canary_last = self._gauge(
            "canary_last_run_timestamp_seconds",
            "When the canary last graded this suite on this backend (unix time).",
            bs,
        )
        # Errors never enter a gate's window (`router.gating`): a backend that answers every
        # case with an error leaves its gates and gauges frozen as they were, and only this
        # count shows it (alert SmfCanaryBlind).
        self.case_outcomes = self._counter(
            "canary_cases_total",
            "Canary cases asked, by outcome: passed, failed (graded) or error (not graded, "
            "by kind).",
            ("backend", "suite", "status", "error_kind"),
        )
        # A round that passes its backend by asks no case, or stops asking when a wait meets
        # it (`router.canary_wait`), and the cases it stopped are in no count above: a
        # provider whose per-minute limit answered every round's first case with a long
        # Retry-After left the canary grading nothing, with no count moving and no alert
        # (found in review). Counted here (alert SmfCanaryBlind, nothing graded beside it).
        self.canary_skipped = self._counter(
            "canary_rounds_skipped_total",
            "Canary rounds that passed a backend by, at their start or part way (a wait it "
            "asked for stopped the round), by reason: circuit_open, rate_limited, overloaded, "
            "saturated, unsupported_kind.",
            ("backend", "reason"),
        )
        # A case with a mistake loads N/A and is never asked (`evals.suite_flaws`): in no
        # count above, so a suite of only such cases went quiet (alert
        # SmfCanaryCasesNotRunnable).
        self.cases_not_runnable = self._gauge(
            "canary_cases_not_runnable",
            "Canary cases of a loaded suite that never run because of a mistake in the case "
            "(a tool_call expected key the grader never reads, a tool not offered, both "
            "prompt and messages): those `smf-router config check` says are `not run (N/A "
            "until fixed)`; not those N/A for an evaluator this host cannot run, nor those "
            "it warns of that run. Set at each load of the suites.",
            ("suite",),
        )
        self.gated = self._gauge(
            "route_gated",
            "1 when canary quality turned an intent away from a backend.",
            ("backend", "intent"),
        )
        self.shadow = self._counter(
            "shadow_comparisons_total",
            "Shadow replays compared with the live answer.",
            ("intent", "live_backend", "shadow_backend", "result"),
        )
        self.shadow_drops = self._counter(
            "shadow_dropped_total",
            "Sampled shadow replays never compared: not sent, or sent with no answer to compare.",
            ("reason",),
        )
        for reason in (*sorted(SHADOW_DROP_REASONS), "other"):  # a closed set: show zeros
            self.shadow_drops.inc((reason,), 0)
