"""Prometheus metrics: what the router counts, and the one place their names are defined.

Every label value comes from a closed set (intents, outcomes, error kinds, tiers) or from the
config (backend, route, suite names); nothing a caller sends becomes a label. Label children
are cached per label tuple, because `.labels()` costs more than the increment it resolves.
`docs/metrics.md` documents each metric; a test keeps that page, this code and the dashboards
in agreement.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise
from typing import Any, Literal, Protocol, get_args

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from classifier.intent import INTENTS
from router.record import AttemptOutcome, ErrorKind, Outcome, Record

P = "smf_router_"

# LLM-sized buckets (prometheus_client's defaults stop at 10 s; see FACTS.md).
TTFT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120)
DURATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200)
TPOT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5, 1)
CONFIDENCE_BUCKETS = (0.1, 0.2, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
CLASSIFY_BUCKETS = (5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1)

Circuit = Literal["closed", "open", "half_open"]
CIRCUIT_STATES: tuple[Circuit, ...] = ("closed", "open", "half_open")
OUTCOMES = frozenset(get_args(Outcome))
ATTEMPT_OUTCOMES = frozenset(get_args(AttemptOutcome))
ERROR_KINDS = frozenset(get_args(ErrorKind))
SHADOW_DROP_REASONS = frozenset(
    {"queue_full", "private", "not_allowed", "error", "timeout", "shutdown", "no_target"}
)
_INTENTS = frozenset(INTENTS)


class LedgerSource(Protocol):
    """What the ledger writer exposes; read at scrape time, never on the request path."""

    @property
    def queue_depth(self) -> int: ...
    @property
    def last_flush_seconds(self) -> float: ...
    @property
    def dropped_total(self) -> int: ...
    @property
    def written_total(self) -> int: ...


def _closed(value: str | None, allowed: frozenset[str], empty: str = "none") -> str:
    """Map a value into its closed label set: empty → `none`, unknown → `other`."""
    if not value:
        return empty
    return value if value in allowed else "other"


def _intent(value: str | None) -> str:
    return _closed(value, _INTENTS)


def _name(value: str | None) -> str:
    """Config-bounded names (backend, route, suite); None or empty becomes `none`."""
    return value or "none"


class _LedgerCollector(Collector):
    """Reads the ledger writer's counters at scrape time."""

    def __init__(self) -> None:
        self.source: LedgerSource | None = None

    def describe(self) -> Iterable[Metric]:
        return list(self._families(None))

    def collect(self) -> Iterable[Metric]:
        return list(self._families(self.source)) if self.source is not None else []

    @staticmethod
    def _families(src: LedgerSource | None) -> Iterable[Metric]:
        def val(attr: str) -> float | None:
            return None if src is None else float(getattr(src, attr))

        yield GaugeMetricFamily(
            P + "ledger_queue_depth", "Records waiting to be written.", val("queue_depth")
        )
        yield GaugeMetricFamily(
            P + "ledger_last_flush_seconds",
            "How long the last ledger flush took.",
            val("last_flush_seconds"),
        )
        yield CounterMetricFamily(
            P + "ledger_dropped_records", "Records the ledger had to drop.", val("dropped_total")
        )
        yield CounterMetricFamily(
            P + "ledger_written_records", "Records written to the ledger.", val("written_total")
        )


class Metrics:
    """The router's metrics, on its own registry (a fresh one per test)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self._cache: dict[tuple[Any, ...], Any] = {}
        self._define_requests()
        self._define_backends()
        self._define_quality()
        self._ledger = _LedgerCollector()
        self.registry.register(self._ledger)

    def _counter(self, name: str, doc: str, labels: tuple[str, ...]) -> Counter:
        return Counter(P + name, doc, labels, registry=self.registry)

    def _gauge(self, name: str, doc: str, labels: tuple[str, ...]) -> Gauge:
        return Gauge(P + name, doc, labels, registry=self.registry)

    def _histogram(
        self, name: str, doc: str, labels: tuple[str, ...], buckets: tuple[float, ...]
    ) -> Histogram:
        return Histogram(P + name, doc, labels, registry=self.registry, buckets=buckets)

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
        self.fallbacks = self._counter(
            "fallbacks_total",
            "Moves from a failed backend to the next one in the plan.",
            ("from_backend", "to_backend", "reason"),
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
        self.up = self._gauge(
            "backend_up", "1 when the backend's health check passes.", ("backend", "tier")
        )
        self.circuit = self._gauge(
            "backend_circuit_state",
            "1 for the circuit breaker's current state, 0 for the others.",
            ("backend", "tier", "state"),
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
        self.canary_floor = self._gauge("canary_floor_ratio", "Configured pass-rate floor.", bs)
        self.canary_last = self._gauge(
            "canary_last_run_timestamp_seconds", "When the canary last ran (unix time).", bs
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
            "shadow_dropped_total", "Shadow replays not sent.", ("reason",)
        )

    def _child(self, metric: Any, *labels: str) -> Any:
        key = (id(metric), *labels)
        child = self._cache.get(key)
        if child is None:
            child = self._cache[key] = metric.labels(*labels)
        return child

    def attempt_started(self, backend: str, tier: str) -> None:
        self._child(self.inflight, backend, tier).inc()

    def attempt_finished(
        self,
        backend: str,
        tier: str,
        outcome: str,
        error_kind: str | None = None,
        seconds: float | None = None,
    ) -> None:
        """End an attempt begun with `attempt_started`; `seconds` adds to the duration histogram."""
        out = _closed(outcome, ATTEMPT_OUTCOMES)
        self._child(self.inflight, backend, tier).dec()
        self._child(self.attempts, backend, tier, out, _closed(error_kind, ERROR_KINDS)).inc()
        if seconds is not None:
            self._child(self.attempt_time, backend, tier, out).observe(seconds)

    def record_finished(self, record: Record) -> None:
        """Count one finished client request from its record."""
        intent, backend = _intent(record.intent), _name(record.backend)
        tier, route = _name(record.tier), _name(record.route)
        stream = "true" if record.stream else "false"
        outcome = _closed(record.outcome, OUTCOMES)
        self._child(self.requests, intent, route, backend, tier, outcome, stream).inc()
        if outcome != "ok":
            kind = _closed(record.error_kind, ERROR_KINDS)
            self._child(self.errors, intent, outcome, kind).inc()
        self._count_fallbacks(record)
        self._child(self.duration, intent, backend, tier, stream).observe(record.duration_s)
        if record.ttft_s is not None:
            self._child(self.ttft, intent, backend, tier).observe(record.ttft_s)
            out = record.usage.completion_tokens
            if out > 1 and record.duration_s > record.ttft_s:
                per_token = (record.duration_s - record.ttft_s) / (out - 1)
                self._child(self.tpot, backend, tier).observe(per_token)
        self._count_money(record, (intent, route, backend, tier))

    def _count_money(self, record: Record, where: tuple[str, ...]) -> None:
        usage = record.usage
        if usage.prompt_tokens:
            self._child(self.prompt_tokens, *where).inc(usage.prompt_tokens)
        if usage.completion_tokens:
            self._child(self.completion_tokens, *where).inc(usage.completion_tokens)
        if record.cost_usd > 0:
            self._child(self.cost, *where).inc(record.cost_usd)
        if record.counterfactual_usd > 0:
            self._child(self.counterfactual, *where).inc(record.counterfactual_usd)
        saved = record.counterfactual_usd - record.cost_usd
        if record.tier == "local" and saved > 0:
            # A local request that cost more than the cloud would have offloaded nothing;
            # the exact net is counterfactual_usd_total - cost_usd_total.
            self._child(self.offloaded, *where).inc(saved)

    def _count_fallbacks(self, record: Record) -> None:
        tried = [a for a in record.attempts if a.outcome != "skipped"]
        for prev, nxt in pairwise(tried):
            reason = _closed(prev.error_kind, ERROR_KINDS, empty="other")
            self._child(self.fallbacks, prev.backend, nxt.backend, reason).inc()

    def classified(self, label: str, confidence: float, seconds: float) -> None:
        self._child(self.confidence, _intent(label)).observe(confidence)
        self.classify_time.observe(seconds)

    def backend_state(self, backend: str, tier: str, up: bool, circuit: Circuit) -> None:
        self._child(self.up, backend, tier).set(1 if up else 0)
        for state in CIRCUIT_STATES:
            self._child(self.circuit, backend, tier, state).set(1 if state == circuit else 0)

    def capacity(
        self,
        backend: str,
        running: float | None,
        waiting: float | None,
        kv_cache_usage: float | None,
    ) -> None:
        """Set what a backend reports about its load; None leaves a gauge unchanged."""
        for gauge, value in (
            (self.running, running),
            (self.waiting, waiting),
            (self.kv_cache, kv_cache_usage),
        ):
            if value is not None:
                self._child(gauge, backend).set(value)

    def set_ledger_source(self, source: LedgerSource | None) -> None:
        self._ledger.source = source

    def canary_result(
        self, backend: str, suite: str, pass_ratio: float, floor: float, ts: float
    ) -> None:
        self._child(self.canary_pass, backend, suite).set(pass_ratio)
        self._child(self.canary_floor, backend, suite).set(floor)
        self._child(self.canary_last, backend, suite).set(ts)

    def route_gated(self, backend: str, intent: str, gated: bool) -> None:
        self._child(self.gated, backend, _intent(intent)).set(1 if gated else 0)

    def shadow_compared(
        self, intent: str, live_backend: str, shadow_backend: str, agreed: bool | None
    ) -> None:
        result = "undecided" if agreed is None else ("agreed" if agreed else "disagreed")
        self._child(self.shadow, _intent(intent), live_backend, shadow_backend, result).inc()

    def shadow_dropped(self, reason: str) -> None:
        self._child(self.shadow_drops, _closed(reason, SHADOW_DROP_REASONS)).inc()

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type, for `GET /metrics`."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
