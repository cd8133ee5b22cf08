"""The ledger writer: takes records off the request path and appends them as Parquet segments.

`submit` only appends to a deque (thread-safe under the GIL, well under a microsecond), so
the event loop never waits on disk. A background thread wakes every `flush_interval_s`,
converts what accumulated to Arrow and writes one segment per table and day under this
process's own tag, so several processes can write one directory without locks. Every
`MERGE_FANOUT` of its own small files are merged into one, on a thread of its own so
flushes keep their pace, and a day holds a few hundred files per process instead of 86,400.
`close()` flushes everything: a SIGTERM handler that calls it loses nothing; a SIGKILL
loses at most the last interval, except while writes fail (a full disk): the rows of failed
writes are then held in memory for the next flush (`pending_rows`, up to `max_queue` rows;
`router.ledger.backlog`), and a SIGKILL loses them too. While a write hangs (a hung NFS
mount) the flush thread waits in it and new records queue, up to the bounds of the queue
(`router.ledger.intake`).

This module, the flush thread, and its queue import no PyArrow; the flush side
(`router.ledger.appender`: Arrow tables, segment files, merges) is imported by the first
flush that has a row to write. Records queue from the first request on, and the ~0.2 s of
imports happen on the flush thread, off the router's path from start to ready. A router
with no traffic yet loads no PyArrow (~40 MB resident, which it held for nothing from its
first interval on: found in review); the appender's chores at its start wait with it.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections import Counter, deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from router.ledger import tally
from router.ledger.intake import MAX_QUEUE_BYTES, ROW_TABLES, Intake, drain
from router.ledger.ledger_root import LedgerRoot
from router.record import Record

if TYPE_CHECKING:
    from router.ledger.appender import Appender
    from router.ledger.unwritable import Unwritable

log = logging.getLogger("smf_router.ledger.writer")

TABLES = ("records", "texts", *ROW_TABLES)  # every table the writer writes


def default_process_tag() -> str:
    """host-pid-random: unique per process, and says where a segment came from."""
    host = "".join(c if c.isalnum() else "_" for c in socket.gethostname())[:40]
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


class LedgerWriter:
    """Buffered, batched, multi-process-safe appender of ledger rows."""

    def __init__(
        self,
        directory: Path,
        flush_interval_s: float = 1.0,
        process_tag: str | None = None,
        store_text: bool = False,
        max_queue: int = 1_000_000,
        max_queue_bytes: int = MAX_QUEUE_BYTES,
    ) -> None:
        self.directory = Path(directory)
        try:  # at once, so a report right after start finds the (empty) ledger: `records/`
            # is what says a directory is one (`router.ledger.presence`), rows or not
            (self.directory / "records").mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # one that passes (a full disk): the writes say so, and retry;
            # `serve` and `canary run` refuse one that never does (`router.ledger.location`)
            log.error("cannot create the ledger directory %s: %s", self.directory, exc)
        self.root = LedgerRoot(self.directory)  # its removal, said by a flush (and undone)
        self.flush_interval_s = flush_interval_s
        self.process_tag = process_tag or default_process_tag()
        self.store_text = store_text
        self._intake = Intake(max_queue, max_queue_bytes, store_text)
        self._flush_began: float | None = None  # monotonic start of the flush under way
        self._appender: Appender | None = None  # the flush side, made by the first flush
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._soon: deque[threading.Event] = deque()  # `flush_soon`s, for the next flush
        self._stop = False
        self._thread: threading.Thread | None = None
        self.last_flush_seconds = 0.0
        # The last flush that left no row unwritten: one with nothing to write too, so it moves
        # every interval while writes work. When rows last reached the disk is `last_write_unix`.
        self.last_ok_flush_unix: float | None = None
        self.last_write_unix: float | None = None  # the last flush that wrote a row (any table)
        self.written_total = 0
        self._flush_raised: str | None = None  # what the last flush raised, while they do
        self._unwritable: Unwritable | None = None  # the start's failed write, until one works

    @property
    def dropped_total(self) -> int:
        """Request records lost: refused by a full queue, or given up after failed writes.
        Records only, like `written_total`, which a dashboard shows it next to: a request
        lost with its text row, or a lost canary row, would inflate it."""
        return self.dropped_rows["records"]

    @property
    def dropped_rows(self) -> Counter[str]:
        """Rows lost, by table. The appender's counts grow on the flush thread, a new table's
        as a new key: read by a scrape or the status, iterating them could meet that and
        raise, so they are copied first (`dict` copies a dict in one step)."""
        flushed = dict(self._appender.dropped) if self._appender else {}
        return self._intake.dropped + Counter(flushed)

    @property
    def queue_depth(self) -> int:
        """Rows queued for the next flush (every table)."""
        return self._intake.depth

    @property
    def queued_bytes(self) -> int:
        """The estimated bytes of the rows queued (`tally.queued_bytes`), bounded by
        `max_queue_bytes`."""
        return self._intake.queued_bytes

    @property
    def flush_running_seconds(self) -> float:
        """How long the flush under way has run; 0 between flushes. A write that hangs (a
        hung NFS mount) shows here and nowhere else: `last_flush_seconds` is the last flush
        that ended, and no write fails, so nothing is held (`pending_rows`)."""
        began = self._flush_began
        return 0.0 if began is None else max(0.0, time.monotonic() - began)

    @property
    def pending_rows(self) -> int:
        """Rows held in memory because their write failed (every table): not in the queue,
        but no more on disk than it. 0 while writes work; a SIGKILL loses them."""
        return self._appender.pending_rows if self._appender else 0

    @property
    def last_write_failed(self) -> bool:
        """Whether a write of the last flush failed (its rows are held, or dropped past
        `max_queue`), or the flush raised and dropped its rows; a flush with nothing to
        write, nothing held, clears it. True from a start that could not write too, until
        writes work (`failed_at_start`)."""
        failed = self._appender.write_failed if self._appender else False
        return failed or self._unwritable is not None

    def failed_at_start(self, unwritable: Unwritable) -> None:
        """The start could not write into the ledger (`router.ledger.unwritable`): a failed
        write, to the status too, until the disk takes rows or an idle flush's probe."""
        self._unwritable = unwritable

    def status(self) -> dict[str, Any]:
        """The `ledger` section of `/v1/router/status`: a full disk or an unwritable directory
        showed only in the log and Prometheus (found in an operations review). Counts and
        times only, never a row; polled, so it reads counters and touches no file."""
        dropped = self.dropped_rows
        return {
            "path": str(self.directory),
            "queue_depth": self.queue_depth,
            "pending_rows": self.pending_rows,
            "max_queue": self._intake.max_queue,
            "queued_bytes": self.queued_bytes,
            "max_queue_bytes": self._intake.max_queue_bytes,
            "flush_running_seconds": self.flush_running_seconds,
            "dropped_rows": {table: dropped[table] for table in (*TABLES, *dropped)},
            "written_records": self.written_total,
            "last_write_failed": self.last_write_failed,
            "last_ok_flush_unix": self.last_ok_flush_unix,
            "last_write_unix": self.last_write_unix,
        }

    def start(self) -> None:
        """Start the flush thread (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="ledger-writer", daemon=True)
            self._thread.start()

    def submit(self, record: Record) -> None:
        """Queue one record; never waits on disk. Drops (and counts) when the queue is full
        (`Intake.submit`)."""
        self._intake.submit(record)

    def submit_row(self, table: str, row: dict[str, Any]) -> None:
        """Queue one row of a row table (`ROW_TABLES`: canary and shadow rows)."""
        self._intake.submit_row(table, row)

    def flush_soon(self) -> threading.Event:
        """Have the flush thread write what is queued now, not at the end of its interval,
        for a row whose loss at a kill costs more than the others (a canary run's start,
        `router.canary_starts`). The event is set once a flush that took it is over (its
        rows written, or held or dropped as any flush's are), or the writer closed. Never
        blocks: the caller waits as long as it chooses, and a stalled volume stalls the
        flush thread alone."""
        done = threading.Event()
        self._soon.append(done)
        self._wake.set()
        return done

    def close(self) -> None:
        """Stop the thread and flush everything still queued (idempotent). Never raises an
        `Exception`: the shutdown steps after the ledger's (tracing's) must still run. A
        `SystemExit` or `KeyboardInterrupt` the last flush met goes on up, once the rows it
        left held are counted as lost, and those it left queued (`_drop_queued`)."""
        self._stop = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        try:
            self.flush()
        except Exception:
            log.exception("ledger flush at close failed")
        finally:
            self._close_appender()
            self._drop_queued()
            for done in drain(self._soon):
                done.set()

    def _drop_queued(self) -> None:
        """Count as dropped, and log once (counts only), the rows still queued after the
        last flush: it failed before taking them (the flush side could not be made), or
        they came after it. No flush comes for them now. Left in the queue, they were lost
        uncounted, `queue_depth` the only sign of them (found in review)."""
        with self._lock:
            records, rows = self._intake.take()
        lost = tally.rows(records, rows, self.store_text)
        if lost:
            self._intake.dropped += lost
            log.error("ledger closed with %s still queued: they are lost", tally.described(lost))

    def _close_appender(self) -> None:
        with self._lock:
            if self._appender is not None:
                try:
                    self._appender.close()
                except Exception:
                    log.exception("ledger close failed")

    def wait_for_merges(self) -> None:
        """Return when the merges of this writer's own files started so far have finished."""
        if self._appender is not None:
            self._appender.wait_for_merges()

    def flush(self) -> int:
        """Write what is queued now; returns rows written (all tables). Safe from any thread.
        `written_total` counts request records only: it is what a dashboard compares with
        the requests served, and shadow, canary and text rows would inflate it.

        A `SystemExit` or `KeyboardInterrupt` raised in the flush is raised again from here
        once its rows are written, held or counted as dropped, and those written counted."""
        with self._lock:
            self._flush_began = time.monotonic()
            try:
                return self._flush_locked()
            finally:
                self._flush_began = None

    def _flush_locked(self) -> int:
        """`flush` under `_lock`, while `flush_running_seconds` counts."""
        began = time.perf_counter()
        self.root.check()
        appender = self._appender
        if appender is None and not self.queue_depth:  # no row yet: no PyArrow (module doc)
            self._flush_raised = None  # nothing to write, none held: an ok flush
            self._found_writable(0, failing=False)  # unless the start found it unwritable
            if self._unwritable is None:
                self.last_ok_flush_unix = time.time()
            self.last_flush_seconds = time.perf_counter() - began
            return 0
        appender = appender or self._make_appender()
        counted = appender.dropped.copy()  # `append` adds the rows of this flush it drops
        records, rows = self._intake.take()
        try:
            written = appender.append(records, rows)
        except BaseException as exc:
            taken = tally.rows(records, rows, self.store_text)
            self._append_raised(appender, exc, taken - (appender.dropped - counted))
            if not isinstance(exc, Exception):
                appender.raised.interrupted = None  # this one goes up in its place
                raise
            self._raise_interrupted(appender)
            return 0
        self._flush_raised = None
        now = time.time()
        if written.total():
            self.last_write_unix = now
        self._found_writable(written.total(), appender.write_failed)
        if not appender.write_failed and self._unwritable is None:
            self.last_ok_flush_unix = now
        self.written_total += written["records"]  # before any cleanup: they are written
        appender.remove_doomed(time.monotonic())  # never raises: rows are written
        self.last_flush_seconds = time.perf_counter() - began
        self._raise_interrupted(appender)
        return written.total()

    def _found_writable(self, wrote: int, failing: bool) -> None:
        """Clear the start's unwritable mark once a flush wrote rows, or found the folder
        writable with none to write (an idle router's flushes probe it)."""
        if self._unwritable and self._unwritable.over(wrote, failing):
            log.warning(
                "ledger writes work in %s again (at start they did not)", self._unwritable.folder
            )
            self._unwritable = None

    def _raise_interrupted(self, appender: Appender) -> None:
        """Raise the `SystemExit` or `KeyboardInterrupt` the appender caught in this flush
        and handled as a bug's exception (so logged, its rows held or counted): a flush is
        no place to swallow it. `_run`, which outlives it, does not log it a second time."""
        interrupted, appender.raised.interrupted = appender.raised.interrupted, None
        if interrupted is not None:
            self._flush_raised = _said(interrupted)
            raise interrupted

    def _append_raised(self, appender: Appender, exc: BaseException, lost: Counter[str]) -> None:
        """`append` raised past its own guards (a bug): the rows this flush took from the
        queues are counted as dropped, as the appender counts its own, and it is logged as
        an error, once while flush after flush raises the same. Raised out of the flush,
        they were lost uncounted (found in review).

        `lost` is what the flush took (with `store_text`, the texts of its records too) less
        what `append` counted as dropped before it raised (a record it could not convert):
        counted again, or texts not counted at all, the status did not add up to the
        records submitted (found in review)."""
        appender.dropped += lost
        if lost:  # until a flush goes through: it is not an ok flush, and the status says so
            appender.write_failed = True
        self._failed(
            exc,
            "ledger flush failed; dropped the rows it had taken (%s)",
            tally.described(lost) or "none",
        )

    def _failed(self, exc: BaseException, message: str, *args: Any) -> None:
        """Log `message` (the error appended) with its traceback, unless the last flush
        failed the same: a bug that fails every flush would write a line (and a traceback)
        every interval. What it loses is counted all the same."""
        said = _said(exc)
        if said != self._flush_raised:
            # the error and where it was raised, never a row: a row may hold a caller's data
            log.error(f"{message}: %s", *args, said, exc_info=exc)
        self._flush_raised = said

    def _make_appender(self) -> Appender:
        from router.ledger.appender import Appender  # PyArrow: see the module docstring

        self._appender = Appender(
            self.directory, self.process_tag, self.store_text, self._intake.max_queue
        )
        return self._appender

    def _run(self) -> None:
        while not self._stop:
            self._wake.wait(self.flush_interval_s)
            self._wake.clear()  # a `flush_soon` from here on is written by the next flush
            if self._stop:
                return
            answered = drain(self._soon)  # submitted before they asked: in this flush
            try:
                self.flush()
            except BaseException as exc:  # uncaught, even a SystemExit ends the thread
                # silently, and every later row waits in the queue for good
                self._failed(exc, "ledger flush failed")
            for done in answered:
                done.set()


def _said(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
