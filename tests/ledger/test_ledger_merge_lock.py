"""A writer's merges of its own files and a compaction of their day never run at once."""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from router.ledger import LedgerWriter, appender, checksum, compaction, daylock, segments
from router.record import Record
from tests.harness import VENV_BIN
from tests.ledger.ledger_days import count, write_day
from tests.processes import killed_if_left_running

DAY = datetime(2026, 6, 1, 23, 59, tzinfo=UTC)
LATER = DAY + timedelta(days=2)


def _write_three(writer: LedgerWriter) -> None:
    """Three one-record files: with a fan-out of three, the third queues a merge."""
    for i in range(3):
        writer.submit(Record(f"r{i}", DAY.timestamp() + i))
        writer.flush()


def test_a_compaction_waits_for_a_writer_s_merge_it_would_race(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review's repro: a writer's merge had read its inputs and not yet renamed its
    output when `ledger compact --grace-hours 0` listed the day; both merged files held the
    rows, neither named the other, and the report counted them twice (6 for 3)."""
    monkeypatch.setattr(appender, "MERGE_FANOUT", (3, 24))
    read, go = threading.Event(), threading.Event()
    real_write = checksum.write

    def paused(path: Path, written: Path, mode: int = 0o644) -> None:
        if threading.current_thread().name.startswith("ledger-merge"):
            read.set()  # every input is read; the merged file is not yet in place
            go.wait(10)
        real_write(path, written, mode)

    monkeypatch.setattr(checksum, "write", paused)
    writer = LedgerWriter(tmp_path, process_tag="live")
    try:
        _write_three(writer)
        assert read.wait(10), "the writer merged its files"
        result = compaction.compact(tmp_path, now=LATER, tables=["records"])
    finally:
        go.set()
        writer.wait_for_merges()
        writer.close()
    assert count(tmp_path) == 3
    assert result.days == 0, "the day is the writer's merge's until it is done"
    compaction.compact(tmp_path, now=LATER, tables=["records"])
    path = segments.day_dir(tmp_path, "records", DAY.date().isoformat())
    assert [len(s.sources) for s in segments.list_day(path).segments] == [3]  # the writer's
    assert count(tmp_path) == 3


def test_a_writer_leaves_a_day_being_compacted_to_the_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Its merge never waits (the flush thread queues the next behind it): refused the
    day's lock, it merges nothing, and the compaction holding the day merges its files."""
    monkeypatch.setattr(appender, "MERGE_FANOUT", (3, 24))
    path = segments.day_dir(tmp_path, "records", DAY.date().isoformat())
    path.mkdir(parents=True)
    writer = LedgerWriter(tmp_path, process_tag="live")
    with caplog.at_level(logging.INFO), compaction.day_lock(path) as held:
        assert held
        _write_three(writer)
        writer.wait_for_merges()
    writer.close()
    listing = segments.list_day(path)
    assert len(listing.segments) == 3 and not any(s.sources for s in listing.segments)
    assert "records/2026-06-01 is being compacted: 3 files left to it" in caplog.text
    assert compaction.compact(tmp_path, now=LATER, tables=["records"]).days == 1
    assert count(tmp_path) == 3


@pytest.mark.parametrize("flock", ["local", "posix"])
def test_writers_share_a_day_lock_that_a_compactor_takes_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flock: str
) -> None:
    """Writers' merges of their own files run side by side; a compaction excludes them,
    in one process too (the router's housekeeping), even where flock is a POSIX lock (NFS),
    which one process never conflicts with: emulated here by a flock that always succeeds."""
    if flock == "posix":
        monkeypatch.setattr(fcntl, "flock", lambda fd, operation: None)
    path = tmp_path / "records" / "day=2026-06-01"
    path.mkdir(parents=True)
    with daylock.day_lock(path, shared=True) as one, daylock.day_lock(path, shared=True) as two:
        assert one and two
        with daylock.day_lock(path) as compactor:
            assert not compactor
    with daylock.day_lock(path) as compactor:
        assert compactor
        with daylock.day_lock(path, shared=True) as merge:
            assert not merge
    with daylock.day_lock(path, shared=True) as merge:
        assert merge, "each lock is released"


@pytest.mark.parametrize("code", [errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL])
def test_where_flock_is_unavailable_writers_merge_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, code: int
) -> None:
    """NFSv3 without lockd refuses every flock with ENOLCK: each writer merge failed with a
    traceback, and such a mount kept a file a second per process (found in review). Merges
    went without a lock before there was one; they do so again there, saying so once per
    process. A compaction there still fails its exclusive lock and skips the day."""
    monkeypatch.setattr(appender, "MERGE_FANOUT", (3, 24))
    monkeypatch.setattr(daylock, "_said_no_flock", False, raising=False)

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(daylock.fcntl, "flock", no_locks)
    writer = LedgerWriter(tmp_path, process_tag="live")
    with caplog.at_level(logging.INFO, logger="smf_router.ledger"):
        for i in range(6):  # two merges
            writer.submit(Record(f"r{i}", DAY.timestamp() + i))
            writer.flush()
            writer.wait_for_merges()
        writer.close()
    path = segments.day_dir(tmp_path, "records", DAY.date().isoformat())
    assert [len(s.sources) for s in segments.list_day(path).segments] == [3, 3]
    assert count(tmp_path) == 6
    said = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1, [r.getMessage() for r in said]
    assert "writers merge their own files without the day lock" in said[0].getMessage()
    assert os.strerror(code) in said[0].getMessage()
    result = compaction.compact(tmp_path, now=LATER, tables=["records"])
    assert result.days == 0 and result.warnings == [f"not compacting {path}: {os.strerror(code)}"]


# Another process holding a day's lock, as a second compactor does, until its stdin closes.
HOLD = (
    "import fcntl, sys\n"
    "lock = open(sys.argv[1], 'a')\n"
    "fcntl.flock(lock, fcntl.LOCK_EX)\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"
)


def compact_command(ledger: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMF_")}  # no config
    return subprocess.run(
        [str(VENV_BIN / "smf-router"), "ledger", "compact", "--ledger", str(ledger)],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )  # fmt: skip


def test_the_compact_command_names_a_day_another_process_held(tmp_path: Path) -> None:
    """It printed `compacted 0 day(s)` and exited 0, as for nothing to do: a cron log could
    not tell that a day was left unmerged (found in review). Still 0: the next run does it."""
    day = write_day(tmp_path, datetime.now(UTC) - timedelta(days=3), 3, "a")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(daylock.lock_path(day))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    with killed_if_left_running(holder):
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline() == "held\n"
        done = compact_command(tmp_path)
        holder.stdin.close()
        holder.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("compacted 0 day(s): 0 files → 0;")
    assert f"skipped (locked): records/{day.name}: another process is merging it" in done.stderr
    again = compact_command(tmp_path)  # the lock let go: the day is merged
    assert again.stdout.startswith("compacted 1 day(s): 3 files → 1;"), again.stderr
    assert "skipped" not in again.stderr
