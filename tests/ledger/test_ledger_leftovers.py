"""What writes killed midway leave behind, and what deleting it may not stop: a killed
merge's temporary file in the open day, and merged-away files after one that cannot go."""

from __future__ import annotations

import logging
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from router.ledger import LedgerWriter, appender, checksum, compaction, leftovers, segments
from router.record import Record
from tests.ledger.file_modes import undeletable
from tests.ledger.ledger_days import count, write_day

AN_HOUR = 3600.0


def _temporary(day: Path, name: str, age_s: float) -> Path:
    """A half-written file under the hidden name `segment_write` writes to, last written
    `age_s` ago, as a process killed midway leaves it."""
    day.mkdir(parents=True, exist_ok=True)
    file = day / f".{name}.parquet.deadbeef.tmp"
    file.write_bytes(b"PAR1 half a merge")
    then = time.time() - age_s
    os.utime(file, (then, then))
    return file


def _flush_one(writer: LedgerWriter, n: int) -> int:
    writer.submit(Record(f"r{n}", time.time()))
    assert writer.flush() == 1
    return n + 1


def test_a_starting_writer_deletes_dead_temporaries_of_the_open_day(tmp_path: Path) -> None:
    """A router killed (SIGKILL) while merging the open day's files left the merge's
    temporary, as big as the day so far, until the day closed and compaction ran, a day
    later. A writer that starts deletes those of today not written for ten minutes; a
    recent one may be a live writer's (another process's), and stays."""
    today = datetime.now(UTC).date().isoformat()
    records = segments.day_dir(tmp_path, "records", today)
    texts = segments.day_dir(tmp_path, "texts", today)
    dead = [_temporary(records, "killed-00000061", AN_HOUR), _temporary(texts, "killed-2", AN_HOUR)]
    live = _temporary(records, "other-00000003", 1.0)
    writer = LedgerWriter(tmp_path, process_tag="restarted")
    try:
        _flush_one(writer, 0)
        writer.wait_for_merges()
        assert [file.exists() for file in dead] == [False, False]
        assert live.exists()
    finally:
        writer.close()
    assert count(tmp_path) == 1


def test_a_writer_deletes_a_temporary_that_died_after_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A router restarted at once after the kill finds its temporary still recent, and
    keeps it: its merges of the day look again (every ten minutes at most; at each here),
    and delete it once it is old."""
    monkeypatch.setattr(appender, "MERGE_FANOUT", (3, 24))
    monkeypatch.setattr(leftovers, "SWEEP_S", 0.0, raising=False)
    today = datetime.now(UTC).date().isoformat()
    killed = _temporary(segments.day_dir(tmp_path, "records", today), "killed-00000061", 1.0)
    writer = LedgerWriter(tmp_path, process_tag="restarted")
    try:
        n = _flush_one(writer, 0)
        writer.wait_for_merges()
        assert killed.exists(), "recent: it may be a live writer's"
        an_hour_ago = time.time() - AN_HOUR
        os.utime(killed, (an_hour_ago, an_hour_ago))  # as it is once its writer is long dead
        for _ in range(2):  # the third file queues a merge
            n = _flush_one(writer, n)
        writer.wait_for_merges()
        assert not killed.exists()
    finally:
        writer.close()
    assert count(tmp_path) == 3


@pytest.mark.parametrize("left_by", ["merge", "killed writer"])
def test_a_merged_away_file_that_cannot_be_deleted_stops_no_other_delete(
    tmp_path: Path, left_by: str
) -> None:
    """Compaction deleted a day's merged-away files in one go that stopped at the first
    failure (an immutable file, a passing NFS error): the files after it stayed, the day
    counted as failed, and it was not rolled up, pass after pass. Now each is deleted on
    its own, the one that cannot be is named once, and the day is rolled up: readers
    ignore the file (the merged file names it), and the next pass deletes it. Left by a
    writer killed before its deletes, it is also in the merge of its day: named once."""
    day = datetime(2026, 6, 1, tzinfo=UTC)
    path = write_day(tmp_path, day, 3, "a")
    files = sorted(path.glob("a-*.parquet"))
    if left_by == "killed writer":  # merged within its grace, a file written after
        listed = segments.list_day(path).segments
        compaction.merge(listed, path / "w-00000009.parquet", delete=False)
        write_day(tmp_path, day, 1, "b")
    later = day + timedelta(days=3)
    with undeletable(files[0]):
        result = compaction.compact(tmp_path, now=later, tables=["records"])
        assert files[0].exists() and checksum.sidecar(files[0]).exists()
        assert count(tmp_path) == 3 + (left_by == "killed writer")
    gone = [not (f.exists() or checksum.sidecar(f).exists()) for f in files[1:]]
    assert gone == [True, True]
    assert (result.failed, result.days, result.rollups) == (0, 1, 1)
    assert len(result.warnings) == 1, result.warnings
    assert result.warnings[0].startswith(f"could not delete merged-away {files[0]}: ")
    again = compaction.compact(tmp_path, now=later, tables=["records"])
    assert (again.warnings, again.failed) == ([], 0)
    assert not files[0].exists() and not checksum.sidecar(files[0]).exists()
    assert [p.name[:10] for p in path.glob("*.parquet")] == ["compacted-"]
    assert count(tmp_path) == 3 + (left_by == "killed writer")


def test_a_dead_temporary_that_cannot_be_deleted_fails_no_day(tmp_path: Path) -> None:
    """Compaction deleted a closed day's dead temporaries in one go that stopped at the
    first it could not delete (an immutable file, a passing NFS error): the others stayed,
    the day counted as failed (`ledger compact` exited 1), unmerged and not rolled up, pass
    after pass, and the warning did not name the file. Now each is deleted on its own, the
    one that cannot be is named, and the day is compacted; released, the next pass deletes
    it without a word."""
    day = datetime(2026, 6, 1, tzinfo=UTC)
    path = write_day(tmp_path, day, 3, "a")
    stuck = _temporary(path, "killed-1", AN_HOUR)
    other = _temporary(path, "zz-killed-2", AN_HOUR)
    later = day + timedelta(days=3)
    with undeletable(stuck):
        result = compaction.compact(tmp_path, now=later, tables=["records"])
        assert stuck.exists()
    assert not other.exists()
    assert (result.failed, result.days, result.rollups) == (0, 1, 1)
    assert len(result.warnings) == 1, result.warnings
    assert result.warnings[0].startswith(f"could not delete dead temporary {stuck}: ")
    again = compaction.compact(tmp_path, now=later, tables=["records"])
    assert (again.warnings, again.failed) == ([], 0)
    assert not stuck.exists()
    assert count(tmp_path) == 3


def test_a_writer_names_a_dead_temporary_it_cannot_delete_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A writer's look through the open day stopped at the first dead temporary it could
    not delete: the others stayed until the day closed, and the warning did not name the
    file. Now the others go, and the one that stays is named once, not at every look."""
    monkeypatch.setattr(appender, "MERGE_FANOUT", (3, 24))
    monkeypatch.setattr(leftovers, "SWEEP_S", 0.0, raising=False)
    today = datetime.now(UTC).date().isoformat()
    records = segments.day_dir(tmp_path, "records", today)
    stuck = _temporary(records, "killed-00000061", AN_HOUR)
    other = _temporary(records, "zz-killed-2", AN_HOUR)
    looks: list[Path] = []
    remove = leftovers.remove_dead_temporaries

    def counted(day: Path) -> dict[Path, OSError]:
        looks.append(day)
        return remove(day)

    monkeypatch.setattr(leftovers, "remove_dead_temporaries", counted)
    with undeletable(stuck), caplog.at_level(logging.WARNING, logger="smf_router"):
        writer = LedgerWriter(tmp_path, process_tag="restarted")
        try:
            n = 0
            for _ in range(6):  # a look at start, then one at each of two merges
                n = _flush_one(writer, n)
                writer.wait_for_merges()
            assert stuck.exists()
            assert not other.exists()
            assert looks.count(records) >= 3  # the file stayed at each look after the first
        finally:
            writer.close()
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(logged) == 1, logged
    assert logged[0].startswith(f"could not delete {stuck}, left by a write that never finished")
    assert count(tmp_path) == 6
