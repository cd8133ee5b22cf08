"""The ledger writer's queue: what `submit` appends to on the request path, bounded.

Apart from the writer (`router.ledger.writer`, the flush thread) because it is the other
side of it: appends from the event loop (a deque append, well under a microsecond) that
never wait on disk, and takes by the flush thread. While a write hangs (a hung NFS mount)
new records queue here: the queue is bounded by rows (`max_queue`) and by an estimate of
their bytes (`max_queue_bytes`; texts count by their length), and past either new ones are
dropped and counted, by table. Free of PyArrow, as the writer is.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from typing import Any

from router.ledger import tally
from router.ledger.columns import ROW_COLUMNS
from router.record import Record

ROW_TABLES = tuple(ROW_COLUMNS)
MAX_QUEUE_BYTES = 256 * 1024 * 1024  # the queue's default bound in bytes (`tally.queued_bytes`)
_ROW_NAMES = {table: frozenset(name for name, _ in cols) for table, cols in ROW_COLUMNS.items()}


class Intake:
    """The queued request records and rows of the row tables, until a flush takes them."""

    def __init__(self, max_queue: int, max_queue_bytes: int, store_text: bool) -> None:
        self.max_queue = max_queue
        # Rows alone let a hung write queue ~1.4 GiB of records, tens of GiB with texts
        # (found in a months-of-operation review): bytes bound the queue too.
        self.max_queue_bytes = max_queue_bytes
        self.store_text = store_text
        self._queued_bytes = 0  # `tally.queued_bytes` of what is queued, under `_count_lock`
        self._count_lock = threading.Lock()  # held for an addition, never across a write
        self._records: deque[Record] = deque()
        self._rows: dict[str, deque[dict[str, Any]]] = {t: deque() for t in ROW_TABLES}
        # refused by a full queue, or left in it at close, by table
        self.dropped: Counter[str] = Counter()

    @property
    def depth(self) -> int:
        """Rows queued for the next flush (every table)."""
        return len(self._records) + sum(len(q) for q in self._rows.values())

    @property
    def queued_bytes(self) -> int:
        """The estimated bytes of the rows queued (`tally.queued_bytes`), bounded by
        `max_queue_bytes`."""
        return self._queued_bytes

    def submit(self, record: Record) -> None:
        """Queue one record. Drops (and counts) when the queue is full, in rows or bytes:
        with `store_text`, its text too, in `texts`, as the flush counts a lost text row."""
        if not self._admit(self._records, record):
            self.dropped["records"] += 1
            if self.store_text and tally.has_text(record):
                self.dropped["texts"] += 1

    def submit_row(self, table: str, row: dict[str, Any]) -> None:
        """Queue one row of a row table (`ROW_TABLES`: canary and shadow rows)."""
        queue = self._rows.get(table)
        if queue is None:
            raise ValueError(f"unknown ledger table {table!r}; expected one of {ROW_TABLES}")
        if not row.keys() <= _ROW_NAMES[table]:
            raise ValueError(f"{table}: unknown column(s) {sorted(row.keys() - _ROW_NAMES[table])}")
        if not self._admit(queue, row):
            self.dropped[table] += 1

    def _admit(self, queue: deque[Any], item: Any) -> bool:
        """Append `item` to `queue` unless that takes it past `max_queue` rows or the
        queue past `max_queue_bytes`. The lock is held for a sum and an append only: the
        flush thread takes it to subtract, never while it writes."""
        size = tally.queued_bytes(item)
        with self._count_lock:
            if len(queue) >= self.max_queue or self._queued_bytes + size > self.max_queue_bytes:
                return False
            self._queued_bytes += size
            queue.append(item)
        return True

    def take(self) -> tuple[list[Record], dict[str, list[dict[str, Any]]]]:
        """Take every queued record and row, and subtract their bytes from `queued_bytes`
        (sized outside the lock: a million rows take a while)."""
        records = drain(self._records)
        rows = {table: drain(queue) for table, queue in self._rows.items()}
        size = sum(map(tally.queued_bytes, records))
        size += sum(tally.queued_bytes(row) for taken in rows.values() for row in taken)
        with self._count_lock:
            self._queued_bytes -= size
        return records, rows


def drain(queue: deque[Any]) -> list[Any]:
    """Everything in `queue` now, taken from its left."""
    # popleft of a counted prefix: appends racing with us stay for the next flush
    return [queue.popleft() for _ in range(len(queue))]
