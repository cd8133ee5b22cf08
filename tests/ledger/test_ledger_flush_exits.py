"""A `SystemExit` (any exception that is no `Exception`: a bug calling `sys.exit`, a ^C at
close) raised in a flush loses no row, and goes on up once the rows are held or written:
through the real writer, its flush thread and files, with it raised by a segment's write or
by the tracking of a written file for merges.

Found in review: the flush's guards caught `Exception` only. A `SystemExit` in a write went
up past them with the rows held from failed writes, already taken out of the backlog, and
the flush's new rows: lost, counted nowhere; `pending_rows` went on showing them held.
"""

from __future__ import annotations

import errno
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from router.ledger import LedgerWriter, segment_write
from router.ledger.appender import Appender
from tests.ledger.failing_disk import ids, submit
from tests.ledger.raising_flush import errors, settled
from tests.waiting import wait_until


class Faults:
    """A disk that is `full` (ENOSPC) or makes the ledger `exit` (`SystemExit(3)`) at
    `where`: a segment's write (before its file is written) or its tracking (after)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, where: str = "write") -> None:
        self.full = True
        self.exit = False
        self.exits = 0
        real_write, real_track = segment_write.write_segment, Appender._track

        def write(*args: Any, **kwargs: Any) -> None:
            if self.full:
                raise OSError(errno.ENOSPC, "No space left on device")
            self._exit_at("write")
            real_write(*args, **kwargs)

        def track(appender: Appender, *args: Any) -> None:
            real_track(appender, *args)
            self._exit_at("track")

        self.where = where
        monkeypatch.setattr(segment_write, "write_segment", write)
        monkeypatch.setattr(Appender, "_track", track)

    def _exit_at(self, where: str) -> None:
        if self.exit and where == self.where:
            self.exits += 1
            raise SystemExit(3)


def test_a_system_exit_in_a_write_loses_neither_the_held_rows_nor_the_new_ones(
    writer: LedgerWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """3 rows held by a full disk; then each write raises `SystemExit` for a while, on the
    flush thread, with 2 new rows queued; then writes work. All 6 rows are written, once,
    none counted dropped; one error line. Before: only the last row reached the disk, and
    nothing was counted."""
    faults = Faults(monkeypatch)
    n = submit(writer, 3, 0, time.time())
    assert writer.flush() == 0 and writer.pending_rows == 3
    faults.full, faults.exit = False, True
    n = submit(writer, 2, n, time.time())
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        writer.start()
        assert wait_until(lambda: faults.exits >= 2), faults.exits  # flush after flush
        assert writer.pending_rows == 5 and writer.last_write_failed
        faults.exit = False
        n = submit(writer, 1, n, time.time())
        status = settled(writer, n)
    assert status["written_records"] == 6
    assert sum(status["dropped_rows"].values()) == 0
    assert errors(caplog) == [
        "ledger flush raised; its unwritten rows are held for the next: SystemExit: 3"
    ]
    writer.close()
    assert ids(tmp_path) == [f"r{i:04d}" for i in range(6)]  # each once


@pytest.mark.parametrize("where", ["write", "track"])
def test_a_flush_raises_its_system_exit_once_its_rows_are_held_or_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """`flush()` itself raises the `SystemExit` again, not swallowed, but after its rows
    are held (raised by a write) or counted as written (raised by the tracking of a written
    file, whose rows are not written again). Before: the 3 held rows were lost either way,
    and the 2 new ones too when a write raised it."""
    faults = Faults(monkeypatch, where)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    n = submit(writer, 3, 0, time.time())
    assert writer.flush() == 0 and writer.pending_rows == 3
    faults.full, faults.exit = False, True
    n = submit(writer, 2, n, time.time())
    with pytest.raises(SystemExit):
        writer.flush()
    held, written = (5, 0) if where == "write" else (0, 5)
    assert (writer.pending_rows, writer.written_total) == (held, written)
    assert writer.last_write_failed is (where == "write")
    faults.exit = False
    n = submit(writer, 1, n, time.time())
    assert writer.flush() == held + 1
    status = writer.status()
    assert (status["written_records"], status["pending_rows"]) == (6, 0)
    assert sum(status["dropped_rows"].values()) == 0
    writer.close()
    assert ids(tmp_path) == [f"r{i:04d}" for i in range(6)]  # each once


def test_close_raises_its_flushs_system_exit_once_the_held_rows_are_counted_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The flush at `close()` meets a `SystemExit` in a write: it goes on up, and the rows
    it left held (no flush comes after) are counted as lost, as at any close. Before: they
    were lost uncounted, and the writer's flush side never closed."""
    faults = Faults(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    n = submit(writer, 3, 0, time.time())
    assert writer.flush() == 0
    faults.full, faults.exit = False, True
    submit(writer, 2, n, time.time())
    with pytest.raises(SystemExit):
        writer.close()
    assert writer.dropped_rows["records"] == 5 and writer.pending_rows == 0
