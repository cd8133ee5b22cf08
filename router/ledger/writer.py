"""The ledger writer: takes records off the request path and appends them as Parquet segments.

`submit` only appends to a deque (thread-safe under the GIL, well under a microsecond), so
the event loop never waits on disk. A background thread wakes every `flush_interval_s`,
converts what accumulated to Arrow and writes one segment per table and day under this
process's own tag, so several processes can write one directory without locks. Every
`MERGE_FANOUT` of its own small files are merged into one, so a day holds a few hundred
files per process instead of 86,400. `close()` flushes everything: a SIGTERM handler that
calls it loses nothing; a SIGKILL loses at most the last interval.

PyArrow and the segment modules are imported by the first flush, not with this module:
records queue from the first request on, and the ~0.2 s of imports happen on the flush
thread an interval after start, off the router's path from start to ready.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from router.pricing import price_map_version
from router.record import Record

if TYPE_CHECKING:
    import pyarrow as pa

    from router.ledger.segments import Segment

log = logging.getLogger(__name__)

MERGE_FANOUT = (60, 24)  # merge 60 level-0 files into one level-1, 24 level-1 into a level-2
SOURCE_GRACE_S = 30.0  # merged-away files stay this long for readers that already listed them
ROW_TABLES = ("canary_results", "canary_runs", "shadow_comparisons")


@dataclass(slots=True)
class _Owned:
    segment: Segment
    level: int


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
    ) -> None:
        self.directory = Path(directory)
        self.flush_interval_s = flush_interval_s
        self.process_tag = process_tag or default_process_tag()
        self.store_text = store_text
        self.max_queue = max_queue
        self._records: deque[Record] = deque()
        self._rows: dict[str, deque[dict[str, Any]]] = {t: deque() for t in ROW_TABLES}
        self._retry: list[tuple[str, pa.Table]] = []
        self._owned: dict[tuple[str, str], list[_Owned]] = {}
        self._doomed: deque[tuple[float, list[Path]]] = deque()
        self._seq = 0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = False
        self._thread: threading.Thread | None = None
        self._version = price_map_version()
        self.last_flush_seconds = 0.0
        self.dropped_total = 0
        self.written_total = 0

    @property
    def queue_depth(self) -> int:
        return len(self._records) + sum(len(q) for q in self._rows.values())

    def start(self) -> None:
        """Start the flush thread (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="ledger-writer", daemon=True)
            self._thread.start()

    def submit(self, record: Record) -> None:
        """Queue one record; never blocks. Drops (and counts) when the queue is full."""
        if len(self._records) >= self.max_queue:
            self.dropped_total += 1
            return
        self._records.append(record)

    def submit_row(self, table: str, row: dict[str, Any]) -> None:
        """Queue one row of `canary_results` or `shadow_comparisons`."""
        from router.ledger.schema import SCHEMAS

        queue = self._rows.get(table)
        if queue is None:
            raise ValueError(f"unknown ledger table {table!r}; expected one of {ROW_TABLES}")
        if not row.keys() <= set(SCHEMAS[table].names):
            raise ValueError(
                f"{table}: unknown column(s) {sorted(row.keys() - set(SCHEMAS[table].names))}"
            )
        if len(queue) >= self.max_queue:
            self.dropped_total += 1
            return
        queue.append(row)

    def close(self) -> None:
        """Stop the thread and flush everything still queued (idempotent)."""
        self._stop = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.flush()
        with self._lock:
            self._remove_doomed(float("inf"))

    def flush(self) -> int:
        """Write what is queued now; returns rows written. Safe from any thread."""
        with self._lock:
            began = time.perf_counter()
            written = self._flush_locked()
            self._remove_doomed(time.monotonic())
            self.last_flush_seconds = time.perf_counter() - began
            return written

    def _run(self) -> None:
        while not self._stop:
            self._wake.wait(self.flush_interval_s)
            if self._stop:
                return
            try:
                self.flush()
            except Exception:  # the writer must outlive any one bad batch
                log.exception("ledger flush failed")

    @staticmethod
    def _drain(queue: deque[Any]) -> list[Any]:
        # popleft of a counted prefix: appends racing with us stay for the next flush
        return [queue.popleft() for _ in range(len(queue))]

    def _pending_tables(self) -> list[tuple[str, pa.Table]]:
        from router.ledger.schema import records_table, rows_table, texts_table

        pending, self._retry = self._retry, []
        records = self._drain(self._records)
        if records:
            pending.append(("records", records_table(records)))
            if self.store_text:
                texts = texts_table(records)
                if texts.num_rows:
                    pending.append(("texts", texts))
        for table, queue in self._rows.items():
            rows = self._drain(queue)
            if rows:
                pending.append((table, rows_table(table, rows)))
        return pending

    def _flush_locked(self) -> int:
        from router.ledger import segments
        from router.ledger.schema import TIME_COLUMN

        written = 0
        for table, data in self._pending_tables():
            for day, part in segments.split_by_day(data, TIME_COLUMN[table]).items():
                try:
                    self._write(table, day, part)
                    written += part.num_rows
                except OSError as exc:
                    self._keep_for_retry(table, part, exc)
        self.written_total += written
        return written

    def _keep_for_retry(self, table: str, part: pa.Table, exc: OSError) -> None:
        kept = sum(t.num_rows for _, t in self._retry)
        if kept + part.num_rows > self.max_queue:
            self.dropped_total += part.num_rows
            log.error("ledger write failed, dropped %d %s rows: %s", part.num_rows, table, exc)
        else:
            self._retry.append((table, part))
            log.warning("ledger write failed, will retry %d %s rows: %s", part.num_rows, table, exc)

    def _next_path(self, table: str, day: str) -> Path:
        from router.ledger import segments

        self._seq += 1
        name = f"{self.process_tag}-{self._seq:08d}{segments.SUFFIX}"
        return segments.day_dir(self.directory, table, day) / name

    def _write(self, table: str, day: str, part: pa.Table) -> None:
        from router.ledger import segments
        from router.ledger.segments import Segment

        path = self._next_path(table, day)
        segments.write_segment(path, part, price_map_version=self._version)
        owned = self._owned.setdefault((table, day), [])
        owned.append(_Owned(Segment(path, day, part.num_rows), 0))
        self._merge_own(table, day, owned)
        self._forget_old_days(day)

    def _merge_own(self, table: str, day: str, owned: list[_Owned]) -> None:
        """Merge this process's own small files of a day, level by level."""
        from router.ledger import compaction
        from router.ledger.segments import Segment

        for level, fanout in enumerate(MERGE_FANOUT):
            group = [o for o in owned if o.level == level]
            if len(group) < fanout:
                return
            out = self._next_path(table, day)
            replaced, warnings = compaction.merge([o.segment for o in group], out, delete=False)
            self._doomed.append((time.monotonic() + SOURCE_GRACE_S, replaced))
            for warning in warnings:
                log.warning("%s", warning)
            rows = sum(o.segment.rows for o in group)
            owned[:] = [o for o in owned if o.level != level]
            owned.append(_Owned(Segment(out, day, rows), level + 1))

    def _remove_doomed(self, now: float) -> None:
        from router.ledger import compaction

        while self._doomed and self._doomed[0][0] <= now:
            compaction.remove(self._doomed.popleft()[1])

    def _forget_old_days(self, day: str) -> None:
        # Past days are left to `compaction.compact`; only recent days are merged here.
        for key in [k for k in self._owned if k[1] < day]:
            del self._owned[key]
