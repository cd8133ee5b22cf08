"""A writer's merged file whose sources are still on disk (the router was killed within the
grace before it deletes them) and that fails its checksum: readers count its sources instead,
and compaction merges them. Its rows are all in that merge, so the merge names it a source
too: restored from a backup, as the warning said to, it was counted beside it, twice."""

from __future__ import annotations

import shutil
from pathlib import Path

from router.ledger import compaction, segments
from tests.ledger.damaged_ledger import HEALTHY, check_report, compact, damage_file, day_dir, write


def _merged_by_a_killed_writer(ledger: Path, merged: list[str], name: str = "") -> Path:
    """Write HEALTHY, one segment per tag, and merge those of `merged` into one file without
    deleting them (a writer merging its own files, killed before its deletes; or, named as
    compaction names its merge of them, a compaction killed so)."""
    for tag, n, tokens in HEALTHY:
        write(ledger, tag, n, tokens)
    day = day_dir(ledger)
    inputs = [segments.read_segment(p) for tag in merged for p in day.glob(f"{tag}-*.parquet")]
    out = day / (name or compaction.compacted_name(inputs))
    compaction.merge(inputs, out, delete=False)
    return out


def test_a_damaged_merged_file_restored_after_its_rows_were_recovered_counts_once(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "ledger"
    merged = _merged_by_a_killed_writer(ledger, ["a", "b", "c"], "w-00000009.parquet")
    backup = tmp_path / "backup.parquet"
    shutil.copy2(merged, backup)
    check_report(ledger, HEALTHY, damaged=None)
    damage_file(merged)
    check_report(ledger, HEALTHY, damaged=merged.name)  # its sources are counted instead

    passes = [compact(ledger).warnings for _ in range(2)]
    shutil.copy2(backup, merged)  # restored, as the warning said to
    check_report(ledger, HEALTHY, damaged=None)
    passes.append(compact(ledger).warnings)
    check_report(ledger, HEALTHY, damaged=None)

    assert len(passes[0]) == 1, passes  # named once, when its sources were merged
    assert merged.name in passes[0][0]
    assert passes[1:] == [[], []]
    assert not merged.exists(), "deleted as a replaced file: its rows are in the merge"


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
