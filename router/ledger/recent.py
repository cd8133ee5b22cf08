"""The rows of a row table's latest days, read straight from its segments for a live router.

A router that follows rows another process writes (the canary CronJob's `canary_runs` and
`canary_results`) reads them every minute: with PyArrow, which the writer loads with its
first row, not DuckDB (a router that only writes never pays for it), and none while the
table is not there (every router follows, a canary or none: an idle one loaded PyArrow for
nothing, found in review); and each file once (checking its checksum then), since a
segment never changes after its rename. A merge's output is a new
file; `segments.list_table` leaves out the files it replaced. A file that fails its check
or does not decode is tried again at the next read (an error on a network volume may pass;
an operator may restore the file or delete its checksum, as docs/ledger.md says), and logged
once until a read of it succeeds: it was logged never before, and every minute would flood.
A file compaction marked damaged (`router.ledger.damage`) is not listed: it is logged once
too, while it stays marked, or its rows would be missing without a word.
`recall_days` lists the days a start reads back one at a time, newest first (the canary's
gate recall and where its rotation resumes), as far as `RECALL_DAYS` goes, and no day after
now's: a round stamped in the future (a clock ahead, then stepped back) was the "latest"
until the clock caught up, and every round since resumed after it (found in re-review).
A read given `now` leaves such rows out too, and the days after now's: the one rule
(`stamped_by`) for every reader of rounds, the follower's reads each minute as a start's.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

log = logging.getLogger("smf_router.ledger.recent")

# How far back a start reads canary rounds (`Follower.recall_rounds`, why 30 there). Here:
# `router.canary_rotation` reads it too, and it is imported by what `canary_follow` imports.
RECALL_DAYS = 30
# How far past `now` a row's `ts` may be and still be of a round that ran. The canary
# process that wrote it may run on another node than the one reading (a CronJob's pod): under
# NTP their clocks agree within well under a second, and a minute leaves room for one whose
# sync lags. Past that, the writer's clock was ahead. Far below the time between rounds (15 min
# for the CronJob's): a round stamped ahead by less than it is still older than the next one.
CLOCK_SKEW_S = 60.0


def stamped_by(now: float) -> datetime:
    """The latest `ts` a row read at `now` may carry and be of a round that ran (naive
    UTC, as the ledger keeps it): later, its writer's clock was ahead (`CLOCK_SKEW_S`)."""
    return datetime.fromtimestamp(now + CLOCK_SKEW_S, UTC).replace(tzinfo=None)


def recall_days(
    directory: Path,
    table: str,
    now: float,
    retention_days: int,
    warnings: list[str] | None = None,
) -> list[str]:
    """The days of `table` on disk (UTC, YYYY-MM-DD), newest first, back to `RECALL_DAYS`
    or `retention_days` before `now`, whichever is nearer (as `compaction.apply_retention`
    counts days: a read must not depend on whether compaction has dropped them yet), and up
    to now's day (`CLOCK_SKEW_S` on): a later one holds rows stamped in the future. Only
    days there are: a walk back reads them one at a time (`RecentRows.read(day, day)`)
    and opens no empty day. A table it may not list has none, said in `warnings` when given
    (`RecentRows.days_back` logs them), as is a directory that is no day."""
    try:
        if not (directory / table).is_dir():
            return []  # no rows yet: no need to load PyArrow for it, as in `read`
    except OSError:
        pass  # a ledger this account may not search: the listing says so
    from router.ledger import segments  # PyArrow, as `RecentRows` loads it: when read

    days_back = min(RECALL_DAYS, retention_days)
    oldest = (datetime.fromtimestamp(now, UTC) - timedelta(days=days_back)).date()
    newest = stamped_by(now).date()
    listed = segments.day_dirs(directory, table, warnings)
    days = {segments.partition_day(path) for path in listed}
    found = (d.isoformat() for d in days if d is not None and oldest <= d <= newest)
    return sorted(found, reverse=True)


class RecentRows:
    """One table's rows from `first_day` on, re-reading only files it has not read."""

    def __init__(self, directory: Path, table: str) -> None:
        self.directory = directory
        self.table = table
        self._files: dict[Path, list[dict[str, Any]]] = {}
        self._failed: set[Path] = set()  # listed files whose last read failed (logged once)
        self._warned: set[str] = set()  # what the listing left out, marked files too (once)

    def days_back(self, now: float, retention_days: int) -> list[str]:
        """`recall_days` of this table, what its listing leaves out logged as a one-off
        read's is. A `canary_results/` it may not list started the rotation over without a
        word, where a read had said so (found in re-review)."""
        warnings: list[str] = []
        days = recall_days(self.directory, self.table, now, retention_days, warnings)
        self._log_warnings(warnings, keep=False)
        return days

    def read(
        self, first_day: str, last_day: str | None = None, now: float | None = None
    ) -> list[dict[str, Any]]:
        """Every row of the days from `first_day` (UTC, YYYY-MM-DD), to `last_day` if given;
        blocking file I/O. A read to `last_day` (a restart's recall, one older day at a
        time) is a one-off: its files are not kept, and those of the latest days are not let
        go (they were re-read at the next read); what its listing leaves out is said unless
        already said. Its own reader said a non-day directory a second time each start.
        Given `now`, rows stamped later (`stamped_by`) are left out, and later days not
        read: a round stamped ahead is read once the clock is within `CLOCK_SKEW_S` of it.
        So are rows stamped with no time: compared, one stopped every read (found in review)."""
        try:
            if not (self.directory / self.table).is_dir():
                return []  # nothing written yet (or ever): no need to load PyArrow for it
        except OSError:
            pass  # a ledger this account may not search: the listing says so
        from router.ledger import checksum, schema, segments

        bound = None if now is None else stamped_by(now)
        newest = last_day
        if bound is not None and (newest is None or bound.date().isoformat() < newest):
            newest = bound.date().isoformat()
        listing = segments.list_table(self.directory, self.table, first_day, newest)
        self._log_warnings(listing.warnings, keep=last_day is None)
        files: dict[Path, list[dict[str, Any]]] = {}
        for segment in listing.segments:
            rows = self._files.get(segment.path)
            if rows is None:
                try:
                    checksum.verify(segment.path)
                    rows = segments.read_file(segment.path).to_pylist()
                except FileNotFoundError:  # merged away since listed
                    continue
                except (OSError, ValueError, checksum.Mismatch) as exc:
                    if segment.path not in self._failed:
                        log.warning(
                            "skipped unreadable %s segment %s: %s", self.table, segment.path, exc
                        )
                    self._failed.add(segment.path)
                    continue
                self._failed.discard(segment.path)
            files[segment.path] = rows
        if last_day is None:
            self._files = files  # files of days left behind, or merged away, are let go
            self._failed &= {segment.path for segment in listing.segments}  # and failed ones
        found = (row for rows in files.values() for row in rows)
        if bound is None:
            return list(found)
        stamped = schema.TIME_COLUMN[self.table]
        return [row for row in found if row[stamped] is not None and row[stamped] <= bound]

    def _log_warnings(self, warnings: list[str], keep: bool = True) -> None:
        """Log each thing the listing left out once, while it lasts: a file marked damaged,
        or a table it may not list (dropped, a `canary_results/` another account's made the
        canary follower read nothing, every minute, and say nothing; found in review).
        A one-off read's are added to those said: a walk back reads a day at a time, and each
        listing says the table's again (a `day=….bak` was logged once per day walked, found
        in re-review). A read of the latest days replaces them with its own: what it does not
        say now is said again once back, and what a one-off said, still so, is not twice."""
        for warning in warnings:
            if warning not in self._warned:
                log.warning("%s: %s", self.table, warning)
        if keep:  # what the latest days' listing says now
            self._warned = set(warnings)
        else:
            self._warned |= set(warnings)
