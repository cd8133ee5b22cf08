"""Prometheus metrics: what the router counts, as its events happen. The families (names,
help texts, labels, buckets) are defined in `router.metric_families`.

Every label value comes from a closed set or from the config (`router.metric_labels`);
nothing a caller sends becomes a label. The values live in `router.metric_store` (lock-free
dicts, updated from the event loop thread), because prometheus_client's objects cost more
per request and per scrape than the budget allows. The ledger's and the process's numbers
are read at scrape time (`router.metrics_scraped`), as are the spans tracing lost.
`docs/metrics.md` documents each metric; a test keeps that page, this code and the dashboards
in agreement.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence

from prometheus_client import CollectorRegistry

from router import metric_zeros
from router.backend_state import Wait
from router.metric_families import MetricFamilies
from router.metric_labels import (
    APIS,
    ATTEMPT_OUTCOMES,
    CANARY_ERROR_KINDS,
    CANARY_SKIP_REASONS,
    CANARY_STATUSES,
    CIRCUIT_STATES,
    ERROR_KINDS,
    OUTCOMES,
    SHADOW_DROP_REASONS,
    SHADOW_RESULTS,
    SKIP_REASONS,
    Circuit,
    closed,
    config_name,
    intent_label,
)
from router.metric_store import Family, FamilyCollector, render
from router.metrics_scraped import LedgerSource, ScrapedFamilies, SpanSource
from router.record import Record, ShadowDropReason, Usage, backend_moves

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_CANARY_KINDS = frozenset(CANARY_ERROR_KINDS)
_CANARY_SKIPS = frozenset(CANARY_SKIP_REASONS)
_SKIPS = frozenset(SKIP_REASONS)
# By what asked it (a 429, an overloaded 503), (backend, tier) -> seconds left of the wait,
# 0 for none: each configured backend's, read at scrape time
# (`router.resilience_status.asked_waits`)
WaitSource = Callable[[], Mapping[Wait, Mapping[tuple[str, str], float]]]


class Metrics(MetricFamilies):
    """The router's metrics. Call its methods from the event loop thread; `render()` may run
    anywhere. The families are also registered on `registry` (a fresh one per test)."""

    def __init__(self, registry: CollectorRegistry | None = None, *, demo: bool = False) -> None:
        self._families: list[Family] = []
        # The series `router.metric_zeros` created at 0 ahead of their first event, by
        # family name: a reload removes only those (still at 0, no longer expected).
        self.zeros: dict[str, set[tuple[str, ...]]] = {}
        self._define_demo()
        self.demo.set((), 1 if demo else 0)
        self._define_config()
        self._config_in_force(True, time.time())  # the config this process started with
        self._define_requests()
        metric_zeros.refusals(self)  # at 0, so the first shows (those of the config: build)
        metric_zeros.failures(self)
        self._define_backends()
        self._define_quality()
        self.scraped = ScrapedFamilies(self._gauge, self._counter)  # ledger and process
        self.wait_source: WaitSource | None = None
        self.registry = registry if registry is not None else CollectorRegistry()
        self.registry.register(FamilyCollector(self._families, self._read))
        # Whether a backend (name, tier) is in the running config (`components.build` sets
        # it): a reload may keep the name and change the tier, which labels the series too.
        self.configured: Callable[[str, str], bool] = lambda _, __: True

    def config_reloaded(
        self, ok: bool, at: float, restart_needed: bool = False, *, from_file: bool = True
    ) -> None:
        """A reload attempt (`router.reload`), from a SIGHUP or the endpoint: counted by
        outcome, and in the gauges whether it applied, and if it did, when (unix time) and
        whether it left settings waiting for a restart (a refused one leaves what runs, and
        so that flag, as it was). Not `from_file` (the router started from the environment
        or in demo mode): counted, but the gauges stay, as nothing can differ from a file."""
        self.config_reloads.inc(("applied" if ok else "rejected",))
        if from_file:
            self._config_in_force(ok, at, restart_needed)

    def _config_in_force(self, ok: bool, at: float, restart_needed: bool = False) -> None:
        self.config_reload_ok.set((), 1 if ok else 0)
        if ok:
            self.config_loaded_at.set((), at)
            self.config_restart_needed.set((), 1 if restart_needed else 0)

    def attempt_started(self, backend: str, tier: str) -> None:
        self.inflight.inc((backend, tier))

    def attempt_finished(
        self, backend: str, tier: str, outcome: str, error_kind: str | None = None
    ) -> None:
        """End an attempt begun with `attempt_started` (its duration comes from the record)."""
        key = (backend, tier)
        self.inflight.inc(key, -1)
        if self.inflight.values.get(key) == 0 and not self.configured(*key):
            self.inflight.remove(key)  # the last attempt on a backend a reload removed or moved
        out = closed(outcome, ATTEMPT_OUTCOMES)
        self.attempts.inc((backend, tier, out, closed(error_kind, ERROR_KINDS)))

    def record_finished(self, record: Record) -> None:
        """Count one finished client request from its record."""
        intent, backend = intent_label(record.intent), config_name(record.backend)
        tier, route = config_name(record.tier), config_name(record.route)
        stream = "true" if record.stream else "false"
        outcome = closed(record.outcome, OUTCOMES)
        self.requests.inc((intent, route, backend, tier, outcome, stream))
        if outcome != "ok":
            kind = closed(record.error_kind, ERROR_KINDS)
            self.errors.inc((intent, outcome, kind))
        moved = self._count_attempts(record)
        # A share of requests needs its own count: fallbacks_total counts moves, several
        # per request at times, so moves / requests could read 200%. A zero still creates
        # the series, so the ratio reads 0 rather than nothing.
        self.fallback_requests.inc((intent, route, backend, tier), 1.0 if moved else 0.0)
        # How long serving takes: a refusal was never served, and its few milliseconds under
        # backend `none` mixed with the requests every backend failed, the latency panels'
        # "none" series (it is counted above and in `rejected_requests_total`). A bug met
        # before the plan is no refusal: a request the router failed, as those are.
        if not record.refused:
            self.duration.observe((intent, backend, tier, stream), record.duration_s)
        if record.ttft_s is not None:
            self.ttft.observe((intent, backend, tier), record.ttft_s)
            out = record.usage.completion_tokens
            # A whole reply's "first token" is its last: only a stream shows the pace, and
            # only one that ended well (a stall, cut or cancel adds its dead time per token).
            paced = record.stream and outcome == "ok"
            if paced and out > 1 and record.duration_s > record.ttft_s:
                per_token = (record.duration_s - record.ttft_s) / (out - 1)
                self.tpot.observe((backend, tier), per_token)
        self._count_money(record, (intent, route, backend, tier))

    def rejected_request(self, api: str, status: int) -> None:
        """A request answered with the router's own error before any record existed (bad
        body, key or model): without this a flood of them is invisible."""
        shown = str(status) if 400 <= status < 600 else "other"
        self.rejected.inc((closed(api, APIS, empty="other"), shown))

    def _count_money(self, record: Record, where: tuple[str, ...]) -> None:
        """Tokens and dollars; zero increments still create the series, so panels show 0.
        Those of each route member exist at 0 from the config (`router.metric_zeros`), so
        that a fresh router's first requests show in `increase()` too."""
        # Tokens a backend served only: a request none served (its attempts failed before
        # a commit) has the router's estimate in the ledger (the report's `unserved_tokens`),
        # but under `backend="none"` here it read as served traffic in every sum across backends
        # and tiers (a local share of tokens, say). Its +0 still creates the series.
        usage = record.usage if record.backend else Usage()
        self.prompt_tokens.inc(where, usage.prompt_tokens)
        self.completion_tokens.inc(where, usage.completion_tokens)
        # An unknown (unpriced) cost adds no dollars: the ledger keeps it NULL and the report
        # counts the request, as `unpriced_requests_total` does here (the record's same
        # `unpriced`), so $0 on a dashboard can be told from "free". Its series are created
        # at 0 from the config (`router.metric_zeros`), so the first one shows in
        # `increase()`; a priced request adds none (its +0 never created an unpriced one).
        if record.unpriced:
            self.unpriced.inc(where)
        cost, counterfactual = record.cost_usd, record.counterfactual_usd
        self.cost.inc(where, max(0.0, cost or 0.0))
        self.counterfactual.inc(where, max(0.0, counterfactual or 0.0))
        if record.tier == "local" and cost is not None and counterfactual is not None:
            # A local request that cost more than the cloud would have offloaded nothing;
            # the exact net is counterfactual_usd_total - cost_usd_total.
            saved = counterfactual - cost
            self.offloaded.inc(where, max(0.0, saved))

    def _count_attempts(self, record: Record) -> bool:
        """Attempt durations, the backends passed by (each once a request: a record lists
        each skipped backend once), and each move from a failed backend to the next one;
        returns whether there was any move."""
        for a in record.attempts:
            if a.outcome == "skipped":
                reason = closed(a.error_kind, _SKIPS, empty="other")
                self.skips.inc((a.backend, a.tier, reason))
        tried = [a for a in record.attempts if a.outcome != "skipped"]
        for a in tried:
            out = closed(a.outcome, ATTEMPT_OUTCOMES)
            self.attempt_time.observe((a.backend, a.tier, out), a.duration_s)
        moved = False
        for prev, nxt in backend_moves(tried):
            reason = closed(prev.error_kind, ERROR_KINDS, empty="other")
            self.fallbacks.inc((prev.backend, nxt.backend, reason))
            moved = True
        return moved

    def classified(self, label: str, confidence: float, seconds: float) -> None:
        self.confidence.observe((intent_label(label),), confidence)
        self.classify_time.observe((), seconds)

    def backend_state(self, backend: str, tier: str, up: bool, circuit: Circuit) -> None:
        self.up.set((backend, tier), 1 if up else 0)
        for state in CIRCUIT_STATES:
            self.circuit.set((backend, tier, state), 1 if state == circuit else 0)

    def forget_backend(self, backend: str, removed: bool = True) -> None:
        """A backend a reload removed or changed: its gauges go, or its last `up=0` or a
        pass ratio below its floor would keep an alert firing until a restart (the canary
        publishes a changed backend's again). Counters and histograms stay (they are
        history), but for the counters still at 0, which the reload removes
        (`router.metric_zeros`), and a `removed` backend's canary case counts, which go with
        its other canary series. A changed one keeps them: dropped on a reload that changed
        a timeout, its zero series never came back and each new error series was born at
        its first round's count, which `increase()` does not see (found in a soak). Its
        skipped rounds' counts go and stay as its case counts do."""
        self.forget_capacity(backend)
        families = [
            self.up,
            self.circuit,
            self.canary_pass,
            self.canary_lower,
            self.canary_floor,
            self.canary_last,
            self.gated,
        ]
        canary_counts = [self.case_outcomes, self.canary_skipped]
        for family in [*families, *canary_counts] if removed else families:
            family.drop("backend", backend)

    def forget_suite(self, suite: str) -> None:
        """A canary suite a reload dropped: its standing gauges and case counts go (no run
        updates them)."""
        for family in (
            self.canary_pass,
            self.canary_lower,
            self.canary_floor,
            self.canary_last,
            self.case_outcomes,
        ):
            family.drop("suite", suite)

    def forget_standings(self, backend: str) -> None:
        """A backend a reload pointed at another server: its canary standings go (they were
        the old server's), not its state gauges, which resilience has just set anew."""
        for gauge in (self.canary_pass, self.canary_lower, self.canary_floor, self.canary_last):
            gauge.drop("backend", backend)

    def forget_idle_inflight(self) -> None:
        """After a reload: the in-flight series of removed backends, or of a tier a backend
        left, with no attempt left go (one with attempts goes when the last ends,
        `attempt_finished`). Kept at 0, every renaming reload left one series behind for
        good, and so did each change of tier (found in review)."""
        for key, value in list(self.inflight.values.items()):
            if value == 0 and not self.configured(*key):
                self.inflight.remove(key)

    def forget_capacity(self, backend: str) -> None:
        """A backend that cannot be read (poll failed, circuit not closed) reports no load:
        its last readings, frozen, would look like a busy backend that is still there."""
        for gauge in (self.running, self.waiting, self.kv_cache):
            gauge.drop("backend", backend)

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
                gauge.set((backend,), value)

    def set_ledger_source(self, source: LedgerSource | None) -> None:
        self.scraped.ledger_source = source

    def set_span_source(self, source: SpanSource | None) -> None:
        self.scraped.span_source = source

    def set_wait_source(self, source: WaitSource | None) -> None:
        """Where the waits a 429 or an overloaded 503 asked for are read (resilience's; none
        without it: no wait is kept)."""
        self.wait_source = source

    def _read(self) -> None:
        """Fill the families read at scrape time. The waits are read whole each time: a
        wait's seconds run down between events, and a backend a reload removed goes."""
        self.scraped.read()
        if self.wait_source is not None:
            waits = self.wait_source()
            kinds: tuple[tuple[Family, Wait], ...] = (
                (self.rate_limited, "rate_limited"),
                (self.overloaded, "overloaded"),
            )
            for family, kind in kinds:
                family.values = {key: s for key, s in waits.get(kind, {}).items()}

    def canary_result(
        self,
        backend: str,
        suite: str,
        *,
        pass_ratio: float,
        lower: float,
        floor: float | None,
        ts: float,
    ) -> None:
        """A suite's standing after a round. A suite without a floor has no floor series (it
        closes no gate), so no margin over a floor of 0 is shown for it."""
        key = (backend, suite)
        self.canary_pass.set(key, pass_ratio)
        self.canary_lower.set(key, lower)
        if floor is None:
            self.canary_floor.remove(key)
        else:
            self.canary_floor.set(key, floor)
        self.canary_last.set(key, ts)

    def canary_cases(
        self, backend: str, suite: str, status: str, error_kind: str | None, n: int = 1
    ) -> None:
        """`n` canary cases of a round that ended with `status` (a `CaseResult`'s: `pass`,
        `fail`, `error`; an N/A case, never asked, is not counted). An error's kind is the
        runner's, `other` for one outside that set; a graded case has none ("")."""
        shown = CANARY_STATUSES.get(status)
        if shown is None:
            return
        kind = closed(error_kind, _CANARY_KINDS, empty="other") if shown == "error" else ""
        self.case_outcomes.inc((backend, suite, shown, kind), n)

    def canary_round_skipped(self, backend: str, reason: str) -> None:
        """A canary round that passed `backend` by for `reason` (its row's `skipped_reason`),
        `other` for one outside the set."""
        self.canary_skipped.inc((backend, closed(reason, _CANARY_SKIPS, empty="other")))

    def canary_cases_expected(self, backends: Sequence[str], suites: Collection[str]) -> None:
        """Each backend × suite's case counters, and each backend's skipped rounds by
        reason, at 0 (`router.metric_zeros.canary`)."""
        metric_zeros.canary(self, backends, suites)

    def canary_suites_loaded(self, not_runnable: Mapping[str, int]) -> None:
        """The suites just loaded (start, reload), each with its count of cases N/A for a
        mistake (`router.canary_counts.not_runnable`), 0 for a sound suite. A suite no longer
        loaded loses its series, as its other canary series go (`forget_suite`); a fixed one
        reads 0. The labels are the suites' names, from the configured files."""
        family = self.cases_not_runnable
        for labels in [k for k in family.values if k[0] not in not_runnable]:
            family.remove(labels)
        for suite, n in not_runnable.items():
            family.set((suite,), n)

    def route_gated(self, backend: str, intent: str, gated: bool) -> None:
        self.gated.set((backend, intent_label(intent)), 1 if gated else 0)

    def shadow_compared(
        self, intent: str, live_backend: str, shadow_backend: str, agreed: bool | None
    ) -> None:
        """Count one comparison. A pair's first one creates all three results, at 0 but for
        its own: an intent whose answers all disagreed had no `agreed` series, so the
        agreement panel showed no bar for it instead of 0% (found in review)."""
        pair = (intent_label(intent), live_backend, shadow_backend)
        result = "undecided" if agreed is None else ("agreed" if agreed else "disagreed")
        if (*pair, result) not in self.shadow.values:
            for each in SHADOW_RESULTS:
                self.shadow.inc((*pair, each), 0)
        self.shadow.inc((*pair, result))

    def shadow_dropped(self, reason: ShadowDropReason) -> None:
        self.shadow_drops.inc((closed(reason, SHADOW_DROP_REASONS),))

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type, for `GET /metrics`."""
        self._read()
        return render(self._families).encode(), CONTENT_TYPE
