"""When a router's canary last started a run, as a restart finds it: its first run waits out
`interval_s` from there (`router.canary_schedule`).

Two witnesses, the later one counts:
- the ledger's rounds: the newest run's start (`last_start`) among the rounds the start
  recalls; with none of yesterday or today (nor a mark), the newest run of the newest
  earlier day on disk within `interval_s` (`earlier_start`: only an `interval_s` over a day
  reaches one). The recall reads yesterday and today whole, and older days only for the
  results the gates' windows still need (none without a floor, none in rounds that graded
  nothing): a run two or more days ago went unseen, and the restart ran at once where
  `interval_s` (30 days at most) was not over (found in review). The mark does not cover
  that: rounds of `smf-router canary run` on the same ledger, or of a version before the
  mark, have none;
- the mark the schedule writes in the ledger's directory as each run is about to ask its
  first case (`router.canary_mark`), stamped with the run's start: a run stopped before
  that (while its first run reads the rotation's history) asks nothing and leaves the last
  mark as it was (found in review). The rounds alone were not enough: a router killed
  (SIGKILL, the OOM killer, a crash) before a round of its run reached the ledger left no
  trace of the run, and each restart of a crash loop, or of a run whose first round takes
  long to land, started a full run at once (found in review).

How the mark is written and read: `router.canary_mark`.
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
from router.canary_mark import marked_start
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
    `recalled` run's start and the mark's (`marked_start`, if `writer` wrote it), and when
    neither is of the days every read reads whole, the earlier days' (`earlier_start`, which
    reads no further day once `stopped` is set); None with none."""
    found = {
        "its rounds in the ledger": recalled,
        "marked as it started": marked_start(directory, backends, now, writer),
    }
    since = datetime.fromisoformat(first_read_day(now)).replace(tzinfo=UTC).timestamp()
    if all(start is None or start < since for start in found.values()):
        try:
            earlier = earlier_start(directory, backends, now, interval_s, retention_days, stopped)
        except Exception:  # never fatal: the first run starts as the others say
            log.exception("canary: reading the runs of earlier days failed")
            earlier = None
        found["its rounds of an earlier day in the ledger"] = earlier
    known = [(start, why) for why, start in found.items() if start is not None]
    return max(known) if known else None


def earlier_start(
    directory: Path,
    backends: Sequence[BackendSettings],
    now: float,
    interval_s: float,
    retention_days: int,
    stopped: threading.Event | None = None,
) -> float | None:
    """Blocking: the start (`last_start`) of the newest run in `canary_runs` on a day before
    the ones every read reads whole (`first_read_day`) that may have started within
    `interval_s` of `now`, among rounds of a server among `backends`; None when no such
    day holds one. The days on disk are listed (`recall_days`: no further back than the
    recall goes) and read newest first, `canary_runs` alone, until one holds such a round:
    with `interval_s` under a day, no day at all. None once `stopped` is set (the shutdown
    began, any thread): the walk reads no further day. A worker thread cannot be cancelled,
    and a shutdown during a walk of up to 30 days waited for all of it (found in review),
    as a recall's did (`Follower.stop`)."""
    first_day = first_read_day(now)
    oldest = datetime.fromtimestamp(now - interval_s, UTC).date().isoformat()
    configured = {backend.name: backend for backend in backends}
    rows = RecentRows(directory, "canary_runs")
    for day in recall_days(directory, "canary_runs", now, retention_days):
        if day >= first_day:
            continue
        if day < oldest or (stopped is not None and stopped.is_set()):
            break
        found = [
            {**row, "ts": row["ts"].replace(tzinfo=UTC).timestamp()}  # the ledger's naive UTC
            for row in rows.read(day, day, now=now)
            if row["backend"] in configured and asked(row, configured[row["backend"]])
        ]
        if found:
            return last_start(found)
    return None
