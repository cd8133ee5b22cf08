"""A flush that raises (a bug, not a failed write) loses no row and leaves no stuck status,
through the real writer, its flush thread and files.

Found in review: `Appender.append` took the held rows out of the backlog, and an exception
after that (anywhere but in a segment write, which the appender keeps for a retry) went up
to the flush thread, which logged it and carried on: the taken rows were gone, counted
nowhere (`pending_rows` still said they were held), and with nothing left to try,
`last_write_failed` stayed true for good. And rows written count as written whatever the
cleanup after them does: a merged-away file that could not be deleted raised out of the
flush before `written_total` counted its rows; and the files of its group after the one
that could not be deleted were not tried again (they waited for closed-day compaction).
"""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from router.ledger import LedgerWriter, backlog, segment_write, segments
from tests.ledger.failing_disk import Disk, ids, submit
from tests.ledger.file_modes import undeletable
from tests.ledger.raising_flush import Fault, settled


def test_held_rows_a_raising_flush_took_go_back_and_are_written_by_the_next(
    writer: LedgerWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """3 rows held by a full disk; the disk recovers, and the flush that writes 2 new rows
    raises on writing the held ones back. Before: the 2 were on disk uncounted, the 3 lost,
    `pending_rows` 3 and `last_write_failed` true ever after."""
    disk = Disk(monkeypatch)
    n = submit(writer, 3, 0, time.time())
    assert writer.flush() == 0 and writer.pending_rows == 3 and writer.last_write_failed
    fault = Fault(monkeypatch, "_write", after=1)  # the new rows' file, then the held rows'
    n = submit(writer, 2, n, time.time())
    disk.full = False
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        writer.start()
        status = settled(writer, n)
    assert fault.raised == 1
    assert status["written_records"] == 5
    assert sum(status["dropped_rows"].values()) == 0
    assert status["last_write_unix"] is not None
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("RuntimeError: injected into _write" in line for line in errors), errors
    writer.close()
    assert ids(tmp_path) == [f"r{i:04d}" for i in range(5)]  # each once


def test_a_written_file_whose_tracking_raises_counts_as_written_and_is_not_rewritten(
    writer: LedgerWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception after the file is written (tracking it for merges): its rows are on disk,
    so they count as written; held again, they would be written twice. Before: the flush
    raised, and `written_records` stayed 0 with the 3 rows on disk."""
    fault = Fault(monkeypatch, "_track")
    n = submit(writer, 3, 0, time.time())
    writer.start()
    status = settled(writer, n)
    assert fault.raised == 1
    assert status["written_records"] == 3
    assert sum(status["dropped_rows"].values()) == 0
    writer.close()
    assert ids(tmp_path) == ["r0000", "r0001", "r0002"]  # each once


def test_a_written_chunk_of_held_rows_is_not_held_again_whatever_raises_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3 rows held by a full disk; the disk recovers, and the flush that writes them back
    meets an error once their file is written: joining or slicing held rows (`_one`) raises
    (no memory), once. They count as written, and are not written again. Before: the chunk
    was forgotten by a call after its write, which raised, so it was held again and written
    twice by the next flush (each request's cost counted twice)."""
    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    submit(writer, 3, 0, time.time())
    assert writer.flush() == 0 and writer.pending_rows == 3
    wrote: list[Path] = []
    write, one = segment_write.write_segment, backlog._one

    def written(path: Path, *args: Any, **kwargs: Any) -> None:
        write(path, *args, **kwargs)
        wrote.append(path)

    def failing_once(tables: list[Any]) -> Any:
        if wrote and not raised:
            raised.append(True)
            raise MemoryError("injected into _one")
        return one(tables)

    raised: list[bool] = []
    monkeypatch.setattr(segment_write, "write_segment", written)
    monkeypatch.setattr(backlog, "_one", failing_once)
    disk.full = False
    assert writer.flush() == 3
    assert writer.flush() == 0
    status = writer.status()
    assert (status["written_records"], status["pending_rows"]) == (3, 0)
    writer.close()
    assert ids(tmp_path) == ["r0000", "r0001", "r0002"]  # each once
    assert len(wrote) == 1


def test_a_flush_that_raises_every_time_is_logged_once_and_its_rows_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The same exception flush after flush (a bug that every retry meets) is one error
    line, not one a flush; the rows stay held, shown as failing, until a flush writes them."""
    fault = Fault(monkeypatch, "_write", times=5)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    submit(writer, 2, 0, time.time())
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        for _ in range(5):
            assert writer.flush() == 0
            assert writer.pending_rows == 2 and writer.last_write_failed
        assert writer.flush() == 2
    assert fault.raised == 5
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [
        "ledger flush raised; its unwritten rows are held for the next: "
        "RuntimeError: injected into _write"
    ]
    assert writer.pending_rows == 0 and not writer.last_write_failed
    writer.close()
    assert ids(tmp_path) == ["r0000", "r0001"]


def _first_file_flushed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, grace_s: float | None = None
) -> tuple[LedgerWriter, int, float, Path]:
    """A writer over `tmp_path` that merges files in twos, deleting the merged-away ones
    after `grace_s` (the appender's own grace if None), with one record flushed to a file
    of its own: the writer, the next record's number, the records' start, and that file."""
    monkeypatch.setattr("router.ledger.appender.MERGE_FANOUT", (2, 24))
    if grace_s is not None:
        monkeypatch.setattr("router.ledger.appender.SOURCE_GRACE_S", grace_s)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    now = time.time()
    n = submit(writer, 1, 0, now)
    assert writer.flush() == 1
    (first,) = (s.path for s in segments.list_table(tmp_path, "records").segments)
    return writer, n, now, first


def test_rows_written_count_whatever_deleting_merged_away_files_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Files merged in twos, deleted as soon as merged; the first one cannot be (immutable,
    as a file root left behind is). The flush that tries still counts its rows, and the
    next one too. Before: `PermissionError` out of that flush, its rows written, uncounted."""
    writer, n, now, first = _first_file_flushed(tmp_path, monkeypatch, grace_s=0.0)
    flushed = []
    with (
        contextlib.ExitStack() as stack,
        caplog.at_level(logging.WARNING, logger="smf_router.ledger"),
    ):
        stack.enter_context(undeletable(first))
        for _ in range(3):  # the second file has the two merged; the next flushes delete them
            n = submit(writer, 1, n, now)
            flushed.append(writer.flush())
            writer.wait_for_merges()
        assert first.exists()
    assert flushed == [1, 1, 1]
    assert writer.status()["written_records"] == writer.written_total == 4
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any(
        "could not delete merged-away ledger files" in w and "PermissionError" in w
        for w in warnings
    ), warnings
    writer.close()
    assert ids(tmp_path) == [f"r{i:04d}" for i in range(4)]  # the merged-away file unread


def test_merged_away_files_a_delete_failed_on_are_tried_again_and_warned_of_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Files merged in twos, deleted as soon as merged (no grace, so retried at every
    flush); the first of the pair cannot be (immutable). The second is deleted all the same;
    the first, tried again flush after flush, is warned of once, and deleted once it can be.
    Before: the second was not tried after the first failed, and stayed."""
    writer, n, now, first = _first_file_flushed(tmp_path, monkeypatch, grace_s=0.0)
    second = first.with_name(f"{writer.process_tag}-{2:08d}{segments.SUFFIX}")
    with (
        contextlib.ExitStack() as stack,
        caplog.at_level(logging.WARNING, logger="smf_router.ledger"),
    ):
        stack.enter_context(undeletable(first))
        for _ in range(4):  # the second file merges the two; the next flushes delete them
            n = submit(writer, 1, n, now)
            assert writer.flush() == 1
            writer.wait_for_merges()
        assert first.exists()
        assert not second.exists()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "could not delete merged-away ledger files (1;" in warnings[0]
    assert first.name in warnings[0] and "PermissionError" in warnings[0]
    n = submit(writer, 1, n, now)
    assert writer.flush() == 1  # tried again, and deleted now
    assert not first.exists()
    writer.close()
    assert ids(tmp_path) == [f"r{i:04d}" for i in range(n)]


def test_merged_away_files_a_delete_fails_on_at_close_are_left_to_compaction_so_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Files merged in twos, within their grace for readers when the writer closes, which
    deletes them; the first cannot be (immutable). The warning says it is left to
    closed-day compaction: no flush comes to try it again. Before: it said it would be
    tried again for about an hour."""
    writer, n, now, first = _first_file_flushed(tmp_path, monkeypatch)
    second = first.with_name(f"{writer.process_tag}-{2:08d}{segments.SUFFIX}")
    submit(writer, 1, n, now)
    assert writer.flush() == 1
    writer.wait_for_merges()
    assert first.exists() and second.exists()  # merged, within their grace
    with (
        contextlib.ExitStack() as stack,
        caplog.at_level(logging.WARNING, logger="smf_router.ledger"),
    ):
        stack.enter_context(undeletable(first))
        writer.close()
        assert first.exists()
        assert not second.exists()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(
        "could not delete merged-away ledger files (1; readers ignore them; the writer is "
        "closing: left to closed-day compaction): PermissionError"
    ), warnings
    assert first.name in warnings[0]
    assert ids(tmp_path) == ["r0000", "r0001"]  # the merged-away file unread
