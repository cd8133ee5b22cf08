"""How long a canary round may take: a backend that stopped answering, a deadline, a stop.

A backend that accepts requests and never answers cost `timeout_s` per case: with the
defaults, 21 cases at concurrency 2 and 120 s each, 22 minutes. That is past the CronJob's
`activeDeadlineSeconds`, whose SIGTERM then killed `smf-router canary run` before that
backend's row was written, so a hung backend was never recorded; in a router, whose run
waits for every backend, it held back every backend's next round (found in review). Now:

- after `UNANSWERED` cases in a row got no reply in time, a round asks its backend nothing
  more (its other cases are errors, "not asked"): once hung, a backend costs its round two
  `timeout_s` at most, whatever the concurrency. One after the other at concurrency 1;
  above it, the cases in flight time out together, but the first to end frees a worker
  that asks its next case before the second counts, and that case waits out a timeout of
  its own (this said `ceil(UNANSWERED / concurrency)`, one, found in review). No reply in
  time is whoever noticed: the runner's `timeout_s`, or something nearer the backend that
  gave up sooner and said so (a litellm backend's own `timeouts`, a proxy's 504 or a 408,
  an HTTP client's timeout: `evals.endpoint.TransportProblem.timed_out`). Counting the
  runner's alone, a backend behind such a proxy cost its timeout for every case (found in
  review). Other failures (a refused connection, another HTTP error: mostly quick) neither
  count nor reset the count, and keep their own detail;
- a run may have a deadline (`smf-router canary run --deadline-s`), and may be stopped
  (its SIGTERM; a router's shutdown, `router.canary_schedule`): the cases still waiting
  for a reply then end as errors at once, cases not asked yet are not asked, and each
  backend's round ends with what it finished, its rows written as usual. Once it has
  ended, no code case's program starts either (`Unstarted`): cases answered before the end
  went on taking sandbox slots one after the other, each program up to its wall clock, so
  a router's shutdown waited for programs started after its stop, and past that wait a
  program cancelled ran on its thread, holding up the exit (found in re-review).

The bounds act on each case's request, inside the eval runner: it returns every result,
and the rows of a cut round are whole (`canary_follow` judges a round once all its results
are on disk). Errors are never a quality verdict, so a cut round closes no gate; so are
the cases of a round that failed on the router's side or was cancelled past a stop's wait
(`round_failed`, `cut_short`).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from typing import Any

from evals.endpoint import Ask, TransportProblem
from evals.graders import Executor
from evals.results import CaseResult
from evals.sandbox import NotRun, RunOutcome
from evals.suite import Case
from router.bug_log import kind_of

UNANSWERED = 2  # cases in a row without a reply in time that end a backend's round


class RunEnd:
    """When a canary run's waiting ends: at its deadline (None: none), or when stopped.

    Created, read (`passed`) and stopped on the event loop, whose clock `when` is on (the
    requests' cutoffs). Worker threads read `ended` instead, a state of their own: the loop's
    clock read from a thread was not thread-safe under uvloop (`serve`), whose `time()`
    updates libuv's loop time (found in round-2 re-review)."""

    def __init__(self, deadline_s: float | None = None) -> None:
        loop = asyncio.get_running_loop()
        self.when: float | None = None  # on the loop's clock
        self.why = ""  # what ended it, as the errors say
        self._deadline: float | None = None  # the same deadline on `time.monotonic`
        self._stopped = threading.Event()
        if deadline_s is not None:
            self.when, self.why = loop.time() + deadline_s, f"deadline {deadline_s:g} s"
            self._deadline = time.monotonic() + deadline_s
        self.waiting: set[asyncio.Timeout] = set()  # requests in flight, cut when stopped

    def passed(self) -> bool:
        """Whether the run has ended; on the event loop only (see `ended`)."""
        return self.when is not None and asyncio.get_running_loop().time() >= self.when

    def ended(self) -> bool:
        """Whether the run has ended, from any thread (`Unstarted`): stopped, or past the
        deadline on a clock of its own, never the loop's."""
        if self._stopped.is_set():
            return True
        return self._deadline is not None and time.monotonic() >= self._deadline

    def stop(self, why: str) -> None:
        """End the run now (`why`: "SIGTERM"): requests in flight end as errors, the rest
        are not asked, and no program starts."""
        now = asyncio.get_running_loop().time()
        if self.when is None or self.when > now:
            self.when, self.why = now, why
        self._stopped.set()  # after `why`: a thread that sees it set reads the stop's reason
        for waiting in list(self.waiting):
            waiting.reschedule(now)


class Bounded:
    """One backend's requests within its round's bounds (an `Ask`, as the runner takes)."""

    def __init__(self, send: Ask, end: RunEnd) -> None:
        self.send = send
        self.end = end
        self.unanswered = 0  # cases in a row that got no reply in time

    async def __call__(self, body: dict[str, Any]) -> Any:
        if self.unanswered >= UNANSWERED:
            raise TransportProblem(f"not asked: {UNANSWERED} cases in a row got no reply in time")
        if self.end.passed():
            raise TransportProblem(f"not asked: the round had ended ({self.end.why})")
        cutoff = asyncio.timeout_at(self.end.when)
        try:
            async with cutoff:
                self.end.waiting.add(cutoff)
                reply = await self.send(body)
        except TimeoutError:
            if not cutoff.expired():
                self.unanswered += 1  # a timeout of the send's own, as the runner reports it
                raise
            raise TransportProblem(f"no reply before the round ended ({self.end.why})") from None
        except TransportProblem as problem:
            if problem.timed_out:  # said nearer the backend: its own timeout, a proxy's 504
                self.unanswered += 1
            raise
        except asyncio.CancelledError:
            self.unanswered += 1  # the runner's `timeout_s` for this case (or the run's end)
            raise
        finally:
            self.end.waiting.discard(cutoff)
        self.unanswered = 0
        return reply


class Unstarted:
    """A round's sandbox (an `Executor`, as the runner takes): a program runs while the round
    lasts, and none starts once it has ended; the case is then an error (`sandbox`, "not run:
    the canary round had ended"), never a verdict. Called on the runner's worker thread: it
    reads `RunEnd.ended`, never the loop's clock."""

    def __init__(self, execute: Executor, end: RunEnd) -> None:
        self.execute = execute
        self.end = end

    def __call__(self, program: str) -> RunOutcome:
        if self.end.ended():
            # the runner says "not run: " first: said here too, it read "not run: not run: "
            raise NotRun(f"the canary round had ended ({self.end.why})")
        return self.execute(program)


def round_failed(case: Case, exc: Exception) -> CaseResult:
    """A case of a round that failed on our side: an error, never a quality verdict."""
    detail = f"the canary round failed: {kind_of(exc).__name__}"
    return CaseResult(case.id, case.suite, case.difficulty, "error", "canary", detail)


def cut_short(sample: Sequence[Case], graded: Sequence[CaseResult], why: str) -> list[CaseResult]:
    """A round cancelled before its end (a shutdown's stop past its wait): the results it had,
    in the sample's order, and its other cases as errors. Cancelled, the round wrote no row
    at all, and a code case still in the sandbox cost every case of its backend."""
    done = {(r.suite, r.id): r for r in graded}
    detail = f"the canary round was cancelled ({why}) before this case was graded"
    return [
        done.get((c.suite, c.id))
        or CaseResult(c.id, c.suite, c.difficulty, "error", "canary", detail)
        for c in sample
    ]
