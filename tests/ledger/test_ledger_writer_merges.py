"""A writer's own merges of its small files, as it flushes: what the merged files keep, and
that a merge neither holds the flushes back nor, failing, loses or repeats rows. Closed-day
compaction and retention: test_ledger_compaction.py."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from router.ledger import Ledger, LedgerWriter, appender, compaction, segments
from router.ledger.appender import MERGE_FANOUT
from router.pricing import price_map_version
from router.record import Record
from tests.ledger.ledger_days import count


def test_a_writer_s_merged_files_keep_the_price_map_version(tmp_path: Path) -> None:
    """The report names the price map its costs came from; a merged file that lost it made
    a day's report say "none recorded" once the writer had merged its files."""
    writer = LedgerWriter(tmp_path, process_tag="me")
    for i in range(MERGE_FANOUT[0] + 1):
        writer.submit(Record(f"r{i}", time.time()))
        writer.flush()
    writer.wait_for_merges()
    writer.close()
    listing = segments.list_table(tmp_path, "records")
    # one merged file and the last fresh one (the order of their names depends on which took
    # its sequence number first: the merge names its output on its own thread)
    assert sorted(bool(s.sources) for s in listing.segments) == [False, True]
    assert {s.price_map_version for s in listing.segments} == {price_map_version()}
    assert compaction.compact(tmp_path, now=datetime.now(UTC) + timedelta(days=2)).days == 1
    (merged,) = segments.list_table(tmp_path, "records").segments
    assert merged.price_map_version == price_map_version()


def test_a_writer_merges_its_own_small_segments(tmp_path: Path) -> None:
    writer = LedgerWriter(tmp_path, process_tag="me")
    now = time.time()
    flushes = MERGE_FANOUT[0] * 2 + 5
    for i in range(flushes):
        writer.submit(Record(f"r{i}", now))
        writer.flush()
    writer.wait_for_merges()
    listing = segments.list_table(tmp_path, "records")
    assert len(listing.segments) == 2 + 5  # two level-1 files and five fresh ones
    assert sum(1 for s in listing.segments if s.sources) == 2
    on_disk = list(tmp_path.rglob("*.parquet"))
    assert len(on_disk) > len(listing.segments), "sources stay a grace period for readers"
    assert count(tmp_path) == flushes  # …and are not double-counted meanwhile
    writer.close()
    assert len(list(tmp_path.rglob("*.parquet"))) == 7
    assert count(tmp_path) == flushes


def test_flushes_keep_their_pace_while_a_merge_runs(tmp_path: Path, monkeypatch) -> None:
    """A level-2 merge takes seconds on a busy router; flushes must not queue behind it
    (a SIGKILL would then lose more than one interval)."""
    release = threading.Event()
    real_merge = compaction.merge

    def slow_merge(*args, **kwargs):
        release.wait(60)
        return real_merge(*args, **kwargs)

    monkeypatch.setattr(compaction, "merge", slow_merge)
    writer = LedgerWriter(tmp_path, process_tag="me")
    now = time.time()
    flushes = MERGE_FANOUT[0] + 5

    def flush_all() -> None:
        for i in range(flushes):
            writer.submit(Record(f"r{i}", now))
            writer.flush()

    flusher = threading.Thread(target=flush_all)
    flusher.start()
    flusher.join(30)
    try:
        assert not flusher.is_alive(), "flushes waited for the merge"
        assert count(tmp_path) == flushes  # all written while the merge is still held
        assert not any(s.sources for s in segments.list_table(tmp_path, "records").segments)
    finally:
        release.set()
        flusher.join()
    writer.wait_for_merges()
    listing = segments.list_table(tmp_path, "records")
    assert sum(1 for s in listing.segments if s.sources) == 1
    assert count(tmp_path) == flushes
    writer.close()


def test_a_failed_merge_neither_loses_nor_repeats_rows(tmp_path: Path, monkeypatch) -> None:
    """A merge that fails (a full disk) must not be taken for a failed write: the rows it
    would have merged are on disk already and must not be written again."""

    def failing_merge(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(compaction, "merge", failing_merge)
    writer = LedgerWriter(tmp_path, process_tag="me")
    now = time.time()
    flushes = MERGE_FANOUT[0] + 5
    for i in range(flushes):
        writer.submit(Record(f"r{i}", now))
        writer.flush()
    writer.wait_for_merges()
    writer.close()
    assert writer.dropped_total == 0
    with Ledger(tmp_path) as ledger:
        rows = ledger.sql("SELECT request_id, count(*) FROM records GROUP BY 1 HAVING count(*) > 1")
    assert rows == []
    assert count(tmp_path) == flushes


def test_a_merge_that_writes_nothing_is_not_tracked_as_a_file(
    tmp_path: Path, monkeypatch, caplog
) -> None:
    """When every input of a merge turns out undecodable, no file is written; the writer must
    not then feed the missing file to the next level's merge."""
    real_merge = compaction.merge
    corrupt_next = [True]

    def merge_after_corruption(inputs, out, delete=True):
        if corrupt_next[0]:  # the first merge finds its inputs torn
            corrupt_next[0] = False
            for seg in inputs:
                seg.path.write_bytes(b"torn")
        return real_merge(inputs, out, delete=delete)

    monkeypatch.setattr(compaction, "merge", merge_after_corruption)
    monkeypatch.setattr(appender, "MERGE_FANOUT", (2, 2))
    writer = LedgerWriter(tmp_path, process_tag="me")
    now = time.time()
    for i in range(6):
        writer.submit(Record(f"r{i}", now))
        writer.flush()
        writer.wait_for_merges()
    writer.close()
    missing = [r.message for r in caplog.records if "No such file" in r.message]
    assert missing == []
    assert count(tmp_path) == 4  # the two torn files are skipped by readers, and named
