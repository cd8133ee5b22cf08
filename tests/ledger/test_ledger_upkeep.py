"""Compaction and retention at their edges: a full disk, short retentions, crashed merges,
and options that would compact a day still being written."""

from __future__ import annotations

import errno
import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from router.ledger import compaction, rollups, segment_write, segments
from router.ledger.cli import app
from router.maintenance import housekeep
from tests.ledger.known_ledger import known_config
from tests.ledger.ledger_days import write_day


def files(day: Path) -> list[str]:
    return sorted(p.name for p in day.iterdir())


def no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def full_disk_ledger(directory: Path) -> tuple[Path, Path]:
    """A day past a 30-day retention and a closed recent one, each needing a merge."""
    now = datetime.now(UTC)
    write_day(directory, now - timedelta(days=40), 2, "old")
    write_day(directory, now - timedelta(days=2), 2, "recent")
    old = segments.day_dir(directory, "records", (now - timedelta(days=40)).date().isoformat())
    recent = segments.day_dir(directory, "records", (now - timedelta(days=2)).date().isoformat())
    return old, recent


def test_housekeeping_on_a_full_disk_still_drops_old_days(tmp_path: Path, monkeypatch) -> None:
    """It compacted first, and the merge's ENOSPC aborted the pass before retention: old days
    were never dropped while the disk was full, exactly when they had to go (found in
    review)."""
    old, recent = full_disk_ledger(tmp_path)
    before = files(recent)
    monkeypatch.setattr(segment_write, "write_tables", no_space)
    ledger = known_config().ledger.model_copy(update={"path": str(tmp_path), "retention_days": 30})
    housekeep(known_config().model_copy(update={"ledger": ledger}))
    assert not old.exists()
    assert files(recent) == before, "a merge that could not be written leaves its inputs"


def test_a_closed_day_left_without_its_rollup_exits_1(tmp_path: Path, monkeypatch) -> None:
    """A day with nothing to merge whose rollup could not be written (a full disk, a
    root-owned rollups/) exited 0, where a day not merged exits 1 (found in re-review)."""
    write_day(tmp_path, datetime.now(UTC) - timedelta(days=2), 1, "one")  # 1 file: no merge
    monkeypatch.setattr(rollups, "write_day", no_space)
    result = CliRunner().invoke(
        app, ["compact", "--ledger", str(tmp_path), "--retention-days", "30"]
    )
    assert "no rollup for records/" in result.output
    assert result.exit_code == 1, result.output


def test_compact_on_a_full_disk_prints_a_warning_not_a_traceback(
    tmp_path: Path, monkeypatch
) -> None:
    """A day it could not merge exits 1: with 0, the CronJob showed a success (found in
    review)."""
    old, recent = full_disk_ledger(tmp_path)
    before = files(recent)
    monkeypatch.setattr(segment_write, "write_tables", no_space)
    result = CliRunner().invoke(
        app, ["compact", "--ledger", str(tmp_path), "--retention-days", "30"]
    )
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, OSError)
    assert "Traceback" not in result.output
    assert f"warning: not compacting {recent}: No space left on device" in result.output
    assert "error: 0 retention and 1 compaction failure(s), named above" in result.output
    assert "dropped 1 day partition(s)" in result.output
    assert not old.exists() and files(recent) == before


def test_texts_never_outlive_their_records(tmp_path: Path) -> None:
    """With `retention_days: 7` and the default `text_retention_days: 30`, a 20-day-old
    prompt stayed on disk 23 days after its record was dropped (found in review)."""
    from router.config_sections import LedgerSettings

    now = datetime(2026, 12, 1, tzinfo=UTC)
    write_day(tmp_path, now - timedelta(days=20), 1, "t", text=True)
    settings = LedgerSettings(retention_days=7)
    assert settings.text_retention_days == 30
    dropped = compaction.apply_retentions(
        tmp_path, settings.retention_days, settings.text_retention_days, now
    )
    assert sorted(dropped) == ["records/2026-11-11", "texts/2026-11-11"]
    assert list(tmp_path.rglob("*.parquet")) == []


@pytest.mark.parametrize("days", [1_000_000, 10**12])
def test_a_retention_before_year_1_drops_nothing_and_compaction_still_runs(
    tmp_path: Path, days: int
) -> None:
    """`retention_days: 1000000` ("keep everything") overflowed `now - timedelta(days=…)`:
    every housekeeping pass raised before it compacted, and `ledger compact --config`
    ended in a traceback (found in review). `config check` now refuses it; should such a
    number reach retention anyway, no day is that old."""
    now = datetime.now(UTC)
    old = write_day(tmp_path, now - timedelta(days=40), 2, "old", text=True)
    texts = segments.day_dir(tmp_path, "texts", (now - timedelta(days=40)).date().isoformat())
    assert compaction.apply_retention(tmp_path, "records", days, now) == []
    assert compaction.apply_retentions(tmp_path, days, days, now) == []
    assert files(old) and files(texts)
    settings = {"path": str(tmp_path), "retention_days": days, "text_retention_days": days}
    ledger = known_config().ledger.model_copy(update=settings)  # unvalidated, as if it got by
    housekeep(known_config().model_copy(update={"ledger": ledger}))
    assert len(list(old.glob("*.parquet"))) == 1, "the day was not compacted"
    assert len(list(texts.glob("*.parquet"))) == 1


def test_compact_refuses_a_retention_past_100_years(tmp_path: Path) -> None:
    """`--retention-days 1000000` ended in an OverflowError traceback (found in review):
    like `ledger.retention_days`, it is at most 36500 days."""
    old = write_day(tmp_path, datetime.now(UTC) - timedelta(days=40), 1, "old")
    refused = CliRunner().invoke(
        app, ["compact", "--ledger", str(tmp_path), "--retention-days", "36501"]
    )
    assert refused.exit_code == 2 and "--retention-days" in refused.output, refused.output
    kept = CliRunner().invoke(
        app, ["compact", "--ledger", str(tmp_path), "--retention-days", "36500"]
    )
    assert kept.exit_code == 0, kept.output
    assert "dropped 0 day partition(s)" in kept.output and old.exists()


def test_compaction_deletes_temporary_files_of_killed_merges_in_closed_days(
    tmp_path: Path,
) -> None:
    """A merge killed midway left its hidden `.….tmp` file (as big as the day) forever,
    though docs/ledger.md said compact deletes the leftovers of crashed merges (found in
    review). Fresh ones may belong to a live merge, and today's to a live writer: kept."""
    now = datetime.now(UTC)
    write_day(tmp_path, now - timedelta(days=2), 2, "closed")
    write_day(tmp_path, now, 1, "open")
    closed = segments.day_dir(tmp_path, "records", (now - timedelta(days=2)).date().isoformat())
    today = segments.day_dir(tmp_path, "records", now.date().isoformat())
    killed = closed / ".compacted-0123456789abcdef.parquet.deadbeef.tmp"
    live = closed / ".closed-00000009.parquet.cafe0123.tmp"
    writing = today / ".open-00000002.parquet.0badf00d.tmp"
    for file in (killed, live, writing):
        file.write_bytes(b"PAR1 half a merge")
    an_hour_ago = now.timestamp() - 3600
    for file in (killed, writing):
        os.utime(file, (an_hour_ago, an_hour_ago))
    result = compaction.compact(tmp_path, now=now)
    assert result.days == 1
    assert not killed.exists()
    assert live.exists() and writing.exists()


@pytest.mark.parametrize("hours", ["-48", "nan", "inf"])
def test_compact_refuses_a_grace_that_is_negative_or_not_a_number(
    tmp_path: Path, hours: str
) -> None:
    """`--grace-hours -48` closed today's partition and merged it under its live writers;
    nan and inf were taken too, and quietly compacted nothing (found in review)."""
    from tests.harness import VENV_BIN

    now = datetime.now(UTC)
    write_day(tmp_path, now, 2, "live")
    before = sorted(tmp_path.rglob("*.parquet"))
    done = subprocess.run(
        [str(VENV_BIN / "smf-router"), "ledger", "compact", "--ledger", str(tmp_path),
         "--grace-hours", hours],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"error: --grace-hours must be a number of hours ≥ 0, not {float(hours)}"
    ]
    assert sorted(tmp_path.rglob("*.parquet")) == before
