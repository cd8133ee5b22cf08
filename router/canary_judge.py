"""Judging canary results: the gate book fed and retuned, gate changes logged and gauged.

The scheduler (`router.canary`) judges the rounds it runs; a router that runs no canary of
its own judges the rounds it reads back from the ledger (`router.canary_follow`). Either
way one book decides the gates routing reads, and the same gauges show them, also after a
hot reload retunes the book. A round is judged under the config it ends in: results of a
suite a reload dropped, or from a server a backend no longer points at, are not judged.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Protocol

from classifier.intent import INTENTS
from evals import results as eval_results
from evals.results import CaseResult
from evals.urls import masked_url
from router.canary_counts import CaseCounts, CaseMetrics
from router.config import Backend as BackendSettings
from router.config_sections import CanarySettings
from router.gating import Change, GateBook, learn_floors, samples_to_clear
from router.server_identity import fingerprint, same_server

log = logging.getLogger("smf_router.canary")


class CanaryMetrics(CaseMetrics, Protocol):
    def canary_result(
        self,
        backend: str,
        suite: str,
        *,
        pass_ratio: float,
        lower: float,
        floor: float | None,
        ts: float,
    ) -> None: ...

    def route_gated(self, backend: str, intent: str, gated: bool) -> None: ...

    def forget_backend(self, backend: str) -> None: ...

    def forget_suite(self, suite: str) -> None: ...

    def forget_standings(self, backend: str) -> None: ...


def server(settings: BackendSettings) -> dict[str, str | None]:
    """The server a round asks, as its `canary_runs` row says it: the model and the base URL
    (masked: it may hold a key) for people, and `server`, the fingerprint that decides."""
    url = masked_url(settings.base_url) if settings.base_url else None
    return {"model": settings.model, "base_url": url, "server": fingerprint(settings)}


def repointed(old: Sequence[BackendSettings], new: Sequence[BackendSettings]) -> list[str]:
    """The backends a reload keeps by name but points at another server (`same_server`)."""
    before = {b.name: b for b in old}
    return [b.name for b in new if b.name in before and not same_server(before[b.name], b)]


def unjudged(ran: BackendSettings, backends: Sequence[BackendSettings]) -> str | None:
    """Why a round asked with the settings `ran` is not judged under the `backends` configured
    when it ends, if it is not: a reload removed the backend, or pointed it at another server,
    while its cases ran, and forgot its gates and gauges. Judged, it brought back a gate (and
    alerts) on a backend that no longer exists, or gated the new server on the old one's
    answers (found in review)."""
    now = next((b for b in backends if b.name == ran.name), None)
    if now is None:
        return "left the config"
    return None if same_server(ran, now) else "was pointed at another server"


def asked(summary: Mapping[str, Any], now: BackendSettings) -> bool:
    """Whether a `canary_runs` row's round asked the server `now` is (`fingerprint`). A row
    written before rows said so (no `server`) counts, as it did."""
    asked_server = summary.get("server")
    return asked_server is None or asked_server == fingerprint(now)


def baseline_floors(baselines: Mapping[str, str], margin: float) -> dict[tuple[str, str], float]:
    """(backend, suite) → floor learned from each backend's baseline eval results file."""
    learned: dict[tuple[str, str], float] = {}
    for backend, path in baselines.items():
        counts: dict[str, tuple[int, int]] = {}
        for result in eval_results.results_of(eval_results.read(path)):
            if result.status in ("pass", "fail"):
                p, n = counts.get(result.suite, (0, 0))
                counts[result.suite] = (p + (result.status == "pass"), n + 1)
        for suite, floor in learn_floors(counts, margin).items():
            learned[(backend, suite)] = floor
    return learned


def gate_book(settings: CanarySettings) -> GateBook:
    """The gate book the config describes: its floors, learned floors, window and samples."""
    book = GateBook(
        settings.floors,
        baseline_floors(settings.baselines, settings.floor_margin),
        window=settings.window,
        min_samples=settings.min_samples,
    )
    warn_out_of_reach(book)
    return book


def warn_out_of_reach(book: GateBook) -> None:
    """One warning per learned floor the window cannot clear (`GateBook.out_of_reach`)."""
    for backend, intent, floor in book.out_of_reach():
        log.warning(
            "canary: the floor learned from %s's baseline for %s (%.4f) is out of reach with "
            "canary.window %d (a perfect window's lower bound is %.4f); it is capped there, "
            "so any failure in the window closes the gate. A canary.window of %d, or a "
            "larger canary.floor_margin, lets it act as learned",
            backend,
            intent,
            floor,
            book.window,
            book.reachable(),
            samples_to_clear(floor, book.z),
        )


class Judge:
    """Feeds graded results to the book and shows what it decides.

    `backends` names the backends configured now, and `suites` the suites (None: not known,
    every suite counts); both follow a hot reload.
    """

    def __init__(
        self,
        book: GateBook,
        metrics: CanaryMetrics | None,
        backends: Callable[[], Sequence[str]],
        suites: Callable[[], Collection[str] | None] = lambda: None,
    ) -> None:
        self.book = book
        self.metrics = metrics
        self.backends = backends
        self.suites = suites
        self._shown: set[str] = set()  # backends whose gate gauges exist
        self._judged: dict[tuple[str, str], float] = {}  # (backend, suite) -> last run's ts
        self.counts = CaseCounts(metrics, backends, suites)  # every case, errors too

    def gated(self) -> dict[str, frozenset[str]]:
        return self.book.gated()

    def judge(
        self,
        backend: str,
        results: Sequence[CaseResult],
        ts: float,
        *,
        count: bool = True,
        skipped: str | None = None,
    ) -> None:
        """Feed graded results to the gate book; publish pass ratios and any gate change;
        `count` the cases, errors too, and the round if it passed the backend by
        (`skipped`, its row's `skipped_reason`; not a recall's rounds: they are no news).

        Results of a suite no longer configured are left out: a round's sample is fixed when
        it starts, and one that ended after a reload dropped a suite brought back the window,
        gauges and gate the reload forgot, a gate no later round would reopen (found in
        review)."""
        if count:
            self.counts.count(backend, self.configured(results), skipped)
        for suite, passed in sorted(self.graded(results).items()):
            change = self.book.observe(backend, suite, passed)
            self._judged[(backend, suite)] = ts
            self._publish(backend, suite, ts)
            if change is not None:
                self.announce(change)

    def configured(self, results: Sequence[CaseResult]) -> list[CaseResult]:
        """The results of the suites configured (all while they are not known)."""
        suites = self.suites()
        return [r for r in results if suites is None or r.suite in suites]

    def graded(self, results: Sequence[CaseResult]) -> dict[str, list[bool]]:
        """Per suite, the results `judge` feeds the book: passes and failures (errors and
        N/A are no quality signal) of the suites configured, if known."""
        graded: dict[str, list[bool]] = {}
        for r in self.configured(results):
            if r.status in ("pass", "fail"):
                graded.setdefault(r.suite, []).append(r.status == "pass")
        return graded

    def gates(self) -> set[tuple[str, str]]:
        """The (backend, suite) gates that may close: each configured backend with each
        suite it has a floor for (configured or learned), of the suites configured if known.
        A suite without a floor has no gate to recall (`Follower.recall_rounds`)."""
        suites = self.suites()
        found: set[tuple[str, str]] = set()
        for backend in self.backends():
            floored = {*self.book.floors, *(s for b, s in self.book.learned if b == backend)}
            for suite in floored:
                if suites is None or suite in suites:
                    found.add((backend, suite))
        return found

    def show_open_gates(self) -> None:
        """Every gate starts open, and says so: a backend's gauges appear with it (also one
        a reload added), not when its first gate moves; so do its case counters."""
        if self.metrics is None:
            return
        self.counts.expect()
        for name in self.backends():
            if name not in self._shown:
                self._shown.add(name)
                for intent in INTENTS:
                    self.metrics.route_gated(name, intent, False)

    def prepare(
        self,
        old: CanarySettings,
        new: CanarySettings,
        suites: Collection[str] | None = None,
        moved: Collection[str] = (),
    ) -> Callable[[], None]:
        """A hot reload's part: floors learned from changed baselines are read now (before
        the swap); the returned call retunes the book, whose windows keep their results.
        `suites` names the suites the new config runs when `canary.suites` changed: a
        dropped suite's windows, gates and gauges go (None: the suites stay). `moved` names
        the backends pointed at another server (`repointed`): theirs start over."""
        learned = None  # the floors learned from the same baselines stay
        if (new.baselines, new.floor_margin) != (old.baselines, old.floor_margin):
            learned = baseline_floors(new.baselines, new.floor_margin)

        def apply() -> None:
            self.forget_removed()
            self.forget_moved(moved)
            if suites is not None:
                self.forget_suites(suites)
            for change in self.book.retune(new.floors, learned, new.window, new.min_samples):
                self.announce(change)
            if learned is not None or new.window != old.window:
                warn_out_of_reach(self.book)
            self.republish()

        return apply

    def forget_removed(self) -> None:
        """Backends that left the config: their windows, gates and gauges go (gauges too when
        resilience, which forgets a removed backend's, is off)."""
        names = set(self.backends())
        for backend in (self._shown | {b for b, _ in self._judged}) - names:
            self.book.forget(backend)
            self._shown.discard(backend)
            if self.metrics is not None:
                self.metrics.forget_backend(backend)
        self._judged = {k: ts for k, ts in self._judged.items() if k[0] in names}

    def forget_moved(self, names: Collection[str]) -> None:
        """Backends that are another server now: the old server's windows, gates and gauges
        go, as resilience forgets its breaker and load (`Resilience.reloaded`); kept, the
        new server was gated on the old one's answers until a window of its own pushed them
        out (found in review). The `route_gated` gauges follow in `republish`."""
        for backend in sorted(names):
            known = any(b == backend for b, _ in self._judged)
            self.book.forget(backend)
            if known:
                log.info("canary: backend %s is another server now; its gates open anew", backend)
            if self.metrics is not None:
                self.metrics.forget_standings(backend)
        self._judged = {k: ts for k, ts in self._judged.items() if k[0] not in names}

    def forget_suites(self, keep: Collection[str]) -> None:
        """Suites no longer in `canary.suites`: their windows, gates, gauges and case counts
        go (the `route_gated` gauges follow in `republish`); also those of a suite with no
        window, whose cases were all errors."""
        windowed = self.book.forget_suites(keep)
        for suite in sorted(windowed):
            log.warning("canary: suite %s left canary.suites; its gates open", suite)
        if self.metrics is not None:
            for suite in sorted(windowed | self.counts.leave(keep)):
                self.metrics.forget_suite(suite)
        self._judged = {k: ts for k, ts in self._judged.items() if k[1] in keep}

    def _publish(self, backend: str, suite: str, ts: float) -> None:
        """A suite's gauges as the book holds them: the pass ratio, and the lower bound and
        floor that the gate compares (no floor, no gate: no floor series)."""
        if self.metrics is None:
            return
        self.metrics.canary_result(
            backend,
            suite,
            pass_ratio=self.book.pass_ratio(backend, suite) or 0.0,
            lower=self.book.lower_bound(backend, suite) or 0.0,
            floor=self.book.floor(backend, suite),
            ts=ts,
        )

    def republish(self) -> None:
        """After a reload, the gauges as the retuned book says: without it a lowered floor
        showed (and the old SmfCanaryBelowFloor fired on it) until the next run, `interval_s`
        away. Runs after `Resilience.reloaded`, which drops a changed backend's gauges
        (FEATURES order)."""
        if self.metrics is None:
            return
        self.counts.expect()
        for (backend, suite), ts in self._judged.items():
            self._publish(backend, suite, ts)
        gated = self.gated()
        for name in self.backends():
            self._shown.add(name)
            for intent in INTENTS:
                self.metrics.route_gated(name, intent, intent in gated.get(name, ()))

    def announce(self, change: Change) -> None:
        """A gate moved: one log line and the gauge. One decided on fewer results than the
        lower bound needs says which bound or count decided it: closed on an upper bound
        under the floor, opened on too few results (a reload raised `min_samples` or a floor)
        whose lower bound may still be under it."""
        if change.gated or change.n >= change.needed:
            self._moved(change)
        elif change.n < change.min_samples:
            log.warning(
                "canary gate OPENED: intent %s routes to %s again (%d results in the window, "
                "fewer than the %d canary.min_samples a gate needs to close: no verdict; "
                "%d/%d recent cases passed)",
                change.intent,
                change.backend,
                change.n,
                change.min_samples,
                change.passes,
                change.n,
            )
        else:
            log.warning(
                "canary gate OPENED: intent %s routes to %s again (%d results in the window, "
                "fewer than the %d its lower bound needs against this floor, and their "
                "pass-rate upper bound %.2f >= floor %.2f: no verdict; %d/%d recent cases "
                "passed)",
                change.intent,
                change.backend,
                change.n,
                change.needed,
                change.upper,
                change.floor,
                change.passes,
                change.n,
            )
        if self.metrics is not None:
            self.metrics.route_gated(change.backend, change.intent, change.gated)

    @staticmethod
    def _moved(change: Change) -> None:
        """The log line of a gate a bound moved (or a floor removed): the lower bound, or the
        upper one for a gate closed on fewer results than the lower bound needs."""
        closed = change.gated
        early = closed and change.n < change.needed
        log.warning(
            "canary gate %s: intent %s %s %s%s (pass-rate %s bound %.2f %s floor %.2f; "
            "%d/%d recent cases passed)",
            "CLOSED" if closed else "OPENED",
            change.intent,
            "no longer auto-routes to" if closed else "routes to",
            change.backend,
            "" if closed else " again",
            "upper" if early else "lower",
            change.upper if early else change.lower,
            "<" if closed else ">=",
            change.floor,
            change.passes,
            change.n,
        )

    def status(self) -> dict[str, Any]:
        """The gates and standings part of the `canary` status section."""
        return {
            "gated": {b: sorted(i) for b, i in sorted(self.gated().items())},
            "standings": [dataclasses.asdict(s) for s in self.book.standings()],
        }
