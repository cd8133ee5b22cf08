"""Gates from canary rounds run elsewhere, read back from the ledger.

Kubernetes runs the canary once per cluster: a CronJob runs `smf-router canary run` on the
routers' config and shared ledger, and the routers keep `canary.enabled: false`. Such a
router judges the rounds the job wrote, as its own canary would judge them (the same gate
book, gates, gauges and status section): every `FOLLOW_S`, or `canary.interval_s` when
shorter, it reads the rounds of yesterday and today it has not judged yet; its first read
(a start's, and a canary router's recall) also reads older days, newest first, until each
gate holds what it depends on (`GateBook.memory`) or `RECALL_DAYS` back
(`router.ledger.recent`); `/readyz` waits for that first read (`Components.holding`). A
round counts once all the results its `canary_runs` row announces are on disk
(`router.canary_rows`): a flush may split one. Rows stamped more than `CLOCK_SKEW_S` after
now are not read (`stamped_by`), as where the rotation resumes.
Like its own canary's, it is judged under the router's config when read: only rounds of the
server a backend points at now, and results of the suites the job runs now.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from router.canary import load_cases
from router.canary_counts import not_runnable
from router.canary_gates import ensure_gated
from router.canary_judge import Judge, asked, gate_book, repointed, server
from router.canary_lengths import Graded, graded_after
from router.canary_rows import Round, finished_rounds
from router.config import Backend as BackendSettings
from router.config import Config, ConfigError
from router.ledger.recent import RecentRows, recall_days
from router.server_identity import fingerprint

log = logging.getLogger("smf_router.canary")

FOLLOW_S = 60.0  # a CronJob's round reaches the gates within this (the job runs every 15 min)
RECALLING = "recalling canary gates"  # what `/readyz` says it waits for meanwhile


class Follower:
    """Reads finished rounds from the ledger and hands them to a `Judge`."""

    def __init__(
        self,
        judge: Judge,
        directory: Path,
        config: Callable[[], Config],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.judge = judge
        self.config = config
        self.clock = clock
        self.runs = 0
        self.last_run: dict[str, dict[str, Any]] = {}
        # each backend's last round that graded a case and the length of the one before
        # (`graded_after`), which a later round that graded none does not lose; a canary
        # router's recall hands it on
        self.graded: dict[str, Graded] = {}
        self._runs = RecentRows(directory, "canary_runs")
        self._results = RecentRows(directory, "canary_results")
        self._judged: dict[tuple[str, str], float] = {}  # round -> ts, for the days read
        # The suites the job runs, as of the start or the last reload that loaded them
        # (`job_suites`): None, every suite counts.
        self.suites: set[str] | None = None
        # backend -> (its fingerprint when the servers were said, None for no such backend;
        # the servers whose skipped rounds were said)
        self._skipping: dict[str, tuple[str | None, set[str]]] = {}
        self._recalled = False  # the first read, a start's, reaches back further
        self._stopped = threading.Event()  # the recall's walk ends at the next day (`stop`)

    def stop(self) -> None:
        """The shutdown began (any thread): a recall under way reads no further day. Its
        worker thread cannot be cancelled, and `asyncio.run` waits for it: a shutdown during
        the walk waited for all of it, 9 s over 30 uncompacted days (found in re-review)."""
        self._stopped.set()

    def _read(self, first_day: str) -> list[Round]:
        """Blocking: the file reads, run on a worker thread. Rows stamped later than now
        (`stamped_by`: a writer's clock ahead) are left out until the clock is within
        `CLOCK_SKEW_S` (a minute) of them, as where the rotation resumes leaves them out:
        read, such a round sorted last, its results the newest in each window and its row
        the backend's `last_run`, at each start until the clock caught up, and judged after
        any round read with it."""
        now = self.clock()
        runs, results = self._runs.read(first_day, now=now), self._results.read(first_day, now=now)
        return finished_rounds(runs, results, self._judged)

    def recall_rounds(self, first_day: str) -> list[Round]:
        """The first read (blocking): the rounds of `first_day` on, as every read, and before
        them, day by day newest first, the older rounds the gates' windows still need.

        It read yesterday's and today's rounds only: a gate whose last graded rounds were
        older (a router stopped over a weekend, rounds every two days, rounds that only
        errored since) opened at a restart, while the running router kept it closed, and the
        backend that failed its canary had auto-routed traffic again until new rounds closed
        it (found in review). A gate depends on its last `memory` results (3 windows less
        one: its hysteresis reads the verdicts of the last two windows) and the config,
        however old (the config has no age past which a result stops counting, and a running
        router never forgets one), so the recall goes on until each gate that may close
        (`Judge.gates`) holds `memory` results, or `RECALL_DAYS` back. Not `retention_days`
        (730 by default): a gate that cannot fill (its backend errs or is N/A on every case
        of a suite with a floor, as code cases do without a sandbox) sends every start to
        the bound, and a day of rounds at the defaults (3 backends, 7 suites, every 15 min)
        took 30-90 ms to read compacted, ~300-330 ms as a CronJob leaves it until compaction
        (a file per round and table): 1.5 s for `RECALL_DAYS` compacted, ~9 s uncompacted
        (`/readyz` waits for it, `Components.holding`), one to four minutes for 730.
        Nor past `retention_days` when it is shorter: compaction drops those days, and a
        recall must not depend on whether it has yet. Only days on disk are read, one at a
        time, and only the rounds that fill a window are kept.
        Only gates: a suite's window without a floor (configured or learned) is not filled,
        or a suite no backend grades (code cases without a sandbox) sends every start to the
        bound even with no floor for it; a reload that gives it a floor then decides on the
        results read since the start, where a restart reads back its window (README). Only
        suites the rounds run: a floor on one the job does not run (learned from a baseline
        of more suites) sent every follower's start there, ~10 s over 30 uncompacted days,
        while only a reload loaded the job's suites; the start loads them now (`install`)."""
        rounds = self._read(first_day)
        configured = {b.name: b for b in self.config().backends}
        short = dict.fromkeys(self.judge.gates(), self.judge.book.memory)
        self._fill(short, rounds, configured)
        older: list[Round] = []
        for day in self._days_before(first_day):
            if not short or self._stopped.is_set():
                break
            runs, results = self._runs.read(day, day), self._results.read(day, day)  # one-offs
            found = finished_rounds(runs, results, ())
            older[:0] = self._fill(short, found, configured)
        return older + rounds

    def _fill(
        self,
        short: dict[tuple[str, str], int],
        rounds: list[Round],
        configured: dict[str, BackendSettings],
    ) -> list[Round]:
        """The `rounds` (oldest first) that add results to a window still `short` of them,
        newest first as a window keeps them; what they add is taken off `short`, and a
        window that is full leaves it. Only rounds the follower would judge count."""
        kept: list[Round] = []
        for found in reversed(rounds):
            settings = configured.get(found.summary["backend"])
            if settings is None or not asked(found.summary, settings):
                continue
            adds = False
            for suite, passed in self.judge.graded(found.results).items():
                gate = (found.summary["backend"], suite)
                if gate in short:
                    adds = True
                    short[gate] -= len(passed)
                    if short[gate] <= 0:
                        del short[gate]
            if adds:
                kept.append(found)
        return kept[::-1]

    def _days_before(self, first_day: str) -> list[str]:
        """The days of `canary_runs` on disk before `first_day`, newest first, back to
        `RECALL_DAYS` or `retention_days` ago, whichever is nearer (`recall_days`)."""
        retention_days = self.config().ledger.retention_days
        days = recall_days(self._runs.directory, "canary_runs", self.clock(), retention_days)
        return [day for day in days if day < first_day]

    async def follow_once(self) -> None:
        first_day = first_read_day(self.clock())
        news = self._recalled  # the recall's rounds are history: judged, not counted
        self.judge.counts.expect()  # at 0 before the first round after the recall counts
        read = self._read if self._recalled else self.recall_rounds
        try:
            rounds = await asyncio.to_thread(read, first_day)
        except asyncio.CancelledError:
            self.stop()  # the job is cancelled, at stop: its thread goes on unless told
            raise
        self._recalled = True  # not when the recall failed: the next read tries it again
        # A run's backends may reach the disk in different reads: the run counts once.
        counted = {run_id for run_id, _ in self._judged}
        configured = {b.name: b for b in self.config().backends}
        for found in rounds:
            self._judged[found.key] = found.summary["ts"]
            backend = found.summary["backend"]
            settings = configured.get(backend)
            # The job's config may run ahead of this router's, or behind it: a round of a
            # server the backend no longer points at (a reload moved it) says nothing of it.
            if settings is None or not asked(found.summary, settings):
                self._skipped(found.summary, settings)
                continue
            self.judge.show_open_gates()
            self.last_run[backend] = found.summary
            known = graded_after(found.summary, self.graded.get(backend))
            if known is not None:
                self.graded[backend] = known
            skipped = found.summary.get("skipped_reason")
            self.judge.judge(
                backend, found.results, found.summary["ts"], count=news, skipped=skipped
            )
        self.runs += len({found.key[0] for found in rounds} - counted)
        since = datetime.fromisoformat(first_day).replace(tzinfo=UTC).timestamp()
        self._judged = {k: ts for k, ts in self._judged.items() if ts >= since}

    def _skipped(self, summary: dict[str, Any], settings: BackendSettings | None) -> None:
        """A round not judged (`settings`: the backend of its name now, if any): said once per
        backend and server, not for each round (a CronJob on another config skips every one,
        for good). Skipped without a word, a job and routers whose configs had drifted apart
        showed gates that never moved (found in review). The servers said are kept while the
        backend points at the server it does now: only the last one kept, two writers on
        other configs had every round said (found in re-review); forgotten on each judged
        round, a job on this config and one on another had every skipped round said, ~96 a
        day (found in round-2 re-review). A reload that points the backend elsewhere (or
        adds or removes it) starts over: what is skipped, and why, may have changed."""
        backend, asked_server = summary["backend"], summary.get("server") or ""
        now = None if settings is None else fingerprint(settings)
        said_for, skipping = self._skipping.get(backend, (None, set()))
        if said_for != now:
            skipping = set()
        self._skipping[backend] = (now, skipping)
        if asked_server in skipping:
            return
        skipping.add(asked_server)
        if settings is None:
            log.warning(
                "canary: rounds of backend %s are not judged: this router's config has no "
                "backend of that name (said once per server until a reload adds it)",
                backend,
            )
            return
        model, url = summary.get("model"), summary.get("base_url")
        if (model, url) == (settings.model, server(settings)["base_url"]):
            which = "same model and URL, other kind or extra_body"  # the fingerprint differs
        else:
            which = f"model {model} at {url or 'no base URL'}"
        log.warning(
            "canary: rounds of backend %s asked another server (%s) than the one it points "
            "at now; they are not judged (said once per server until a reload repoints it)",
            backend,
            which,
        )

    async def loop(self, recalled: Callable[[], None] = lambda: None) -> None:
        """Read now, then every `FOLLOW_S` (or `interval_s`); a failed read is logged only.
        `recalled` is called once the first read (the recall) is over, failed or not."""
        while True:
            try:
                await self.follow_once()
            except Exception:
                log.exception("reading canary results from the ledger failed")
            recalled()
            recalled = _nothing
            await asyncio.sleep(min(FOLLOW_S, self.config().canary.interval_s))

    def status(self) -> dict[str, Any]:
        """The `canary` section of `/v1/router/status`, as a router's own canary shows it."""
        return {
            "follows_ledger": True,
            "runs": self.runs,
            "last_run": self.last_run,
            **self.judge.status(),
        }


def first_read_day(now: float) -> str:
    """The first day (UTC, YYYY-MM-DD) each read reads whole: yesterday. Days before it only
    a start's recall reads, and only the rounds the gates' windows need."""
    return (datetime.fromtimestamp(now, UTC) - timedelta(days=1)).date().isoformat()


def _nothing() -> None:
    pass


def hold_ready(components: Any, judge: Judge) -> Callable[[], None]:
    """`Components.holding` for the recall when it has a gate to recall (`Judge.gates`: a
    floor, configured or learned): without one (the demo, a config with no canary floors)
    `/readyz` said it waited for the recall for the 0.1-0.2 s of a read that closes none
    (found in re-review)."""
    return components.holding(RECALLING) if judge.gates() else _nothing


def job_suites(
    config: Config, meanwhile: str = "the canary gates stay as they are"
) -> dict[str, int] | None:
    """The suites the CronJob runs on `config`, so those it dropped leave the gates, each
    with its count of cases N/A for a mistake (`router.canary_counts.not_runnable`); None
    when they do not load here. A config with the canary off whose suites do not load
    starts fine, and a reload rejected it (found in review): now a warning saying what
    holds `meanwhile`, the gates stay (the job reports its own error). With
    `canary.enabled` (applied at the next restart) start loads them, and so a suite that
    does not load rejects the reload."""
    try:
        return not_runnable(load_cases(config))
    except ConfigError as exc:
        if config.canary.enabled:
            raise
        log.warning("%s; %s", exc, meanwhile)
        return None


def install(components: Any) -> None:
    """FEATURES installer: without `canary.enabled`, gate routes on the ledger's rounds."""
    config: Config = components.config
    if config.canary.enabled:
        return  # the router's own canary judges its own rounds
    judge = Judge(
        gate_book(config.canary),
        components.metrics,
        lambda: [b.name for b in components.config.backends],
        lambda: follower.suites,
    )
    follower = Follower(judge, Path(config.ledger.path), lambda: components.config)
    gateway = components.gateway
    ensure_gated(gateway, judge.gated)

    recalled = hold_ready(components, judge)

    async def job() -> None:
        ensure_gated(gateway, judge.gated)  # another feature may have replaced the state source
        await known_suites()
        await follower.loop(recalled)

    async def known_suites() -> None:
        """The suites the job runs, loaded before the recall as a reload loads them: a gate
        of a suite it does not run never fills (`Follower.recall_rounds`). Off the start's
        path, on a thread (the shipped suites load in 0.07-0.2 s); the first read waits for it.
        A reload meanwhile that loaded its suites set them, and they stand; one whose suites
        did not load said the gates stay as they are, and so the start's suites hold: kept
        only when no reload came, its gates of suites the job does not run sent the recall
        back `RECALL_DAYS` (found in re-review)."""
        try:
            suites = await asyncio.to_thread(
                job_suites, components.config, "every suite's rounds count"
            )
        except Exception:
            log.exception("canary: loading canary.suites failed; every suite's rounds count")
            return
        if follower.suites is None and suites is not None:  # else a reload's, loaded meanwhile
            follower.suites = set(suites)
            components.metrics.canary_suites_loaded(suites)

    def prepare(new: Config) -> Callable[[], None]:
        old = components.config.canary
        # The job runs the routers' config: suites it dropped have no more rounds to judge.
        # Read whatever changed: a suite deleted under the same path is dropped too.
        suites = job_suites(new)
        moved = repointed(components.config.backends, new.backends)
        retune = judge.prepare(old, new.canary, suites, moved)

        def apply() -> None:
            names = {b.name for b in new.backends}  # a removed backend leaves the status too
            follower.last_run = {b: run for b, run in follower.last_run.items() if b in names}
            if suites is not None:  # rounds read from now on: only the suites the job runs
                follower.suites = set(suites)
                components.metrics.canary_suites_loaded(suites)
            retune()

        return apply

    components.background.append(job)
    components.shutdown_hooks.append(follower.stop)
    components.reload_hooks.append(prepare)
    components.status_sections["canary"] = follower.status
