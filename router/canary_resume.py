"""When a router's canary last started a run, as a restart finds it: its first run waits out
`interval_s` from there (`router.canary_schedule`).

Two witnesses, the later one counts:
- the ledger's rounds: the newest run's start (`last_start`) among the rounds the start
  recalls;
- this router's own run starts (`canary_starts`, `router.canary_starts`), written as each
  run is about to ask its first case: a router killed before a round of its run reached
  the ledger left no trace of the run, and each restart of a crash loop, or of a run whose
  first round takes long to land, started a full run at once (found in review).
The rounds are read whole for yesterday and today only, and older days for the results the
gates' windows still need (none without a floor, none in rounds that graded nothing): with
neither witness of those days, the newest run of the newest earlier day on disk within
`interval_s` (`earlier_start`, rounds and starts: only an `interval_s` over a day reaches
one). Unread, a run two or more days ago went unseen, and the restart ran at once where
`interval_s` (30 days at most) was not over (found in review).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from router.canary_follow import first_read_day
from router.canary_judge import asked
from router.canary_rows import unix
from router.canary_starts import own_start
from router.config import Backend as BackendSettings
from router.ledger.recent import RecentRows, recall_days

log = logging.getLogger("smf_router.canary")


def last_start(rounds: Iterable[dict[str, Any]]) -> float | None:
    """When the newest run among `rounds` (`last_run` entries) started: its rounds' earliest
    start (`ts`, a round's start, not its end), None without any round. A run's rounds start
    a few milliseconds apart; one cut by a crash may lack some backends' rounds, whose
    latest are then of an earlier run, left out."""
    known = list(rounds)
    if not known:
        return None
    newest = max(known, key=lambda run: float(run["ts"]))["run_id"]
    return min(float(run["ts"]) for run in known if run["run_id"] == newest)


def resumed_from(
    directory: Path,
    recalled: float | None,
    backends: Sequence[BackendSettings],
    now: float,
    interval_s: float,
    retention_days: int,
    writer: str,
    stopped: threading.Event | None = None,
) -> tuple[float, str] | None:
    """Blocking: the last start a restart goes on from, and what says it: the later of the
    `recalled` run's start and `writer`'s own latest start of yesterday or today (`own_start`),
    and when neither is of those days, the earlier days' (`earlier_start`, which reads no
    further day once `stopped` is set); None with none."""
    first_day = first_read_day(now)
    try:
        starts = RecentRows(directory, "canary_starts").read(first_day, now=now)
        started = own_start(starts, backends, writer)
    except Exception:  # never fatal, nor the end of the other witnesses
        log.exception("canary: reading this router's run starts failed")
        started = None
    found = {"its rounds in the ledger": recalled, "its start in the ledger": started}
    since = datetime.fromisoformat(first_day).replace(tzinfo=UTC).timestamp()
    if all(start is None or start < since for start in found.values()):
        try:
            earlier = earlier_start(
                directory, backends, now, interval_s, retention_days, writer, stopped
            )
        except Exception:  # never fatal: the first run starts as the others say
            log.exception("canary: reading the runs of earlier days failed")
            earlier = None
        found["its rounds or start of an earlier day in the ledger"] = earlier
    known = [(start, why) for why, start in found.items() if start is not None]
    return max(known) if known else None


def earlier_start(
    directory: Path,
    backends: Sequence[BackendSettings],
    now: float,
    interval_s: float,
    retention_days: int,
    writer: str,
    stopped: threading.Event | None = None,
) -> float | None:
    """Blocking: the start of the newest run on a day before the ones every read reads whole
    (`first_read_day`) that may have started within `interval_s` of `now`: of its rounds in
    `canary_runs` of a server among `backends` (`last_start`), or `writer`'s own start
    (`own_start`); None when no such day holds one. The days on disk are listed
    (`recall_days`, of both tables: no further back than the recall goes) and read newest
    first, those two tables alone, until one holds such a run: with `interval_s` under a
    day, no day at all. None once `stopped` is set (the shutdown began, any thread): the
    walk reads no further day. A worker thread cannot be cancelled, and a shutdown during a
    walk of up to 30 days waited for all of it (found in review), as a recall's did
    (`Follower.stop`)."""
    first_day = first_read_day(now)
    oldest = datetime.fromtimestamp(now - interval_s, UTC).date().isoformat()
    configured = {backend.name: backend for backend in backends}
    rounds, starts = RecentRows(directory, "canary_runs"), RecentRows(directory, "canary_starts")
    days = {
        day
        for table in ("canary_runs", "canary_starts")
        for day in recall_days(directory, table, now, retention_days)
    }
    for day in sorted(days, reverse=True):
        if day >= first_day:
            continue
        if day < oldest or (stopped is not None and stopped.is_set()):
            break
        found = [
            {**row, "ts": unix(row["ts"])}
            for row in rounds.read(day, day, now=now)
            if row["backend"] in configured and asked(row, configured[row["backend"]])
        ]
        known = [last_start(found), own_start(starts.read(day, day, now=now), backends, writer)]
        if any(start is not None for start in known):
            return max(start for start in known if start is not None)
    return None
