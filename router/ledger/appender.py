"""The ledger writer's flush side: Arrow tables, segment files, merges of its own files.

The new rows become Arrow tables in `router.ledger.conversion`; what each step of a flush
raised is kept and logged by `router.ledger.flush_errors`. Everything here needs PyArrow,
so `LedgerWriter` imports this module at its first flush, on its own thread, instead of at
start (see `router.ledger.writer`).

Merges run on a thread of their own. A level-2 merge reads 24 minutes of traffic (seconds
of work on a busy router); done on the flush thread it held every flush behind it, so a
SIGKILL then lost seconds of records instead of one interval, and a merge that failed on a
full disk was taken for a failed write and its already written rows were written again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from router.ledger import compaction, daylock, leftovers, segment_write, segments
from router.ledger.backlog import UNSPLIT, Backlog, Batch, Key
from router.ledger.conversion import Converter
from router.ledger.doomed import Doomed
from router.ledger.flush_errors import Raised, said, traced
from router.ledger.schema import TIME_COLUMN
from router.ledger.segments import Segment
from router.pricing import price_map_version
from router.record import Record

log = logging.getLogger("smf_router.ledger.appender")

MERGE_FANOUT = (60, 24)  # merge 60 level-0 files into one level-1, 24 level-1 into a level-2
SOURCE_GRACE_S = 30.0  # merged-away files stay this long for readers that already listed them


@dataclass(slots=True)
class _Owned:
    segment: Segment
    level: int


class Appender:
    """Writes batches as segments under one process tag; holds failed writes for a retry."""

    def __init__(self, directory: Path, process_tag: str, store_text: bool, max_kept: int) -> None:
        self.directory = directory
        self.process_tag = process_tag
        self.store_text = store_text
        self.dropped: Counter[str] = Counter()  # rows given up, by table
        # A write (or split into days) of the last flush failed; one with nothing to write
        # (so nothing held either) clears it, as does a flush that writes everything. Read by
        # `/v1/router/status` on another thread.
        self.write_failed = False
        self.raised = Raised()  # what each step of the flush raised, while it does
        self._converter = Converter(store_text, self.raised)
        self._backlog = Backlog(max_kept)  # rows whose write failed, at most `max_kept`
        # files of this process that are not being merged, by (table, day); guarded by _lock,
        # which the flush thread and the merge thread share
        self._owned: dict[tuple[str, str], list[_Owned]] = {}
        self._doomed = Doomed()  # merged-away files, deleted once readers are done
        self._lock = threading.Lock()
        self._merger = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ledger-merge")
        self._merges: list[Future[None]] = []
        # a merge killed with this router's last run left its temporary in today's directory
        self._sweeps = leftovers.Sweeps()  # the merge thread's alone
        self._merges.append(self._merger.submit(self._sweeps.today, directory))
        self._seq = 0
        self._version = price_map_version()
        for warning in segment_write.close_private_tables(directory):
            log.warning("%s", warning)

    @property
    def pending_rows(self) -> int:
        """Rows held in memory because their write failed (every table)."""
        return self._backlog.rows

    def append(
        self, records: Sequence[Record], rows: dict[str, list[dict[str, Any]]]
    ) -> Counter[str]:
        """Write `records` and the other tables' `rows`, then rows held from failed writes,
        as `router.ledger.backlog` says: new rows first, one file per (table, day), then the
        held ones in chunks while writes work. Returns the rows written per table; the rows
        left unwritten are held for the next call.

        Whatever raises once the rows are in batches (a bug, not a write's failure: `_write`
        keeps those) fails the flush's unwritten rows like a failed write:
        they go back to the backlog and `write_failed` is set, until a later flush writes
        them. Raised out of here, they were lost uncounted, and with nothing left to try,
        `write_failed` stayed true (found in review).

        Each step's guard catches a `SystemExit` or `KeyboardInterrupt` (a bug calling
        `sys.exit`, a ^C at close) too, and handles it as such a bug's exception; it is kept
        in `raised.interrupted`, for the writer to raise again once it counted the rows written.
        Caught as `Exception` only, it went up with the held rows taken out of the backlog
        and the new ones, lost uncounted (found in review).

        Whatever raises while the rows are put in batches, before any is written, puts the
        held rows back in the backlog as they were, and goes on up: the writer counts the
        new rows as dropped. Raised with the held rows taken, they were lost uncounted while
        `pending_rows` went on showing them (found in review)."""
        fresh = self._converter.tables(records, rows, self.dropped)
        taken = self._backlog.take()
        try:
            batches = self._batches(taken, fresh)
            probes = {key for key, batch in batches.items() if not batch.fresh}
        except BaseException:
            self._backlog.put_back(taken)
            raise
        new: Counter[str] = Counter()  # rows written, by table: counted as each file is
        held: Counter[str] = Counter()  # of them, the held rows written back
        try:
            self._write_new(batches, new)
            self._write_held(batches, probes, held)
        except BaseException as exc:
            self._raised(exc, batches)
        else:
            self.raised.passed("write")
        written = new + held
        # No batches: nothing was held (`take` found none) nor new. Left as it was then, it
        # stayed true for good after rows were dropped rather than held (`salvage`), and
        # `last_ok_flush_unix` stopped (found in review).
        self.write_failed = any(b.error is not None for b in batches.values())
        left = {key: b for key, b in batches.items() if b.held or b.fresh}
        try:
            self.dropped += self._backlog.settle(left, held.total(), wrote=bool(written))
        except BaseException as exc:
            self._unsettled(exc, left)
        else:
            self.raised.passed("settle")
        return written

    def _unsettled(self, exc: BaseException, left: dict[Key, Batch]) -> None:
        """`Backlog.settle` raised (a bug, no memory to combine the rows): the rows of `left`
        it did not hold are dropped, counted and logged (once while flush after flush raises
        the same). Raised out of the flush, they were lost uncounted, and so were the rows
        the flush had written (found in review)."""
        lost = self._backlog.salvage(left)
        self.dropped += lost
        if self.raised.first_time("settle", exc):
            # the counts and the error, never a row: a row may hold a caller's data
            log.error(
                "ledger dropped %s it could not hold for the next flush: %s",
                ", ".join(f"{n} {table} rows" for table, n in sorted(lost.items())) or "no rows",
                said(exc),
                exc_info=traced(exc),
            )

    def _raised(self, exc: BaseException, batches: dict[Key, Batch]) -> None:
        """Fail the rows `batches` still hold with `exc`, so they are held for the next
        flush; log it, with its traceback, unless the last flush raised the same (a bug
        that raises every flush: the outage's reports go on saying it, a line a minute)."""
        if self.raised.first_time("write", exc):
            # the error and where it was raised, never a row: a row may hold a caller's data
            log.error(
                "ledger flush raised; its unwritten rows are held for the next: %s",
                said(exc),
                exc_info=traced(exc),
            )
        for batch in batches.values():
            if batch.error is None and (batch.held or batch.fresh):
                batch.error = exc

    def _write_new(self, batches: dict[Key, Batch], written: Counter[str]) -> None:
        """Write each (table, day)'s new rows as one file."""
        for (table, day), batch in batches.items():
            if batch.fresh and batch.error is None:
                data = pa.concat_tables(batch.fresh)
                if self._write(table, day, data, batch):
                    written[table] += data.num_rows
                    batch.fresh = []

    def _write_held(
        self, batches: dict[Key, Batch], probes: set[Key], written: Counter[str]
    ) -> None:
        """Write the held rows back, in chunks, up to the first failed write. Those of a
        (table, day) follow its written new rows; those of one without new rows (`probes`)
        are tried only while no write of this flush failed (one failed chunk at most)."""
        failing = any(b.error is not None for (_, day), b in batches.items() if day != UNSPLIT)
        for (table, day), batch in batches.items():
            if batch.error is not None or not batch.held or (failing and (table, day) in probes):
                continue
            for chunk, rest in batch.held_chunks():
                if not self._write(table, day, chunk, batch):
                    failing = True
                    break
                # forgotten as written: rows raised past go back to the backlog, not these
                batch.held = rest
                written[table] += chunk.num_rows

    def _batches(
        self, held: dict[tuple[str, str], pa.Table], fresh: list[tuple[str, pa.Table]]
    ) -> dict[tuple[str, str], Batch]:
        """The `held` rows (`Backlog.take`) and the new ones, by (table, day). Rows that
        cannot be split into days go under `UNSPLIT` with the error, held rows of it are
        split again here."""
        batches = {key: Batch(held=[data]) for key, data in held.items() if key[1] != UNSPLIT}
        unsplit = [(table, data, True) for (table, day), data in held.items() if day == UNSPLIT]
        for table, data, was_held in unsplit + [(table, data, False) for table, data in fresh]:
            try:
                parts = segments.split_by_day(data, TIME_COLUMN[table])
            except BaseException as exc:  # whatever went wrong, the rows wait for a retry
                self.raised.keep(exc)
                batch = batches.setdefault((table, UNSPLIT), Batch())
                (batch.held if was_held else batch.fresh).append(data)
                batch.error = exc
                continue
            for day, part in parts.items():
                batch = batches.setdefault((table, day), Batch())
                (batch.held if was_held else batch.fresh).append(part)
        return batches

    def _write(self, table: str, day: str, data: pa.Table, batch: Batch) -> bool:
        """Write `data` as one file of `batch`'s (table, day); a failure is kept in
        `batch.error`. True once the file is written, whatever its tracking for merges
        does: rows written and held again would be written twice."""
        try:
            path = self._next_path(table, day)
            segment_write.write_segment(path, data, price_map_version=self._version)
        except Exception as exc:
            batch.error = exc
            return False
        try:
            self._track(table, day, Segment(path, day, data.num_rows))
        except BaseException as exc:  # the file stays as written: closed-day compaction merges it
            self.raised.keep(exc)
            log.exception("%s file %s written but not tracked for merges", table, path.name)
        return True

    def remove_doomed(self, now: float) -> None:
        """Delete merged-away files whose grace time for readers has passed; those that
        cannot be (a directory made read-only) stay, ignored by readers, tried again later
        and warned of once (`router.ledger.doomed`). Whatever else raises there is a warning:
        the flush's rows are written all the same. Raised, it skipped counting them in the
        writer's `written_total` (found in review)."""
        try:
            self._doomed.remove_due(now, SOURCE_GRACE_S)
        except Exception as exc:
            log.warning(
                "could not delete merged-away ledger files (readers ignore them; closed-day "
                "compaction deletes them): %s: %s",
                type(exc).__name__,
                exc,
            )

    def wait_for_merges(self) -> None:
        """Return when no merge is running or queued (a finished merge can queue the next
        level's, hence the loop)."""
        while True:
            with self._lock:
                pending = [f for f in self._merges if not f.done()]
            if not pending:
                return
            wait(pending)

    def close(self) -> None:
        """Let a running merge finish and drop queued ones: their inputs are complete files
        already, and closed-day compaction merges them later. Rows still kept for a retry
        are lost now, counted and logged (`Backlog.close`). Merged-away files are deleted
        now, due or not; those that cannot be are left to closed-day compaction
        (`Doomed.remove_all`)."""
        self._merger.shutdown(wait=True, cancel_futures=True)
        lost = self._backlog.close()
        self.dropped += lost
        self._doomed.remove_all()

    def _next_path(self, table: str, day: str) -> Path:
        with self._lock:  # the merge thread names its outputs too
            self._seq += 1
            seq = self._seq
        name = f"{self.process_tag}-{seq:08d}{segments.SUFFIX}"
        return segments.day_dir(self.directory, table, day) / name

    def _track(self, table: str, day: str, segment: Segment) -> None:
        with self._lock:
            owned = self._owned.setdefault((table, day), [])
            owned.append(_Owned(segment, 0))
            self._schedule_merges(table, day)
            self._forget_old_days(day)

    def _schedule_merges(self, table: str, day: str) -> None:
        """Hand each full level of a day's own files to the merge thread (under `_lock`)."""
        owned = self._owned[(table, day)]
        for level, fanout in enumerate(MERGE_FANOUT):
            group = [o for o in owned if o.level == level]
            if len(group) >= fanout:
                owned[:] = [o for o in owned if o.level != level]
                self._merges = [f for f in self._merges if not f.done()]
                try:
                    job = self._merger.submit(self._merge, table, day, level, group)
                except RuntimeError:  # closing: the files stay as they are
                    return
                self._merges.append(job)

    def _merge(self, table: str, day: str, level: int, group: list[_Owned]) -> None:
        """On the merge thread: merge `group` into one file one level up. A failed merge
        (a full disk) leaves its inputs as they are: complete files, still read.

        It holds its day's lock (shared: other writers' merges of their own files may run)
        from reading its inputs to renaming its output: a compaction of the day (`ledger
        compact --grace-hours 0` at midnight) that listed them meanwhile merged them too,
        and both files held their rows. Refused, it leaves them to that compaction. Where
        flock is unavailable (NFSv3 without lockd) it merges without it (`daylock`). Under
        it, it deletes the day's dead temporaries now and then (`leftovers.Sweeps`)."""
        out = self._next_path(table, day)
        try:
            with daylock.day_lock(out.parent, shared=True) as held:
                if not held:
                    left = len(group)
                    log.info("%s/%s is being compacted: %d files left to it", table, day, left)
                    return
                self._sweeps.sweep(out.parent)
                inputs = [o.segment for o in group]
                replaced, warnings = compaction.merge(inputs, out, delete=False)
        except Exception:
            log.exception("merge of %d %s files failed; they stay unmerged", len(group), table)
            return
        finally:
            compaction.give_back_memory()
        for warning in warnings:
            log.warning("%s", warning)
        if not replaced:  # under two inputs decodable: nothing was written to track
            return
        rows = sum(o.segment.rows for o in group)
        self._doomed.add(time.monotonic() + SOURCE_GRACE_S, replaced)
        with self._lock:
            owned = self._owned.get((table, day))
            if owned is not None:  # not a past day by now
                owned.append(_Owned(Segment(out, day, rows), level + 1))
                self._schedule_merges(table, day)

    def _forget_old_days(self, day: str) -> None:
        # Past days are left to `compaction.compact`; only recent days are merged here.
        # (Called under `_lock`.)
        for key in [k for k in self._owned if k[1] < day]:
            del self._owned[key]
