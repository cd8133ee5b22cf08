"""A ledger partly owned by someone else (an operator ran `smf-router ledger compact` as
root): compaction and retention go on, and what they cannot delete is said, not counted;
reports skip what they cannot read, and say so.

How files and directories are made so: `tests.ledger.file_modes`."""

from __future__ import annotations

import errno
import fcntl
import logging
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from router import report
from router.ledger import compaction, segments
from router.ledger.cli import app
from router.maintenance import housekeep
from tests.harness import config_for, router, simulator
from tests.ledger.file_modes import unlistable, unwritable
from tests.ledger.known_ledger import DAY1, known_config, write_known_ledger
from tests.ledger.ledger_days import count, write_day


@pytest.fixture
def rolled_up(tmp_path: Path) -> Path:
    """The known ledger (two days) with both days rolled up."""
    ledger = write_known_ledger(tmp_path / "ledger")
    assert compaction.compact(ledger).rollups == 2
    return ledger


DAY = datetime.fromtimestamp(DAY1, UTC).date().isoformat()


@pytest.mark.parametrize(
    ("table", "what", "requests"), [("records", "day", 2), ("rollups", "rollup", 4)]
)
def test_a_report_skips_a_day_it_may_not_read_and_says_so(
    rolled_up: Path, table: str, what: str, requests: int
) -> None:
    """A day directory (or its rollup's) another user made mode 700 ended `smf-router
    report` in a PermissionError traceback: only unreadable files were skipped. The day is
    now skipped like a file (its rollup: the day is read from its records), and named."""
    folder = segments.day_dir(rolled_up, table, DAY)
    warning = f"skipped unreadable {what} {folder}: Permission denied"
    with unlistable(folder):
        data = report.build(rolled_up)
        result = CliRunner().invoke(app, ["report", "--ledger", str(rolled_up), "--since", DAY])
    assert (data["totals"]["requests"], data["warnings"]) == (requests, [warning])
    assert result.exit_code == 3, result.output  # partial: written, something skipped
    assert isinstance(result.exception, SystemExit), "a traceback"  # exit 3, none other
    assert f"warning: {warning}\n" in result.output  # one line, however long the path


def test_a_report_skips_a_table_folder_it_may_not_read_and_says_so(rolled_up: Path) -> None:
    """`records/` itself another user's (mode 700) still ended every report in a traceback
    after its days were skipped (found in review): it is skipped too, and named."""
    folder = rolled_up / "records"
    with unlistable(folder):
        data = report.build(rolled_up)
        result = CliRunner().invoke(app, ["report", "--ledger", str(rolled_up), "--since", DAY])
    assert data["warnings"] == [f"skipped unreadable {folder}: Permission denied"]
    assert data["totals"]["requests"] == 0  # a day's rollup is trusted only beside its records
    assert result.exit_code == 3, result.output  # partial
    assert isinstance(result.exception, SystemExit), "a traceback"  # exit 3, none other


def test_a_report_on_a_ledger_it_may_not_search_warns_without_a_traceback(
    rolled_up: Path,
) -> None:
    """A ledger directory this account may read but not search (0744, another's): even
    asking whether `records/` is a directory raised, and the report ended in a traceback
    (found in review)."""
    with unlistable(rolled_up):
        data = report.build(rolled_up)
    assert f"skipped unreadable {rolled_up / 'records'}: Permission denied" in data["warnings"]
    assert data["totals"]["requests"] == 0


def test_the_report_endpoint_skips_a_day_it_may_not_read_and_says_so(tmp_path: Path) -> None:
    """The same day over HTTP was a 500 ("internal error"): now the report, and its warning."""
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path)
        ledger = write_known_ledger(Path(config.ledger.path))
        folder = segments.day_dir(ledger, "records", DAY)
        with router(config) as proxy, unlistable(folder):
            url = f"{proxy.root}/v1/router/report?since={DAY}"
            response = httpx.get(url, timeout=60)
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["totals"]["requests"] == 2
    assert data["warnings"] == [f"skipped unreadable day {folder}: Permission denied"]


def test_a_lock_file_it_may_not_write_does_not_stop_compaction(tmp_path: Path) -> None:
    """The day's lock was opened for appending: after one `ledger compact` as root, the
    service user's housekeeping logged "not compacting …: Permission denied" for that day
    every hour, for good. flock needs only a read-only descriptor."""
    day = datetime(2026, 6, 1, tzinfo=UTC)
    path = write_day(tmp_path, day, 3, "a")
    lock = compaction.lock_path(path)
    lock.touch()
    with unwritable(lock):
        result = compaction.compact(tmp_path, now=day + timedelta(days=3))
        assert result.warnings == []
        with compaction.day_lock(path) as held:
            assert held, "the lock still excludes another compactor"
            with compaction.day_lock(path) as again:
                assert not again
    assert result.days == 1 and result.rollups == 1
    assert len(list(path.glob("*.parquet"))) == 1
    assert count(tmp_path) == 3


def test_a_lock_file_made_under_umask_077_can_be_opened_by_the_service_user(
    tmp_path: Path,
) -> None:
    """Root's `ledger compact` with umask 077 left its lock files 0600 root: the service
    user could open them neither way, and its hourly compaction warned about each such day
    for good (found in review). A lock file the lock makes is 0644 (it is empty); one that
    exists is left as it is."""
    day = datetime(2026, 6, 1, tzinfo=UTC)
    path = write_day(tmp_path, day, 3, "a")
    kept = tmp_path / "records" / "day=2026-06-02"
    kept.mkdir()
    compaction.lock_path(kept).touch(mode=0o600)
    umask = os.umask(0o077)
    try:
        result = compaction.compact(tmp_path, now=day + timedelta(days=3))
        with compaction.day_lock(kept) as held:
            assert held
    finally:
        os.umask(umask)
    assert (result.warnings, result.days) == ([], 1)
    assert compaction.lock_path(path).stat().st_mode & 0o777 == 0o644
    assert compaction.lock_path(kept).stat().st_mode & 0o777 == 0o600


def test_a_ledger_on_nfs_still_takes_its_day_locks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NFS and CIFS turn flock into a POSIX lock, whose exclusive form needs a descriptor
    open for writing: with the lock opened read-only, no day was ever compacted on a shared
    ledger (found in review, by emulating the NFS client's rule as here)."""
    real = fcntl.flock

    def nfs_flock(fd: int, operation: int) -> None:
        read_only = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
        if operation & fcntl.LOCK_EX and read_only:
            raise OSError(errno.EBADF, "Bad file descriptor")
        real(fd, operation)

    monkeypatch.setattr(fcntl, "flock", nfs_flock)
    day = datetime(2026, 6, 1, tzinfo=UTC)
    write_day(tmp_path, day, 3, "a")
    result = compaction.compact(tmp_path, now=day + timedelta(days=3))
    assert (result.warnings, result.days) == ([], 1)
    assert count(tmp_path) == 3


def test_a_day_retention_cannot_delete_is_a_warning_not_a_drop(tmp_path: Path) -> None:
    """Retention removed days with errors ignored and counted each as dropped: a day it may
    not delete stayed on disk for good while every run reported it gone. Then it said so,
    and exited 0: the CronJob showed a success while prompt texts stayed past retention
    (found in review). Now it exits 1."""
    now = datetime.now(UTC)
    old = write_day(tmp_path, now - timedelta(days=40), 2, "old")
    with unwritable(old):
        result = CliRunner().invoke(
            app, ["compact", "--ledger", str(tmp_path), "--retention-days", "30"]
        )
    assert result.exit_code == 1, result.output
    assert "dropped 0 day partition(s)" in result.output
    assert f"warning: not dropping {old} past retention: " in result.output
    assert "error: 1 retention and " in result.output  # its merge failed too: immutable
    assert old.is_dir()
    # the next run, allowed to, drops it
    again = CliRunner().invoke(
        app, ["compact", "--ledger", str(tmp_path), "--retention-days", "30"]
    )
    assert again.exit_code == 0, again.output
    assert "dropped 1 day partition(s)" in again.output, again.output
    assert not old.exists()


def test_housekeeping_names_rollups_it_cannot_drop(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The repro: root's `ledger compact` rolled days up into a rollups directory the
    service may not write; its hourly housekeeping dropped the records but not the rollups,
    and said nothing (they were deleted with errors ignored)."""
    now = datetime.now(UTC)
    write_day(tmp_path, now - timedelta(days=40), 2, "old")
    assert compaction.compact(tmp_path, now=now).rollups == 1
    rollup_days = segments.day_dirs(tmp_path, "rollups")
    assert len(rollup_days) == 1
    ledger = known_config().ledger.model_copy(update={"path": str(tmp_path), "retention_days": 30})
    config = known_config().model_copy(update={"ledger": ledger})
    with unwritable(rollup_days[0]), caplog.at_level(logging.INFO, logger="smf_router"):
        housekeep(config)
    messages = [r.getMessage() for r in caplog.records]
    assert f"ledger housekeeping: not dropping {rollup_days[0]} past retention: " in "\n".join(
        messages
    )
    assert any("1 partition(s) dropped" in m for m in messages), messages
    assert segments.day_dirs(tmp_path, "records") == []


def test_compact_without_a_config_says_it_applied_no_retention(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README said `ledger compact` applies retention; without a config it applied none, and
    said nothing. It still applies none (the defaults could delete what the real config
    keeps longer), and says so."""
    monkeypatch.delenv("SMF_ROUTER_CONFIG", raising=False)
    old = write_day(tmp_path, datetime.now(UTC) - timedelta(days=800), 1, "old")
    result = CliRunner().invoke(app, ["compact", "--ledger", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "no retention applied" in result.output
    assert "dropped 0 day partition(s)" in result.output
    assert old.is_dir()
    given = CliRunner().invoke(
        app, ["compact", "--ledger", str(tmp_path), "--retention-days", "30"]
    )
    assert "no retention applied" not in given.output
    assert "dropped 1 day partition(s)" in given.output
