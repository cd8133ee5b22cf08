"""Merging and retention: closed-day compaction, the merge of a day's files, dropping old
days, the `compact` command. A writer's own merges: test_ledger_writer_merges.py."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from router.ledger import LedgerWriter, compaction, segment_write, segments
from tests.ledger.ledger_days import count, write_day


def test_compaction_merges_closed_days_only(tmp_path: Path) -> None:
    now = datetime(2026, 6, 10, 12, tzinfo=UTC)
    write_day(tmp_path, now - timedelta(days=2), 5, "a")
    write_day(tmp_path, now - timedelta(days=2), 3, "b")
    write_day(tmp_path, now, 4, "c")  # today: open, must stay as it is
    result = compaction.compact(tmp_path, now=now)
    assert (result.days, result.files_in, result.files_out) == (1, 8, 1)
    old = segments.day_dir(tmp_path, "records", "2026-06-08")
    assert [p.name.startswith("compacted-") for p in old.glob("*.parquet")] == [True]
    assert len(list(old.iterdir())) == 2  # and its checksum: the sources' went with them
    assert len(list(segments.day_dir(tmp_path, "records", "2026-06-10").glob("*.parquet"))) == 4
    assert count(tmp_path) == 12
    again = compaction.compact(tmp_path, now=now)
    assert again.days == 0  # idempotent


def test_leftover_sources_after_a_crash_are_not_double_counted(tmp_path: Path) -> None:
    day = datetime(2026, 6, 1, tzinfo=UTC)
    write_day(tmp_path, day, 3, "a")
    path = segments.day_dir(tmp_path, "records", "2026-06-01")
    listing = segments.list_day(path)
    # A merge that "crashed" before deleting its sources:
    compaction.merge(listing.segments, path / "compacted-x.parquet", delete=False)
    assert len(list(path.glob("*.parquet"))) == 4
    assert count(tmp_path) == 3
    compaction.compact(tmp_path, now=day + timedelta(days=3))
    assert count(tmp_path) == 3
    assert len(list(path.glob("*.parquet"))) == 1


def test_a_day_with_one_undecodable_file_is_not_rewritten_on_every_pass(tmp_path: Path) -> None:
    day = datetime(2026, 6, 1, tzinfo=UTC)
    write_day(tmp_path, day, 3, "a")
    path = segments.day_dir(tmp_path, "records", "2026-06-01")
    victim = sorted(path.iterdir())[-1]
    raw = bytearray(victim.read_bytes())  # a valid footer over a broken page
    start = pq.read_metadata(victim).row_group(0).column(0).data_page_offset
    raw[start : start + 16] = bytes(b ^ 0xFF for b in raw[start : start + 16])
    victim.write_bytes(bytes(raw))
    later = day + timedelta(days=3)
    first = compaction.compact(tmp_path, now=later)
    assert first.days == 1
    assert any(victim.name in warning for warning in first.warnings)
    files = sorted(p.name for p in path.iterdir())
    again = compaction.compact(tmp_path, now=later)
    assert again.days == 0
    assert sorted(p.name for p in path.iterdir()) == files
    assert count(tmp_path) == 2


def test_retention_drops_old_day_partitions(tmp_path: Path) -> None:
    now = datetime(2026, 6, 10, tzinfo=UTC)
    for back in (0, 5, 40):
        write_day(tmp_path, now - timedelta(days=back), 1, f"d{back}")
    dropped = compaction.apply_retention(tmp_path, "records", 30, now=now)
    assert dropped == ["2026-05-01"]
    assert count(tmp_path) == 2


def _segment_of(path: Path, table: pa.Table) -> segments.Segment:
    segment_write.write_segment(path, table)
    return segments.read_segment(path)


def test_a_merge_keeps_unreadable_inputs_out_and_unifies_schemas(tmp_path: Path) -> None:
    day = tmp_path / "records" / "day=2026-06-01"
    a = _segment_of(day / "a.parquet", pa.table({"id": ["a1", "a2"]}))
    b = _segment_of(day / "b.parquet", pa.table({"id": ["b1"], "extra": [7]}))  # a newer schema
    c = _segment_of(day / "c.parquet", pa.table({"id": [f"c{i}" for i in range(500)]}))
    raw = bytearray(c.path.read_bytes())  # a valid footer over broken pages
    raw[8 : len(raw) // 2] = b"\xff" * (len(raw) // 2 - 8)
    c.path.write_bytes(bytes(raw))
    out = day / "merged.parquet"
    replaced, warnings = compaction.merge([a, c, b], out)
    assert replaced == [a.path, b.path]
    assert len(warnings) == 1 and "c.parquet" in warnings[0]
    assert c.path.exists() and not a.path.exists() and not b.path.exists()
    merged = pq.read_table(out)
    assert merged.column("id").to_pylist() == ["a1", "a2", "b1"]
    assert merged.column("extra").to_pylist() == [None, None, 7]
    assert segments.read_segment(out).sources == {"a.parquet", "b.parquet"}
    assert not [p for p in day.iterdir() if segment_write.TEMPORARY.fullmatch(p.name)], "no temp"


MERGE_PEAK = """
import sys
import threading
from pathlib import Path
import pyarrow as pa
from router.ledger import compaction, segments
paths = sorted(Path(sys.argv[1]).glob("*.parquet"))
inputs = [segments.read_segment(p) for p in paths]
compaction.merge(inputs, Path(sys.argv[1]) / "merged.parquet", delete=False)
print(pa.default_memory_pool().max_memory())
"""


def test_a_merge_holds_one_input_at_a_time_not_all_of_them(tmp_path: Path) -> None:
    """A live writer merges 24 one-minute files at a time, and a closed day is merged into
    one file: holding every input at once took ~0.9 GB at ~2,600 requests/s."""
    day = tmp_path / "records" / "day=2026-06-01"
    decoded = 0
    for n in range(60):
        table = pa.table(
            {
                "request_id": [f"{n:02d}-{i:024d}" for i in range(40_000)],
                "tokens": list(range(40_000)),
            }
        )
        segment_write.write_segment(day / f"w-{n:02d}.parquet", table)
        decoded += table.nbytes
    done = subprocess.run(
        [sys.executable, "-c", MERGE_PEAK, str(day)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    peak = int(done.stdout.split()[-1])
    merged = pq.read_metadata(day / "merged.parquet")
    assert merged.num_rows == 60 * 40_000
    assert peak < decoded * 0.4, (peak, decoded)
    groups = [merged.row_group(i).num_rows for i in range(merged.num_row_groups)]
    assert max(groups) <= segment_write.ROW_GROUP_ROWS  # what bounds the merge's memory
    assert len(groups) <= 2 * merged.num_rows // segment_write.ROW_GROUP_ROWS  # few small ones


def test_a_day_another_compactor_holds_is_left_to_it(tmp_path: Path) -> None:
    """Two compactors on one day (two routers' housekeeping, or `smf-router compact` beside
    them) could write a part of the day over the whole of it."""
    day = datetime(2026, 6, 1, tzinfo=UTC)
    write_day(tmp_path, day, 3, "a")
    path = segments.day_dir(tmp_path, "records", "2026-06-01")
    later = day + timedelta(days=3)
    with compaction.day_lock(path) as held:
        assert held
        assert compaction.compact(tmp_path, now=later).days == 0
        assert len(list(path.glob("*.parquet"))) == 3
    assert compaction.compact(tmp_path, now=later).days == 1
    assert count(tmp_path) == 3


def test_a_merge_whose_input_vanished_writes_nothing(tmp_path: Path) -> None:
    """A vanished input was merged by someone else: merging the rest would replace that
    merge's complete file with a part of it (the old code dropped the file and went on)."""
    day = tmp_path / "records" / "day=2026-06-01"
    a = _segment_of(day / "a.parquet", pa.table({"id": ["a1"]}))
    b = _segment_of(day / "b.parquet", pa.table({"id": ["b1"]}))
    b.path.unlink()
    out = day / "merged.parquet"
    replaced, warnings = compaction.merge([a, b], out)
    assert replaced == [] and not out.exists() and a.path.exists()
    assert len(warnings) == 1 and "vanished" in warnings[0]


def test_a_listing_that_races_a_merge_lists_again(tmp_path: Path, monkeypatch) -> None:
    """Files read after a merge replaced them are gone, and the merged file is newer than the
    directory listing: the day must be listed again, not reported without those rows."""
    day = datetime(2026, 6, 1, tzinfo=UTC)
    write_day(tmp_path, day, 4, "a")
    path = segments.day_dir(tmp_path, "records", "2026-06-01")
    read = segments.read_segment
    raced: list[bool] = []

    def merge_midway(file: Path) -> segments.Segment:
        if not raced:  # the first footer read: a compactor merges the day right now
            raced.append(True)
            inputs = [read(p) for p in sorted(path.glob("*.parquet"))]
            compaction.merge(inputs, path / "compacted-race.parquet")
        return read(file)

    monkeypatch.setattr(segments, "read_segment", merge_midway)
    listing = segments.list_day(path)
    assert sum(s.rows for s in listing.segments) == 4
    assert [s.path.name for s in listing.segments] == ["compacted-race.parquet"]


def test_the_compact_command_applies_retention_to_every_table(tmp_path: Path) -> None:
    """It listed the tables by hand and missed canary_runs (housekeeping looped over all)."""
    from typer.testing import CliRunner

    from router.ledger.cli import app
    from router.ledger.schema import SCHEMAS

    for table in SCHEMAS:
        old = segments.day_dir(tmp_path, table, "2020-01-01")
        old.mkdir(parents=True)
        (old / "x.parquet").write_bytes(b"")
    result = CliRunner().invoke(
        app, ["compact", "--ledger", str(tmp_path), "--retention-days", "30"]
    )
    assert result.exit_code == 0, result.output
    assert [t for t in SCHEMAS if segments.day_dirs(tmp_path, t)] == []


def test_a_file_is_synced_before_it_is_visible_and_its_name_before_any_delete(
    tmp_path: Path, monkeypatch
) -> None:
    """Without fsync a power cut after a merge could leave the merged file empty while the
    files it replaced are already deleted: the whole day lost."""
    import os

    events: list[str] = []
    fsync, replace, unlink = os.fsync, os.replace, Path.unlink

    def watched_fsync(fd: int) -> None:
        events.append("fsync-dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync-file")
        fsync(fd)

    def watched_replace(src: object, dst: object) -> None:
        events.append("replace")
        replace(src, dst)  # type: ignore[arg-type]

    def watched_unlink(self: Path, missing_ok: bool = False) -> None:
        if self.suffix == ".parquet":
            events.append("delete")
        unlink(self, missing_ok=missing_ok)

    day = tmp_path / "records" / "day=2026-06-01"
    a = _segment_of(day / "a.parquet", pa.table({"id": ["a1"]}))
    b = _segment_of(day / "b.parquet", pa.table({"id": ["b1"]}))
    monkeypatch.setattr(os, "fsync", watched_fsync)
    monkeypatch.setattr(os, "replace", watched_replace)
    monkeypatch.setattr(Path, "unlink", watched_unlink)
    compaction.merge([a, b], day / "merged.parquet")
    # the file, then its checksum (written and renamed first: never a file without one)
    expected = ["fsync-file", "fsync-file", "replace", "replace", "fsync-dir", "delete", "delete"]
    assert events == expected


def test_a_filesystem_that_cannot_sync_a_directory_still_gets_its_files(
    tmp_path: Path, monkeypatch
) -> None:
    import errno
    import os

    fsync = os.fsync

    def no_directory_sync(fd: int) -> None:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(errno.EINVAL, "Invalid argument")
        fsync(fd)

    monkeypatch.setattr(os, "fsync", no_directory_sync)
    path = tmp_path / "records" / "day=2026-06-01" / "a.parquet"
    segment_write.write_segment(path, pa.table({"id": ["a"]}))
    assert segments.read_segment(path).rows == 1


def test_compact_refuses_a_retention_below_one_day(tmp_path: Path) -> None:
    """`--retention-days -1` put the cutoff in the future and dropped every day, today's
    live partition included; `0` was silently replaced by the config's 730 (found in review)."""
    import subprocess

    from router.record import Record
    from tests.harness import VENV_BIN

    writer = LedgerWriter(tmp_path, process_tag="w")
    writer.submit(Record("r1", time.time()))
    writer.close()
    before = sorted(tmp_path.rglob("*.parquet"))
    for days in ("-1", "0"):
        done = subprocess.run(
            [str(VENV_BIN / "smf-router"), "ledger", "compact", "--ledger", str(tmp_path),
             "--retention-days", days],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 2 and "retention-days" in done.stderr, done.stderr[-300:]
    assert sorted(tmp_path.rglob("*.parquet")) == before


def test_compact_on_a_missing_ledger_says_so(tmp_path: Path) -> None:
    """A mistyped --ledger in a cron job printed "compacted 0 day(s)" with status 0, and
    retention was silently never applied (found in review)."""
    from typer.testing import CliRunner

    from router.ledger.cli import app

    typo = tmp_path / "leger"
    result = CliRunner().invoke(app, ["compact", "--ledger", str(typo)])
    assert result.exit_code == 2, result.output
    assert f"no ledger at {typo}" in result.output
    assert not typo.exists()
