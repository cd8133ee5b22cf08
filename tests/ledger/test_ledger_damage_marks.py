"""Damage marks hide a file's records from every report for good: only bytes proven bad may
be marked. A healthy file a merge could not read (out of memory), or one restored from a
backup while its day was merged, stays unmarked and is merged next time; a hard-link
snapshot does not make a marked file named again; a router following canary results says
a marked file is left out."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from router.ledger import LedgerWriter, checksum, damage, segment_write
from router.ledger.recent import RecentRows
from tests.ledger.damaged_ledger import (
    ALL,
    DAY,
    FAILURES,
    HEALTHY,
    check_report,
    compact,
    damage_file,
    day_dir,
    day_with_victim,
    fail_once,
)


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("where", ["merge", "listing"])
def test_a_healthy_segment_a_pass_could_not_read_is_not_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str, where: str
) -> None:
    """One memory-starved pass (a `ulimit`, a cgroup) marked a healthy file for good, and
    every report left its records out."""
    ledger = tmp_path / "ledger"
    victim = day_with_victim(ledger)
    fail_once(monkeypatch, victim, FAILURES[failure], where)

    first, second = compact(ledger), compact(ledger)
    check_report(ledger, ALL, damaged=None)

    assert [w for w in first.warnings if victim.name in w] == first.warnings
    assert len(first.warnings) == 1
    assert second.warnings == []
    assert not victim.exists(), "merged on the second pass, like the rest of its day"
    assert not damage.marker(victim).exists()


def test_a_file_without_checksum_is_marked_only_if_it_does_not_decode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files written before checksums were: a decode error read again proves the damage; one
    that passed does not. (A footer that cannot be read holds the day's merge back a pass:
    the healthy file's read fails in the second.)"""
    ledger = tmp_path / "ledger"
    victim = day_with_victim(ledger)
    for path in day_dir(ledger).glob("*.parquet"):
        checksum.remove(path)
    (healthy,) = day_dir(ledger).glob("a-*.parquet")
    fail_once(monkeypatch, healthy, pa.ArrowInvalid("Couldn't deserialize thrift"), "merge")
    damage_file(victim, "footer")

    first, second = compact(ledger), compact(ledger)
    assert len([w for w in first.warnings if victim.name in w]) == 1, first.warnings
    assert damage.marked(victim) is not None
    assert [w for w in second.warnings if healthy.name in w] == second.warnings
    assert len(second.warnings) == 1, second.warnings
    assert not damage.marker(healthy).exists()
    assert compact(ledger).warnings == []
    check_report(ledger, HEALTHY, damaged=victim.name)


@pytest.mark.parametrize("when", ["merging", "checking"])
def test_a_file_restored_while_its_day_is_merged_is_not_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """The operator restores the damaged file (`cp -p` from a backup) while the hourly pass
    merges the rest of its day, or while it reads the file to mark it: a mark of the
    restored file hid it from every report for good."""
    ledger = tmp_path / "ledger"
    victim = day_with_victim(ledger)
    backup = tmp_path / "backup.parquet"
    shutil.copy2(victim, backup)
    damage_file(victim)
    restored: list[Path] = []

    def restore() -> None:
        if not restored:
            restored.append(victim)
            shutil.copy2(backup, victim)  # in place, as `cp -p` does

    if when == "merging":
        write_tables = segment_write.write_tables

        def restore_then_write(*args: Any, **kwargs: Any) -> None:
            restore()
            write_tables(*args, **kwargs)

        monkeypatch.setattr(segment_write, "write_tables", restore_then_write)
    else:
        compute, reads = checksum.compute, []

        def compute_then_restore(path: Path) -> int:
            crc = compute(path)
            if path == victim:
                reads.append(path)
                if len(reads) == 2:  # the merge's check, then the one before marking
                    restore()
            return crc

        monkeypatch.setattr(checksum, "compute", compute_then_restore)

    first = compact(ledger)
    assert restored, "restored during the pass"
    assert [w for w in first.warnings if victim.name in w] == first.warnings
    assert not damage.marker(victim).exists()
    check_report(ledger, ALL, damaged=None)
    assert compact(ledger).warnings == []
    check_report(ledger, ALL, damaged=None)
    assert not victim.exists(), "merged with the rest of its day"


def test_a_hard_link_snapshot_does_not_name_a_marked_file_again(tmp_path: Path) -> None:
    """`cp -al` (rsnapshot) changes every file's ctime, which a mark holds to: the damaged
    file was named again after each snapshot."""
    ledger = tmp_path / "ledger"
    victim = day_with_victim(ledger)
    damage_file(victim)
    kept = victim.read_bytes()
    assert len(compact(ledger).warnings) == 1
    for snapshot in range(3):
        _hard_link_snapshot(victim, tmp_path / f"snapshot{snapshot}")
        assert damage.marked(victim) is None, "the snapshot made the mark lapse"
        assert compact(ledger).warnings == []
        assert damage.marked(victim) is not None
        check_report(ledger, HEALTHY, damaged=victim.name)
    assert victim.read_bytes() == kept

    damage_file(victim, "footer")  # damaged otherwise since: named again, once
    assert len([w for w in compact(ledger).warnings if victim.name in w]) == 1
    assert compact(ledger).warnings == []


def _hard_link_snapshot(victim: Path, into: Path) -> None:
    """Link the file and its checksum elsewhere, until their ctime shows it (it ticks at
    the kernel's clock granularity: a few tries at most)."""
    into.mkdir()
    before = os.stat(victim).st_ctime_ns
    for attempt in range(1000):
        for path in (victim, checksum.sidecar(victim)):
            os.link(path, into / f"{attempt}{path.name}")
        if os.stat(victim).st_ctime_ns != before:
            return
    raise AssertionError("ctime never changed")


def test_a_router_following_canary_results_says_a_marked_file_is_left_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Once compaction marked a damaged canary_results file, a router reading them left it
    out without a word (it logged one it failed to read itself)."""
    ledger = tmp_path / "ledger"
    for tag, n in (("a", 3), ("b", 4), ("victim", 5)):
        _canary_results(ledger, tag, n)
    (victim,) = day_dir(ledger, "canary_results").glob("victim-*.parquet")
    damage_file(victim)
    compact(ledger)
    assert damage.marked(victim) is not None

    rows = RecentRows(ledger, "canary_results")
    first_day = DAY.date().isoformat()
    with caplog.at_level(logging.WARNING, logger="smf_router"):
        assert len(rows.read(first_day)) == 7
        assert len(rows.read(first_day)) == 7
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(logged) == 1, logged
    assert victim.name in logged[0]


def _canary_results(ledger: Path, tag: str, n: int) -> None:
    writer = LedgerWriter(ledger, process_tag=tag)
    for i in range(n):
        row = {
            "run_id": tag,
            "ts": DAY.timestamp() + i,
            "backend": "local",
            "suite": "s",
            "case_id": f"{tag}-{i}",
            "status": "pass",
            "latency_s": 0.1,
        }
        writer.submit_row("canary_results", row)
    writer.close()


def test_a_mark_a_starved_pass_could_not_renew_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot made the mark lapse, and the next pass could not read the file to renew
    it (out of memory all pass long): the mark was deleted, and the pass after named the
    file again, as newly damaged, for what the starved pass could not tell."""
    ledger = tmp_path / "ledger"
    victim = day_with_victim(ledger)
    damage_file(victim)
    assert len(compact(ledger).warnings) == 1
    _hard_link_snapshot(victim, tmp_path / "snapshot")
    real = checksum.compute

    def starved(path: Path) -> int:
        if Path(path) == victim:
            raise MemoryError()
        return real(path)

    with monkeypatch.context() as patch:
        patch.setattr(checksum, "compute", starved)
        warnings = compact(ledger).warnings
    assert any(victim.name in w for w in warnings), warnings  # nothing could tell
    assert damage.marker(victim).exists(), "kept, to be renewed"

    assert compact(ledger).warnings == []
    assert damage.marked(victim) is not None
    check_report(ledger, HEALTHY, damaged=victim.name)
