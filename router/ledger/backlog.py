"""Rows the ledger writer holds in memory because their write failed, until a flush writes them.

Writes fail for minutes at a time (a full disk, a read-only remount). The held rows are one
Arrow table per (table, day). Kept per failed batch, each flush retried, and logged, every
batch since the outage began: after an hour at 1 s, 3,600 warnings a second, and 3,600 files
to write back (found in review). Now an outage logs one warning when it starts, one a minute
at most while it lasts (one more when rows are first dropped) and one when the writes
recover, or when the writer closes first; every drop is in one of them.

A flush writes its new rows first, one file per (table, day), and only then, if they were
written (or it had none: then one held chunk is the probe), the held rows, oldest first, in
files of at most `RETRY_CHUNK_ROWS`, up to the first that fails; the new rows of a failed
write join the held ones. Written as one file with the new rows, the held rows made every
write all or nothing: a disk with room for part of them (freed in part) took none, new rows
piled up to the bound and were dropped (found in review), and every flush of an outage
re-encoded the whole backlog, up to 1,000,000 rows a second. Now an outage costs a failed
write of each flush's new rows (one small file per table), and a disk with room for part of
the rows takes that part, a chunk at a time. A backlog that fits one chunk still goes back as
one file per (table, day), beside the recovering flush's own new rows.

The held rows are in memory only: a SIGKILL loses them all. `rows` is their count, which
`smf_router_ledger_pending_records` shows. At most `max_rows` are held (every table
together; the writer's `max_queue`, 1,000,000 by default: ~0.33 KB of Arrow memory per
request record, ~330 MB in all, and a text row holds its texts); the new rows of a failed
write that would pass it are dropped and counted, held ones never are (only rows that
`settle` raised on before it held them: `salvage` counts those).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import pyarrow as pa

log = logging.getLogger("smf_router.ledger.backlog")

UNSPLIT = ""  # the day of rows that could not be split into days: split again next flush
REPORT_EVERY_S = 60.0  # while writes keep failing, a warning at most this often
MAX_CHUNKS = 64  # a held table's chunks (one per failed flush) are combined past this
RETRY_CHUNK_ROWS = 50_000  # held rows are written back in files of at most this many rows

Key = tuple[str, str]  # (table, day)


@dataclass(slots=True)
class Batch:
    """One flush's rows of one (table, day): those held from before, and its new ones. The
    flush empties each list it writes; what is left goes back to the backlog."""

    held: list[pa.Table] = field(default_factory=list)
    fresh: list[pa.Table] = field(default_factory=list)
    error: BaseException | None = None  # why a write (or the split into days) failed

    def held_rows(self) -> int:
        return sum(t.num_rows for t in self.held)

    def held_chunks(self) -> Iterator[tuple[pa.Table, list[pa.Table]]]:
        """The held rows in write-back files, oldest first (zero-copy slices), each with the
        rows after it: what `held` becomes once it is written. Made before it is written, so
        forgetting a written chunk is an assignment, which cannot fail: forgotten by a call
        after the write, a chunk that call raised on was held, and written, again (found in
        review)."""
        held = _one(self.held)
        for start in range(0, held.num_rows, RETRY_CHUNK_ROWS):
            rest = held.slice(start + RETRY_CHUNK_ROWS)
            yield held.slice(start, RETRY_CHUNK_ROWS), [rest] if rest.num_rows else []


@dataclass(slots=True)
class _Outage:
    since: float
    reported: float  # when it was last logged
    dropped: Counter[str] = field(default_factory=Counter)  # since it was last logged
    dropped_before: bool = False  # rows were dropped in this outage and logged
    recovered: int = 0  # held rows written while others still failed


class Backlog:
    """Held rows by (table, day), at most `max_rows` of them; logs the outage they mean."""

    def __init__(self, max_rows: int) -> None:
        self.max_rows = max_rows
        self.rows = 0  # held now; read by a scrape on another thread, so set only when known
        self._held: dict[Key, pa.Table] = {}
        self._outage: _Outage | None = None

    def take(self) -> dict[Key, pa.Table]:
        """The held rows, for a flush to retry; `settle` gets back those still failing, or
        `put_back` all of them. `rows` goes on counting them meanwhile."""
        held, self._held = self._held, {}
        return held

    def put_back(self, held: dict[Key, pa.Table]) -> None:
        """Hold again, as they were, the rows `take` returned (`held`): the flush that took
        them raised before it tried any (splitting them into batches). Only before `settle`:
        `take` left nothing else held. Taken and not put back, they were lost uncounted,
        and `rows` went on showing them (found in review)."""
        self._held = held

    def settle(self, left: dict[Key, Batch], recovered: int, wrote: bool) -> Counter[str]:
        """Hold the rows the flush left unwritten: the rows held before first (they fit
        before), then new ones while they fit under `max_rows`; returns those dropped, by
        table. `recovered`: held rows the flush wrote; `wrote`: whether any write worked."""
        kept = 0
        for key, batch in left.items():
            if batch.held:
                self._held[key] = _combined(batch.held)
                kept += batch.held_rows()
        dropped: Counter[str] = Counter()
        for key, batch in left.items():
            for part in batch.fresh:
                if kept + part.num_rows > self.max_rows:
                    dropped[key[0]] += part.num_rows
                    continue
                held = self._held.get(key)
                self._held[key] = part if held is None else _combined([held, part])
                kept += part.num_rows
        self.rows = kept
        error = next((b.error for b in left.values() if b.error is not None), None)
        self._report(error, dropped, recovered, wrote)
        return dropped

    def salvage(self, left: dict[Key, Batch]) -> Counter[str]:
        """After `settle(left, ...)` raised: keep what it held by then, and return the rest of
        `left`'s rows, by table, as lost. What it held all came from `left`: `take` had
        emptied the backlog."""
        lost: Counter[str] = Counter()
        for (table, _), batch in left.items():
            lost[table] += batch.held_rows() + sum(t.num_rows for t in batch.fresh)
        kept = 0
        for (table, _), data in self._held.items():
            lost[table] -= data.num_rows
            kept += data.num_rows
        self.rows = kept
        return +lost  # no table below zero, nor at it

    def close(self) -> Counter[str]:
        """Give up the held rows (the writer is closing): returns them, by table, and logs
        them with the drops not yet reported."""
        lost: Counter[str] = Counter()
        for (table, _), data in self.take().items():
            lost[table] += data.num_rows
        self.rows = 0
        outage, self._outage = self._outage, None
        if outage is not None:
            failing = time.monotonic() - outage.since
            if outage.dropped:
                log.error(
                    "ledger closed with writes failing for %.0f s; dropped %s since the last "
                    "report",
                    failing,
                    _rows(outage.dropped),
                )
            else:
                log.warning("ledger closed with writes failing for %.0f s", failing)
        for table, rows in lost.items():
            log.error(
                "ledger closed with %d %s rows it could not write: they are lost", rows, table
            )
        return lost

    def _report(
        self, error: BaseException | None, dropped: Counter[str], recovered: int, wrote: bool
    ) -> None:
        now = time.monotonic()
        outage = self._outage
        if error is None:  # every held row was retried, so none is left
            if outage is not None and wrote:
                written = outage.recovered + recovered
                failing = now - outage.since
                if outage.dropped:
                    log.error(
                        "ledger writes work again after %.0f s: wrote the %d rows held in "
                        "memory; dropped %s since the last report",
                        failing,
                        written,
                        _rows(outage.dropped),
                    )
                else:
                    log.warning(
                        "ledger writes work again after %.0f s: wrote the %d rows held in memory",
                        failing,
                        written,
                    )
                self._outage = None
            return
        started = outage is None
        if outage is None:
            outage = self._outage = _Outage(since=now, reported=now)
            log.warning(
                "ledger write failed; holding %d rows in memory (at most %d), written back when "
                "writes work again: a SIGKILL loses them: %s: %s",
                self.rows,
                self.max_rows,
                type(error).__name__,
                error,
            )
        outage.recovered += recovered
        outage.dropped += dropped
        first_drop = bool(dropped) and not outage.dropped_before
        if not first_drop and (started or now - outage.reported < REPORT_EVERY_S):
            return
        if outage.dropped:
            log.error(
                "ledger writes failing for %.0f s; holding %d rows in memory (at most %d), "
                "dropped %s since the last report: %s: %s",
                now - outage.since,
                self.rows,
                self.max_rows,
                _rows(outage.dropped),
                type(error).__name__,
                error,
            )
            outage.dropped_before = True
        else:
            log.warning(
                "ledger writes failing for %.0f s; holding %d rows in memory: %s: %s",
                now - outage.since,
                self.rows,
                type(error).__name__,
                error,
            )
        outage.dropped = Counter()
        outage.reported = now


def _rows(counts: Counter[str]) -> str:
    return ", ".join(f"{n} {table} rows" for table, n in sorted(counts.items()))


def _one(tables: list[pa.Table]) -> pa.Table:
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables)  # zero-copy


def _combined(tables: list[pa.Table]) -> pa.Table:
    """`tables` as one; past `MAX_CHUNKS` chunks, copied into one chunk per column. A chunk
    per failed flush costs ~3.5 KB for a one-row flush against ~0.3 KB per row in one: an
    outage on a quiet router would hold mostly padding. Copying past 64 chunks copies the
    held rows once every 64 failed flushes at most."""
    table = _one(tables)
    if table.column(0).num_chunks <= MAX_CHUNKS:
        return table
    try:
        return table.combine_chunks()
    except (pa.ArrowException, MemoryError):  # strings past 2 GiB, or no memory: as it is
        return table
