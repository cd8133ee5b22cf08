"""A writer's merged file whose sources are still on disk (the router was killed within the
grace before it deletes them) and that fails its checksum: readers count its sources instead,
and compaction merges them. Its rows are all in that merge, so the merge names it a source
too: restored from a backup, as the warning said to, it was counted beside it, twice."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from router.ledger import checksum, compaction, damage, segments
from tests.ledger.damaged_ledger import (
    FAILURES,
    HEALTHY,
    check_report,
    compact,
    damage_file,
    day_dir,
    fail_once,
    write_parts,
)


def _merged_by_a_killed_writer(ledger: Path, merged: list[str], name: str = "") -> Path:
    """Write HEALTHY, one segment per tag, and merge those of `merged` into one file without
    deleting them (a writer merging its own files, killed before its deletes; or, named as
    compaction names its merge of them, a compaction killed so)."""
    day = write_parts(ledger, HEALTHY)
    inputs = [segments.read_segment(p) for tag in merged for p in day.glob(f"{tag}-*.parquet")]
    out = day / (name or compaction.compacted_name(inputs))
    compaction.merge(inputs, out, delete=False)
    return out


def test_a_damaged_merged_file_restored_after_its_rows_were_recovered_counts_once(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "ledger"
    merged = _merged_by_a_killed_writer(ledger, ["a", "b", "c"], "w-00000009.parquet")
    passes = _damaged_then_restored(ledger, merged, HEALTHY)

    assert len(passes[0]) == 1, passes  # named once, when its sources were merged
    assert merged.name in passes[0][0]
    assert passes[1:] == [[], []]
    assert not merged.exists(), "deleted as a replaced file: its rows are in the merge"


def _damaged_then_restored(ledger: Path, merged: Path, parts: Any) -> list[list[str]]:
    """Damage `merged`, run two passes, restore it from a backup, run one more, checking
    the totals of `parts` at each step; returns each pass's warnings."""
    backup = ledger.parent / "backup.parquet"
    shutil.copy2(merged, backup)
    check_report(ledger, parts, damaged=None)
    damage_file(merged)
    check_report(ledger, parts, damaged=merged.name)  # its sources are counted instead

    passes = [compact(ledger).warnings for _ in range(2)]
    shutil.copy2(backup, merged)  # restored, as the warning said to
    check_report(ledger, parts, damaged=None)
    passes.append(compact(ledger).warnings)
    check_report(ledger, parts, damaged=None)
    return passes


def test_a_damaged_level_2_merge_restored_after_its_rows_were_recovered_counts_once(
    tmp_path: Path,
) -> None:
    """A writer's level-2 merge names, besides its level-1 inputs, their level-0 files still
    on disk. Compaction merged the level-1 files, which hold all its rows, but did not name
    it a source for those names: restored, it was counted beside the merge, twice."""
    ledger = tmp_path / "ledger"
    parts = (*HEALTHY, ("d", 6, 7))
    day = write_parts(ledger, parts)

    def footers(*names: str) -> list[segments.Segment]:
        return [segments.read_segment(p) for name in names for p in day.glob(f"{name}*.parquet")]

    first, last, top = (day / f"w-0000000{i}.parquet" for i in (7, 8, 9))
    compaction.merge(footers("a-", "b-"), first)  # its grace is over: sources deleted
    compaction.merge(footers("c-", "d-"), last, delete=False)  # killed within the grace
    compaction.merge(footers(first.stem, last.stem), top, delete=False)
    assert len(segments.read_segment(top).sources) == 4, "its inputs, and c and d"

    passes = _damaged_then_restored(ledger, top, parts)
    assert len(passes[0]) == 1, passes
    assert top.name in passes[0][0]
    assert passes[1:] == [[], []]
    assert not top.exists(), "deleted as a replaced file: its rows are in the merge"


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_a_merged_file_a_pass_could_not_list_is_not_counted_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    """A healthy merged file beside its sources (a writer killed within its grace) whose
    footer one pass could not read (out of memory, an I/O error): that pass merged the
    sources without it and deleted them, and from the next pass on every report counted
    its rows twice, beside the new merge."""
    ledger = tmp_path / "ledger"
    merged = _merged_by_a_killed_writer(ledger, ["a", "b"], "w-00000009.parquet")
    fail_once(monkeypatch, merged, FAILURES[failure], "listing")

    first = compact(ledger)
    assert [w for w in first.warnings if merged.name in w] == first.warnings
    assert len(first.warnings) == 1, first.warnings
    check_report(ledger, HEALTHY, damaged=None)
    assert compact(ledger).warnings == []
    check_report(ledger, HEALTHY, damaged=None)
    assert not damage.marker(merged).exists()
    assert len(list(day_dir(ledger).glob("*.parquet"))) == 1, "the day merged into one file"


def test_a_damaged_source_of_a_damaged_merged_file_is_kept(tmp_path: Path) -> None:
    """Rot in a writer's merged file and in one of its sources: once the source was marked,
    the listing no longer saw it, let the merged file hide it unchecked, and compaction
    deleted it (and its checksum) as merged away, though its rows were in no healthy file.
    Kept, it can be restored, and the day then counts every row once."""
    ledger = tmp_path / "ledger"
    merged = _merged_by_a_killed_writer(ledger, ["a", "b"], "w-00000009.parquet")
    (source,) = day_dir(ledger).glob("a-*.parquet")
    backup = ledger.parent / "backup.parquet"
    shutil.copy2(source, backup)
    damage_file(merged)
    damage_file(source)
    kept = {p: p.read_bytes() for p in (source, checksum.sidecar(source))}

    for _ in range(3):
        compact(ledger)
    assert {p: p.read_bytes() for p in kept} == kept
    assert damage.marked(source) is not None
    check_report(ledger, HEALTHY[1:], damaged=source.name)

    shutil.copy2(backup, source)  # restored, as the warning said to
    compact(ledger)
    check_report(ledger, HEALTHY, damaged=None)
    assert len(list(day_dir(ledger).glob("*.parquet"))) == 1, "the day merged into one file"


def test_a_damaged_merged_file_with_a_source_gone_is_kept(tmp_path: Path) -> None:
    """One of its sources was deleted before the writer was killed: its rows are in the
    damaged file alone, so it is left as it is, to be restored."""
    ledger = tmp_path / "ledger"
    merged = _merged_by_a_killed_writer(ledger, ["a", "b"], "w-00000009.parquet")
    (gone,) = day_dir(ledger).glob("b-*.parquet")
    compaction.remove([gone])
    damage_file(merged)
    kept = merged.read_bytes()

    compact(ledger)
    assert compact(ledger).warnings == []
    check_report(ledger, (HEALTHY[0], HEALTHY[2]), damaged=merged.name)
    assert merged.read_bytes() == kept


def test_a_damaged_merge_by_a_killed_compaction_is_written_again(tmp_path: Path) -> None:
    """Compaction names its merge after its inputs: merging them again writes the damaged
    file anew, under its own name, and must not count that as one of the files it replaces
    (it would delete it, and every row of the day with it)."""
    ledger = tmp_path / "ledger"
    merged = _merged_by_a_killed_writer(ledger, ["a", "b", "c"])
    damage_file(merged)

    first = compact(ledger)
    check_report(ledger, HEALTHY, damaged=None)
    assert len(first.warnings) == 1, first.warnings
    assert merged.name in first.warnings[0]
    assert compact(ledger).warnings == []
    assert [p.name for p in day_dir(ledger).glob("*.parquet")] == [merged.name]


def test_a_merged_file_whose_checksum_could_not_be_read_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a merged file's checksum to vouch for it ran out of memory: the report failed
    with a MemoryError. Not vouched for, its sources are counted instead, this once."""
    ledger = tmp_path / "ledger"
    merged = _merged_by_a_killed_writer(ledger, ["a", "b"], "w-00000009.parquet")
    real, failed = checksum.compute, []

    def starved(path: Path) -> int:
        if Path(path) == merged and not failed:
            failed.append(path)
            raise MemoryError()
        return real(path)

    monkeypatch.setattr(checksum, "compute", starved)
    check_report(ledger, HEALTHY, damaged=merged.name)
    check_report(ledger, HEALTHY, damaged=None)


@pytest.mark.parametrize("failure", ["memory", "eio"])
def test_a_merged_file_with_a_source_gone_whose_checksum_one_pass_could_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    """A healthy merged file of a, b and c whose writer was killed while deleting them (a
    gone), and one pass that could not read it to check its checksum: the pass merged b and
    c without it and deleted them, and from then on it hid nothing and its rows counted
    twice (found in review). A read that proves nothing makes the day wait a pass."""
    ledger = tmp_path / "ledger"
    merged = _merged_by_a_killed_writer(ledger, ["a", "b", "c"], "w-00000009.parquet")
    compaction.remove(list(day_dir(ledger).glob("a-*.parquet")))
    check_report(ledger, HEALTHY, damaged=None)
    real, failed = checksum.verify, []

    def flaky(path: Path) -> None:
        if Path(path) == merged and not failed:
            failed.append(path)
            raise FAILURES[failure]
        real(path)

    monkeypatch.setattr(checksum, "verify", flaky)
    waited = compact(ledger)
    assert [w for w in waited.warnings if merged.name in w] == waited.warnings != []
    check_report(ledger, HEALTHY, damaged=None)
    compact(ledger)
    check_report(ledger, HEALTHY, damaged=None)
    assert len(list(day_dir(ledger).glob("*.parquet"))) == 1, "the day merged into one file"


def test_a_merged_file_whose_sources_stay_is_checked_once_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merged file whose sources stay (one that cannot be deleted) proved its checksum at
    every listing of its day: every report over the day read the whole day's file again
    (found in review). Now once per state of the file in a process: changed in place, it
    is checked again; compaction, which deletes the sources on that proof, checks afresh."""
    monkeypatch.setattr(checksum, "SETTLED_S", 0.05, raising=False)
    ledger = tmp_path / "ledger"
    merged = _merged_by_a_killed_writer(ledger, ["a", "b", "c"], "w-00000009.parquet")
    _settle(merged, 0.05)
    real, verified = checksum.verify, []

    def counted(path: Path) -> None:
        verified.append(Path(path))
        real(path)

    monkeypatch.setattr(checksum, "verify", counted)
    day = day_dir(ledger)
    for _ in range(2):
        assert [seg.path for seg in segments.list_day(day).segments] == [merged]
    assert verified == [merged]
    assert [seg.path for seg in segments.list_day(day, afresh=True).segments] == [merged]
    assert verified == [merged] * 2

    damage_file(merged)  # in place: the same inode and size, another ctime
    listing = segments.list_day(day)
    assert verified == [merged] * 3
    assert [seg.path for seg in listing.rejected] == [merged]
    assert merged not in [seg.path for seg in listing.segments]
    check_report(ledger, HEALTHY, damaged=merged.name)


def test_compaction_checks_a_merged_file_afresh_before_deleting_its_sources(
    tmp_path: Path,
) -> None:
    """Rot on disk changes no timestamp: a merged file found to match once is taken as
    matching by later listings in the process, damaged since or not. Compaction deletes the
    sources on that proof, so it checks afresh: the damaged file is left out, its sources
    are merged instead, and no row is lost."""
    ledger = tmp_path / "ledger"
    merged = _merged_by_a_killed_writer(ledger, ["a", "b", "c"], "w-00000009.parquet")
    damage_file(merged)
    state, _ = checksum._state(merged)  # as it was when it matched, for all a stat can tell
    checksum._passed[state] = None
    assert [seg.path for seg in segments.list_day(day_dir(ledger)).segments] == [merged]

    result = compact(ledger)
    assert [w for w in result.warnings if merged.name in w] == result.warnings != []
    assert not merged.exists(), "replaced by the merge of its sources"
    check_report(ledger, HEALTHY, damaged=None)


def _settle(path: Path, seconds: float) -> None:
    """Wait until `path` and its checksum last changed more than `seconds` ago."""
    changed = max(p.stat().st_ctime_ns for p in (path, checksum.sidecar(path))) / 1e9
    for _ in range(100):
        if time.time() - changed > seconds:
            return
        time.sleep(seconds / 10)
    raise AssertionError(f"{path} changed {time.time() - changed:.3f} s ago, still")
