"""A backend that asks the canary for a wait: its round passes it by from then on.

A case's 429, or an overloaded backend's 503 or 529, whose `Retry-After` is longer than the
backend's `retry_after_max_s` says "not now", as it says to live traffic, which passes the
backend by till the wait ends (`router.attempt_errors.asked_wait`, read the same way here).
The round then asks that backend nothing more (`UntilWait`), and the cases the wait stopped
(the one that met it, any in flight that met it too, those not asked) are no part of the
round: its row names the wait as its `skipped_reason` (`rate_limited`, `overloaded`), as a
round skipped at its start does, and the verdicts it graded before stand. In a router, each
case's error is told as a live attempt's is (`told`, `router.backend_waits`): the wait it
asks starts for live traffic too, which passed the backend by only once its own next request
had met the same 429 (found in review). `smf-router
canary run` (the CronJob) runs in a process of its own and sees no router's waits: it asked
a provider that said "not for 10 minutes" every case of every round, and counted each
refusal an error (alert SmfCanaryBlind once it had gone on an hour). A
router's canary skips a backend whose wait its live traffic met before the round starts
(`BackendState.away`); this is the wait the round meets itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from evals.asked import ASKED
from evals.endpoint import Ask, TransportProblem
from evals.results import CaseResult
from router.attempt_errors import UpstreamError, asked_wait
from router.backend_state import Wait
from router.upstream_errors import classify_error

log = logging.getLogger("smf_router.canary")


class UntilWait:
    """One backend's requests in a canary round until it asks for a wait (`asked`), and
    none after it (`wrap` makes the `Ask` the runner takes); `kept` are the round's results
    without the cases the wait stopped. `told` hears each case's typed error."""

    def __init__(
        self, backend: str, limit_s: float, told: Callable[[UpstreamError], None] | None = None
    ) -> None:
        self.backend = backend
        self.limit_s = limit_s  # the backend's `retry_after_max_s`
        self.told = told
        self.asked: Wait | None = None
        self._stopped: set[tuple[str, str]] = set()  # (suite, case id)

    def wrap(self, send: Ask) -> Ask:
        async def until_wait(body: dict[str, Any]) -> Any:
            if self.asked is not None:
                self._stop()
                raise TransportProblem(f"not asked: the backend asked for a wait ({self.asked})")
            try:
                return await send(body)
            except TransportProblem as problem:
                self._heard(problem)
                raise

        return until_wait

    def kept(self, results: Sequence[CaseResult]) -> list[CaseResult]:
        return [r for r in results if (r.suite, r.id) not in self._stopped]

    def _heard(self, problem: TransportProblem) -> None:
        error = _typed(problem)
        if error is None:
            return
        if self.told is not None:
            self.told(error)
        asked = asked_wait(error, self.limit_s)
        if asked is None:
            return
        self._stop()
        if self.asked is None:
            self.asked, seconds = asked
            log.info(
                "canary: backend %s asked for a wait of %.0f s (%s); its round passes it by",
                self.backend,
                seconds,
                self.asked,
            )

    def _stop(self) -> None:
        """The case being asked (the runner's, `ASKED`) is one the wait stopped."""
        asked = ASKED.get()
        if asked is not None:
            self._stopped.add((asked.case.suite, asked.case.id))


def _typed(problem: TransportProblem) -> UpstreamError | None:
    """The error a case's failure is, as dispatch types a live attempt's: the adapter's own
    (a litellm backend's, `router.canary_endpoint.ask_backend`), else the HTTP error reply's
    (its status, body and headers); None for a failure with no reply (a refused connection)."""
    if isinstance(problem.__cause__, UpstreamError):
        return problem.__cause__
    if problem.status is None:
        return None
    return classify_error(problem.status, problem.reply, problem.headers, "")
