"""When a router's own canary runs, what it knows from before it started, how it stops.

- Runs start every `canary.interval_s`, counted from the previous run's start; a run longer
  than that is followed at once by the next. Counted from its end, a backend that stopped
  answering (a run waits for every backend's round) pushed every backend's next round back
  by that round's length (found in review).
- A reload wakes the wait, which counts the new `interval_s` from the last start: the old
  wait used to run out first (15 minutes at the default), while status showed the new one.
- At start the gate book takes the ledger's rounds of yesterday and today, and older ones
  until each gate holds what it depends on (`Follower.recall_rounds`), read as a router
  following the CronJob reads them (`router.canary_follow`), and the status their count and
  each backend's latest. Started with empty windows, a
  restarted router sent auto-routed traffic to a backend it had gated until new rounds
  closed the gate again (two rounds, 30 minutes at the defaults), while a follower on the
  same ledger kept it gated. `/readyz` answers 503 until the recall is over
  (`Components.holding`): it said ready as the recall began, and traffic came while every
  gate was still open (found in re-review).
- The first run goes on where the last one left off: `interval_s` after the start of the
  newest recalled run (its rounds' earliest start, `ts`: a round cut by a crash may be
  missing; with `interval_s` over a day, an earlier day's too, which the recall may not
  read) or of this router's last run start in the ledger (`router.canary_starts`: a run
  killed before any of its rounds reached the ledger), whichever is later
  (`router.canary_resume`); at once when that is past, or with neither (no round nor start
  of a server this config asks now; a failed recall still reads the starts). Every start
  ran a run at once: under systemd's `Restart=on-failure` a crash loop sent a full run (21
  cloud calls at the defaults) every few seconds (found in an operations review). The wait
  is `_until_next`'s: a reload recounts it, a shutdown ends it.
- At shutdown the run under way is stopped (`Canary.stop`) as the requests' drain starts
  (`stopping`), and its rows written before the job ends, waiting `STOP_WAIT_S` at most
  from the stop: cancelled, it lost the rows of the backends still running, where the
  ledger holds one row per backend per round. Cancelled past that wait, each backend's
  round still writes what it graded, the rest as errors. No run starts after the stop, and a
  recall under way reads no further day (`Follower.stop`), nor the walk of earlier days.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.sandbox import Limits
from router.canary import Canary
from router.canary_follow import Follower
from router.canary_lengths import Graded, graded_after
from router.canary_reopen import Runs
from router.canary_resume import last_start, resumed_from
from router.canary_starts import router_name, write_start
from router.config import Config

log = logging.getLogger("smf_router.canary")

# A stopped run ends within a few loop turns, but a code case being graded runs on to its
# sandbox's wall clock, whatever a stop says: 5 s cut such a grading short, and the round
# with it (found in review). The program runs that long on its thread anyway, and no other
# starts after the stop (`canary_bound.Unstarted`), so the wait costs no more than the
# sandbox's limit, plus a margin to start and kill it. It runs beside the requests' drain
# at shutdown: the stop starts with the drain (`Schedule.stopping`), so a shutdown takes the
# longer of the two, not their sum.
STOP_WAIT_S = Limits().wall_s + 2.0

# A run waits this long at most for its start to reach the disk before it asks (a flush takes
# milliseconds): not waited for, a router killed within milliseconds of its run's first case
# left no start, and a crash loop dying there ran a full run at each restart (found in review).
START_WAIT_S = 5.0


class Schedule:
    """Runs a canary's rounds in a router (`run`, its background job) and says when."""

    def __init__(
        self,
        canary: Canary,
        config: Callable[[], Config],
        ledger: Path,
        recalled: Callable[[], None] = lambda: None,
    ) -> None:
        self.canary = canary
        self.recalled = recalled  # called once `recall` is over, failed or not (`/readyz`)
        self.config = config
        self.ledger = ledger
        self.running_since: float | None = None  # the run under way's start (unix time)
        # the last start (the ledger's last run's, until one here): loop time, unix time
        self._started: tuple[float, float] | None = None
        self._wake: asyncio.Event | None = None  # set by a reload
        # each backend's last round that graded a case, and the one before's length
        self._graded: dict[str, Graded] = {}
        self._running: tuple[str, ...] = ()  # the backends of the run under way
        self._stop_began: float | None = None  # loop time of the shutdown's stop (`stopping`)
        self._recaller: Follower | None = None  # the recall's, while it reads (`stopping`)
        self._stopped = threading.Event()  # `stopping`'s, for the earlier days' walk
        self.listen: Callable[[], str] = str  # where it serves (`Components.listen`): ""
        self._start_late = False  # a run's start took over `START_WAIT_S`, said once
        # the loop's clock (`run` sets it), on which the runs wait (`_until_next`): what is
        # said of the waits (`next_run_in`) reads it too, not the wall clock, which NTP steps
        self.loop_time: Callable[[], float] = time.monotonic

    async def run(self) -> None:
        """The ledger's rounds into the gates, then a run `interval_s` after the last one
        started (`_resume`; now, if that is past or none is known) and every `interval_s`;
        a failed recall or run is logged, never fatal."""
        self._wake = asyncio.Event()
        self.loop_time = asyncio.get_running_loop().time
        try:
            try:
                await self.recall()
            except Exception:
                # Past the read (the status's counts, a dropped suite's gates): uncaught, it
                # ended the job with no word, no round ran until a restart, and `/readyz`
                # said 503 until `READY_WAIT_S` (found in re-review).
                log.exception("canary: recalling the ledger's rounds failed; the runs go on")
            await self._resume()  # before `/readyz` says ready: the status shows the wait
        finally:
            self.recalled()
        if self._started is not None:  # the last run's (`_resume`): its interval first
            await self._until_next()
        while self._stop_began is None:
            self._started = (self.loop_time(), self.canary.clock())
            self.running_since = self._started[1]
            self._running = tuple(b.name for b in self.canary.backends)
            run = asyncio.ensure_future(self._once())
            try:
                await asyncio.shield(run)  # cancelled at shutdown: `_finish` ends the run
            except asyncio.CancelledError:
                await self._finish(run)
                raise
            finally:
                self.running_since = None
                self._remember_rounds()
            await self._until_next()

    async def recall(self) -> None:
        """Feed the gate book the ledger's last rounds, as a follower's first read does
        (`Follower.recall_rounds`), and the status their count and each backend's latest:
        it showed `runs: 0` and no `last_run` beside the gates those rounds closed (found in
        review). Rounds of suites no longer configured leave the gates again (and say so):
        no run would reopen them."""
        follower = Follower(self.canary.judge, self.ledger, self.config, self.canary.clock)
        self._recaller = follower
        if self._stop_began is not None:
            follower.stop()
        try:
            await follower.follow_once()
        except Exception:
            log.exception("canary: the ledger's earlier rounds are unreadable; gates start open")
            return
        finally:
            self._recaller = None
        self.canary.runs += follower.runs
        self.canary.last_run = {**follower.last_run, **self.canary.last_run}
        # the graded rounds up to each backend's latest (which may have graded none)
        self._graded = {**follower.graded, **self._graded}
        self.canary.judge.forget_suites({case.suite for case in self.canary.cases})
        self._remember_rounds()

    async def _resume(self) -> None:
        """The last start, in both clocks, from what the start found (`resumed_from`): the
        newest recalled run's (`last_start` of each backend's latest round), this router's
        last start in the ledger or an earlier day's, the latest (`router.canary_resume`);
        the first run waits out
        its interval. One stamped later than now (a writer's clock ahead, `CLOCK_SKEW_S`)
        counts as now. Never fatal: what cannot be read is logged, and the rest decide."""
        recalled = last_start(self.canary.last_run.values())
        backends, now = self.canary.backends, self.canary.clock()
        interval_s = self.canary.settings.interval_s
        try:
            retention_days = self.config().ledger.retention_days
            find = functools.partial(resumed_from, self.ledger, recalled, backends, now, interval_s)
            found = await asyncio.to_thread(find, retention_days, self.writer(), self._stopped)
        except Exception:
            log.exception("canary: finding the last run's start failed; the recall's decides")
            found = None if recalled is None else (recalled, "its rounds in the ledger")
        if found is None:
            return
        latest, why = found
        start = min(latest, now)
        self._started = (self.loop_time() - (now - start), start)
        log.info(
            "canary: the last run started %s (%s); the next run starts %s",
            iso(start),
            why,
            iso(self.next_run_at()),
        )

    def writer(self) -> str:
        """This router's name in its run starts (`router_name`): only its own count."""
        return router_name(self.listen())

    def stopping(self) -> None:
        """The shutdown began (`Components.shutting_down`, as the requests' drain starts):
        the run under way ends now and writes its rows, and none starts after it. Stopped
        only once the drain was over, it made a shutdown take `drain_s` plus up to
        `STOP_WAIT_S` (found in review); `Components.stop` still awaits the run's end
        (`_finish`) before the ledger closes."""
        if self._stop_began is not None:
            return
        self._stop_began = asyncio.get_running_loop().time()
        if self.running_since is not None:
            log.info("canary: shutting down; the run under way stops now and writes its rows")
        self.canary.stop("shutdown")
        self._stopped.set()  # nor does the walk of earlier days (`earlier_start`)
        if self._recaller is not None:
            self._recaller.stop()  # a recall under way reads no further day
        if self._wake is not None:
            self._wake.set()  # the wait for the next run ends: there is none

    def reloaded(self) -> None:
        """A reload's applier: the wait re-reads `interval_s` (a run under way goes on)."""
        if self._wake is not None:
            self._wake.set()

    async def _once(self) -> None:
        """One run, its start written to the ledger as it is about to ask its first case
        (`_starting`): a kill from then on is a run."""
        try:
            await self.canary.run_once(self._starting)
        except Exception:
            log.exception("canary run failed")

    async def _starting(self, run_id: str) -> None:
        """The run under way, `run_id`, is about to ask its first case: its start to the
        ledger (`router.canary_starts`), waited for `START_WAIT_S` at most, and said once
        when it takes longer, until one is quick again. Written before `run_once`, a run
        stopped before it asked anything (at a deploy's SIGTERM soon after a start, while
        the first run reads the rotation's history) left a start, and the restart skipped a
        run for a whole `interval_s` (found in review). One stopped during this wait asks
        nothing, and its start stays: the restart waits out that run, once."""
        rows, started = self.canary.rows, self.running_since
        if rows is None or started is None:
            return
        written = write_start(rows, run_id, started, self.canary.backends, self.writer())
        if await asyncio.to_thread(written.wait, START_WAIT_S):
            self._start_late = False
        elif not self._start_late:
            self._start_late = True
            log.warning(
                "canary: the run's start is not in the ledger %s after %g s (a stalled "
                "volume?); the run goes on, and the start is written when the volume answers",
                self.ledger,
                START_WAIT_S,
            )

    async def _until_next(self) -> None:
        """Until `interval_s` after the last start, as it stands now: a reload wakes it."""
        assert self._wake is not None and self._started is not None
        loop = asyncio.get_running_loop()
        while True:
            self._wake.clear()
            left = self._started[0] + self.canary.settings.interval_s - loop.time()
            if left <= 0 or self._stop_began is not None:
                return
            try:
                async with asyncio.timeout(left):
                    await self._wake.wait()
            except TimeoutError:
                return

    async def _finish(self, run: asyncio.Future[None]) -> None:
        """At shutdown: the run ends (stopped as the drain began, else now), each backend's
        rows written (its unfinished cases as errors), within `STOP_WAIT_S` of the stop;
        past it (a program that outlived its sandbox's limit), the run is cancelled and
        logged, and each round writes what it graded. Not `server.drain_s`: at 0 the rows
        were lost though a stopped run ends within a few loop turns (found in re-review)."""
        if run.done():
            return
        self.stopping()  # when the job is cancelled without a shutdown hook (a test harness)
        assert self._stop_began is not None
        left = self._stop_began + STOP_WAIT_S - asyncio.get_running_loop().time()
        try:
            async with asyncio.timeout(max(0.0, left)):
                await asyncio.shield(run)
        except TimeoutError:
            run.cancel()
            log.warning(
                "canary: the run stopped at shutdown did not end within %g s; cancelled, "
                "the cases of its rounds not graded yet count as errors",
                STOP_WAIT_S,
            )
            # Each round writes its rows as the cancel reaches it, some loop turns on: not
            # waited for, they came after the job had ended and the ledger had closed, and
            # were lost (found in re-review). A cancelled round waits for nothing more (a
            # program's thread is left to its sandbox's limit), so this takes loop turns.
            with contextlib.suppress(asyncio.CancelledError):
                await run

    def next_run_in(self) -> float:
        """Seconds until the next run starts: `interval_s` after the last start, or 0 when
        that is past (a run under way longer than that: as soon as it ends). Loop time, as
        `_until_next` waits: from the last start's unix time, an NTP step back of an hour
        said an hour more than the wait, and one forward "now" (found in review)."""
        if self._started is None:
            return 0.0
        left = self._started[0] + self.canary.settings.interval_s - self.loop_time()
        return max(0.0, left)

    def next_run_at(self) -> float:
        """When the next run starts (unix time, the status's): now plus `next_run_in`."""
        return self.canary.clock() + self.next_run_in()

    def reopen_in(self, backend: str) -> float | None:
        """Seconds until a round of `backend` may reopen its gates (their `Retry-After`,
        `router.canary_gates`), as `Runs.reopen_in` counts it from the runs as they stand
        now; None when no time is known."""
        canary, started, running = self.canary, self._started, self.running_since
        # loop time since the run under way started (`_started` is its start meanwhile)
        running_for = 0.0
        if running is not None and started is not None:
            running_for = max(0.0, self.loop_time() - started[0])
        return Runs(
            next_run_in=self.next_run_in(),
            running_since=running,
            running_for=running_for,
            running=self._running,
            configured=frozenset(b.name for b in canary.backends),
            last_run=canary.last_run,
            graded=self._graded,
        ).reopen_in(backend)

    def _remember_rounds(self) -> None:
        """Keep each backend's last round that graded a case (`router.canary_reopen`): its
        next round may grade none, as a recalled latest may (the recall's are
        `Follower.graded`). A backend a reload removed is forgotten with its `last_run`."""
        last_run = self.canary.last_run
        kept = {name: known for name, known in self._graded.items() if name in last_run}
        for name, run in last_run.items():
            known = graded_after(run, kept.get(name))
            if known is not None:
                kept[name] = known
        self._graded = kept

    def status(self) -> dict[str, Any]:
        """The canary's `canary` status section, with when it runs."""
        running = self.running_since
        return {
            **self.canary.status(),
            "running_since": None if running is None else iso(running),
            "next_run_at": iso(self.next_run_at()),
        }


def iso(ts: float) -> str:
    """A unix time as the status shows times: ISO 8601 UTC, milliseconds."""
    at = datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")
    return at.replace("+00:00", "Z")
