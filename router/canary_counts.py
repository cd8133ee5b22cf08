"""Counting canary cases by outcome: what the gates cannot show, a canary gone blind.

Errors never enter a gate's window (`router.gating`: an outage must not close a quality
gate), so a backend that answers every case with an error (a vLLM restarted without the
flag its tool parser needs answers every tools request 400; a revoked key; a sandbox that
cannot start fails every code case) left its windows, gauges and gates frozen as they were,
and nothing said so (found in review). Each case a judged round asked is counted here, by
backend, suite and outcome (`smf_router_canary_cases_total`), and alert SmfCanaryBlind fires
on a suite whose cases were all errors for an hour.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from typing import Protocol

from evals.results import CaseResult


class CaseMetrics(Protocol):
    def canary_cases(
        self, backend: str, suite: str, status: str, error_kind: str | None, n: int = 1
    ) -> None: ...

    def canary_cases_expected(self, backends: Sequence[str], suites: Collection[str]) -> None: ...


def tally(
    results: Sequence[CaseResult], suites: Collection[str] | None
) -> Counter[tuple[str, str, str | None]]:
    """(suite, status, error kind) → cases, of the suites configured (None: every suite),
    as the judge feeds only those to the book. A graded case has no error kind."""
    counts: Counter[tuple[str, str, str | None]] = Counter()
    for r in results:
        if suites is None or r.suite in suites:
            counts[(r.suite, r.status, r.failure_kind if r.status == "error" else None)] += 1
    return counts


class CaseCounts:
    """A judge's case counters: every configured backend × suite at 0 (`expect`), before
    its first round counts (`count`)."""

    def __init__(
        self,
        metrics: CaseMetrics | None,
        backends: Callable[[], Sequence[str]],
        suites: Callable[[], Collection[str] | None],
    ) -> None:
        self.metrics = metrics
        self.backends = backends
        self.suites = suites
        self._expected: tuple[tuple[str, ...], tuple[str, ...]] | None = None

    def expect(self) -> None:
        """The counters of the backends and suites configured now, at 0; those of a backend
        or suite that left go, counted or not (`router.metric_zeros.canary`). Nothing while the
        suites are not known (a follower loads them after its start): the first round then
        creates its series."""
        suites = self.suites()
        if self.metrics is None or suites is None:
            return
        now = (tuple(self.backends()), tuple(sorted(suites)))
        if now != self._expected:
            self._expected = now
            self.metrics.canary_cases_expected(*now)

    def count(self, backend: str, results: Sequence[CaseResult]) -> None:
        """A judged round's cases."""
        if self.metrics is None:
            return
        self.expect()
        for (suite, status, kind), n in tally(results, self.suites()).items():
            self.metrics.canary_cases(backend, suite, status, kind, n)
