"""A disk that fails the ledger's writes, and the rows a test writes to it: for the write
outage tests (a full disk, a read-only remount), through the real writer and files."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from router.ledger import Ledger, LedgerWriter, segment_write, segments
from router.record import Record


class Disk:
    """`segment_write.write_segment` that fails with ENOSPC while `full`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full = True
        self._write = segment_write.write_segment
        monkeypatch.setattr(segment_write, "write_segment", self.write)

    def write(self, *args: Any, **kwargs: Any) -> None:
        if self.full:
            raise OSError(errno.ENOSPC, "No space left on device")
        self._write(*args, **kwargs)


def submit(writer: LedgerWriter, n: int, start: int, when: float) -> int:
    """Submit `n` records started at `when`, numbered `r0000`, `r0001`, … from `start`;
    returns the number after the last."""
    for i in range(start, start + n):
        writer.submit(Record(f"r{i:04d}", when))
    return start + n


def fill_and_flush(
    writer: LedgerWriter, flushes: int, rows: int, when: float, start: int = 0
) -> list[int]:
    """`flushes` times: submit `rows` records (numbered on from `start`, as `submit` does),
    then flush; returns the rows each flush wrote."""
    written = []
    for _ in range(flushes):
        start = submit(writer, rows, start, when)
        written.append(writer.flush())
    return written


def ids(directory: Path) -> list[str]:
    with Ledger(directory) as ledger:
        return sorted(r[0] for r in ledger.sql("SELECT request_id FROM records"))


def files(directory: Path, table: str) -> dict[str, int]:
    """Segment files per day."""
    out: dict[str, int] = {}
    for s in segments.list_table(directory, table).segments:
        out[s.day] = out.get(s.day, 0) + 1
    return out
