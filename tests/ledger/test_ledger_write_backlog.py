"""Held rows go back in chunks, after the flush's new rows: a disk with room for part of them
takes that part, and an outage costs one small failed write a flush.

Found in review: a flush wrote the held rows and its new ones as one file per (table, day),
all or nothing. A disk freed in part (room for some of them) took none: every write failed,
new rows piled up to the bound and were dropped, all of them exposed to a SIGKILL, where the
code before wrote what fitted. And each flush of an outage re-encoded the whole backlog (up to
1,000,000 rows) to fail again.
"""

from __future__ import annotations

import errno
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from router.ledger import LedgerWriter, segment_write
from tests.ledger.failing_disk import Disk, files, fill_and_flush, ids, submit


class Room:
    """A disk with room for `free` more rows: a file fits whole or fails (written to a
    temporary file, then renamed). Records the rows of every write tried."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, free: int) -> None:
        self.free = free
        self.tried: list[int] = []
        self._write = segment_write.write_segment
        monkeypatch.setattr(segment_write, "write_segment", self.write)

    def write(self, path: Path, table: pa.Table, *args: Any, **kwargs: Any) -> None:
        self.tried.append(table.num_rows)
        if table.num_rows > self.free:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.free -= table.num_rows
        self._write(path, table, *args, **kwargs)


def test_a_disk_freed_in_part_takes_the_new_rows_and_what_fits_of_the_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review's repro: 250 rows held, then room for 200. Before: 0 written, 350 held."""
    monkeypatch.setattr("router.ledger.backlog.RETRY_CHUNK_ROWS", 50, raising=False)
    room = Room(monkeypatch, free=0)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    now = time.time()
    assert fill_and_flush(writer, 5, 50, now) == [0] * 5
    room.free = 200  # an operator frees room for 200 rows
    fill_and_flush(writer, 10, 10, now, start=250)
    on_disk = ids(tmp_path)
    assert len(on_disk) == 200 and writer.pending_rows == 150 and writer.dropped_total == 0
    # the first flush's new rows, then the oldest held rows, in chunks, up to the one that failed
    assert set(on_disk) >= {f"r{i:04d}" for i in [*range(150), *range(250, 300)]}
    room.free = 1_000
    assert writer.flush() == 150
    writer.close()
    assert ids(tmp_path) == [f"r{i:04d}" for i in range(350)]


def test_an_outage_tries_the_new_rows_each_flush_not_the_whole_backlog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While new rows fail, the held ones wait: each flush tries one file of its own rows.
    A flush with no new rows tries one chunk of the held ones."""
    monkeypatch.setattr("router.ledger.backlog.RETRY_CHUNK_ROWS", 30, raising=False)
    room = Room(monkeypatch, free=0)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    fill_and_flush(writer, 20, 5, time.time())
    assert room.tried == [5] * 20 and writer.pending_rows == 100
    room.tried.clear()
    writer.flush()  # nothing new: the oldest chunk is the probe
    assert room.tried == [30]
    room.tried.clear()
    room.free = 1_000
    assert writer.flush() == 100
    assert room.tried == [30, 30, 30, 10]
    writer.close()
    assert len(ids(tmp_path)) == 100


def test_new_rows_recover_first_and_the_backlog_follows_in_the_same_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recovery flush with new rows writes them as a file of their own, then the held rows
    of their (table, day) as one more (they fit one chunk); a held day with no new rows gets
    one file, as before."""
    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    today = time.time()
    yesterday = today - 86_400
    n = 0
    for _ in range(5):
        n = submit(writer, 4, n, yesterday)
        n = submit(writer, 4, n, today)
        writer.flush()
    disk.full = False
    n = submit(writer, 3, n, today)
    assert writer.flush() == 43
    writer.close()
    days = files(tmp_path, "records")
    assert sorted(days.values()) == [1, 2], days
    assert len(ids(tmp_path)) == 43 and writer.pending_rows == 0
