"""Counting canary cases by outcome: what the gates cannot show, a canary gone blind.

Errors never enter a gate's window (`router.gating`: an outage must not close a quality
gate), so a backend that answers every case with an error (a vLLM restarted without the
flag its tool parser needs answers every tools request 400; a revoked key; a sandbox that
cannot start fails every code case) left its windows, gauges and gates frozen as they were,
and nothing said so (found in review). Each case a judged round asked is counted here, by
backend, suite and outcome (`smf_router_canary_cases_total`), and alert SmfCanaryBlind fires
on a suite whose cases were all errors for an hour.

A round that passes its backend by (its circuit open, a wait it asked for, at the round's
start or part way: `router.canary_wait`) asks no case, or stops asking: no case count moves
for it. A provider whose per-minute limit answered each round's first case with a long
`Retry-After` left the canary grading nothing while no count moved and no alert could fire
(found in review). Such rounds are counted by backend and reason
(`smf_router_canary_rounds_skipped_total`), and SmfCanaryBlind fires on a backend whose
rounds were passed by for a wait or saturation with nothing graded for an hour.

A case with a mistake in it (`evals.suite_flaws`) loads N/A and is never asked, so it is in
no count: a suite whose every case is such went as quiet as a blind one, a gate it closed
before stayed closed, and only the log at load said why (found in review). `not_runnable`
counts them per suite, at each load (`smf_router_canary_cases_not_runnable`, alert
SmfCanaryCasesNotRunnable).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Protocol

from evals.results import CaseResult
from evals.suite import Case


class CaseMetrics(Protocol):
    def canary_cases(
        self, backend: str, suite: str, status: str, error_kind: str | None, n: int = 1
    ) -> None: ...

    def canary_cases_expected(self, backends: Sequence[str], suites: Collection[str]) -> None: ...

    def canary_round_skipped(self, backend: str, reason: str) -> None: ...


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
        # Suites with series: expected, or counted while the suites were not known.
        self._shown: set[str] = set()

    def expect(self) -> None:
        """The counters of the backends and suites configured now, at 0; those still at 0 of
        a backend or suite that left go (`router.metric_zeros.canary`), the counted ones
        went with its other canary series (`Judge.forget_removed`, `Judge.forget_suites`).
        Nothing while the suites are not known (a follower loads them after its start): the
        first round then creates its series. Called at each run and each round read: only a
        change of backends or suites reaches the metrics."""
        suites = self.suites()
        if self.metrics is None or suites is None:
            return
        now = (tuple(self.backends()), tuple(sorted(suites)))
        if now != self._expected:
            self._expected = now
            self._shown.update(now[1])
            self.metrics.canary_cases_expected(*now)

    def count(
        self, backend: str, results: Sequence[CaseResult], skipped: str | None = None
    ) -> None:
        """A judged round's cases, of the suites configured (`Judge.configured`), whose
        series `expect` created before (`Judge.show_open_gates`, ahead of every round), and
        the round itself if it passed the backend by (`skipped`: its `skipped_reason`)."""
        if self.metrics is None:
            return
        if skipped:
            self.metrics.canary_round_skipped(backend, skipped)
        for r in results:
            self._shown.add(r.suite)
            self.metrics.canary_cases(backend, r.suite, r.status, r.failure_kind)

    def leave(self, keep: Collection[str]) -> set[str]:
        """The suites with series that are not in `keep`: a reload dropped them."""
        gone = self._shown.difference(keep)
        self._shown -= gone
        return gone


def not_runnable(cases: Iterable[Case]) -> dict[str, int]:
    """Each loaded suite's cases N/A for a mistake in the case (`Case.flawed`), 0 for a suite
    without one. Not those N/A for what this host or endpoint cannot run (an unsupported
    evaluator, a templated prompt): no fix to the suite file runs them; nor those that run
    with a warning (`evals.suite_notes`: a key near a field the grader reads)."""
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.suite] = counts.get(case.suite, 0) + (1 if case.flawed else 0)
    return counts
