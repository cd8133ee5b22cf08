"""Durability with real processes: concurrent writers, live reports, SIGTERM, SIGKILL."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from router import report
from router.ledger import Ledger, LedgerWriter, segments
from router.ledger.appender import MERGE_FANOUT
from router.record import Record, Usage

SCRIPT = Path(__file__).with_name("ledger_writer_proc.py")


def spawn(directory: Path, tag: str, total: int, burst: int, pause: float, interval: float):
    args = [str(a) for a in (directory, tag, total, burst, pause, interval)]
    return subprocess.Popen(
        [sys.executable, str(SCRIPT), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(proc: subprocess.Popen[str], word: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline() if proc.stdout else ""
        if line.startswith(word):
            return line.strip()
        if not line and proc.poll() is not None:
            raise AssertionError(f"writer exited: {proc.stderr.read() if proc.stderr else ''}")
    raise AssertionError(f"no {word!r} from writer within {timeout}s")


def ids(directory: Path) -> list[str]:
    with Ledger(directory) as ledger:
        return [r[0] for r in ledger.sql("SELECT request_id FROM records")]


def test_sigterm_loses_nothing(tmp_path: Path) -> None:
    # A long interval: nothing would reach disk without close() in the SIGTERM handler.
    proc = spawn(tmp_path, "term", 30_000, 30_000, 0.0, 60.0)
    wait_for(proc, "done")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    found = ids(tmp_path)
    assert len(found) == 30_000
    assert len(set(found)) == 30_000


def test_sigkill_loses_at_most_the_last_interval(tmp_path: Path) -> None:
    interval = 0.3
    proc = spawn(tmp_path, "kill", 1_000_000, 100, 0.02, interval)
    wait_for(proc, "ready")
    time.sleep(1.5)
    killed_at = time.time()
    proc.kill()
    proc.wait(timeout=30)
    with Ledger(tmp_path) as ledger:
        n, last, max_seq = ledger.sql(
            "SELECT count(*), epoch(max(started_at)),"
            " max(CAST(split_part(request_id, ':', 2) AS BIGINT)) FROM records"
        )[0]
    assert n > 0
    assert n == max_seq + 1  # a contiguous prefix: nothing lost in the middle
    lost_window = killed_at - last
    # At most one flush interval plus scheduling slack on a busy machine.
    assert lost_window < interval + 1.5, f"lost {lost_window:.2f}s of records"


def test_two_processes_write_one_directory_while_a_report_runs(tmp_path: Path) -> None:
    # Small, frequent flushes: each process makes >60 segments, so its own merges run too.
    procs = [spawn(tmp_path, f"w{i}", 9_000, 100, 0.03, 0.02) for i in range(2)]
    seen: list[int] = []
    try:
        for proc in procs:
            wait_for(proc, "ready")
        for _ in range(200):
            data = report.build(tmp_path)
            seen.append(data["totals"]["requests"])
            if all(p.poll() is None for p in procs) and seen[-1] >= 18_000:
                break
            if seen[-1] >= 18_000:
                break
            time.sleep(0.05)
        for proc in procs:
            wait_for(proc, "done")
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    assert seen == sorted(seen), "a live report never sees the count go down (no double counting)"
    found = ids(tmp_path)
    assert len(found) == 18_000 and len(set(found)) == 18_000
    listing = segments.list_table(tmp_path, "records")
    assert len(listing.segments) < 2 * (MERGE_FANOUT[0] + MERGE_FANOUT[1])


def _write_some(directory: Path, n: int, tag: str) -> None:
    writer = LedgerWriter(directory, process_tag=tag)
    now = time.time()
    for i in range(n):
        writer.submit(Record(f"{tag}{i}", now, backend="local", tier="local", usage=Usage(1, 1)))
    writer.close()


def test_corrupted_segments_are_skipped_and_named(tmp_path: Path) -> None:
    _write_some(tmp_path, 10, "good")
    _write_some(tmp_path, 7, "victim")
    day = next((tmp_path / "records").iterdir())
    good = next(day.glob("good-*.parquet"))
    victim = next(day.glob("victim-*.parquet"))
    (day / "garbage-00000001.parquet").write_bytes(b"not parquet at all")
    data = good.read_bytes()
    (day / "half-00000001.parquet").write_bytes(data[: len(data) // 2])
    # Valid footer, broken pages: only a full decode finds it.
    raw = bytearray(victim.read_bytes())
    for i in range(8, len(raw) // 2):
        raw[i] = 0xFF
    victim.write_bytes(bytes(raw))
    with pytest.raises(Exception):  # noqa: B017 - any decode error proves the damage
        pq.read_table(victim)
    result = report.build(tmp_path)
    assert result["totals"]["requests"] == 10
    text = "\n".join(result["warnings"])
    assert "garbage-00000001.parquet" in text
    assert "half-00000001.parquet" in text
    assert victim.name in text


def test_a_writer_keeps_running_when_its_directory_is_unwritable(tmp_path: Path) -> None:
    blocked = tmp_path / "records"
    blocked.write_text("a file where the table directory should be")
    writer = LedgerWriter(tmp_path, flush_interval_s=0.05)
    writer.start()
    writer.submit(Record("x", time.time()))
    assert writer.flush() == 0
    assert writer.dropped_total == 0  # kept for a retry, not lost
    blocked.unlink()
    assert writer.flush() == 1
    writer.close()
    assert ids(tmp_path) == ["x"]
    assert os.listdir(tmp_path / "records")


def test_a_record_that_cannot_be_stored_costs_only_itself(tmp_path: Path) -> None:
    blocked = tmp_path / "records"
    blocked.write_text("a file where the table directory should be")
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    now = time.time()
    writer.submit(Record("kept", now))
    assert writer.flush() == 0  # kept for a retry
    blocked.unlink()
    writer.submit(Record("good", now))
    writer.submit(Record("odd", now, usage=Usage(2**63)))  # beyond int64: no column holds it
    assert writer.flush() == 2
    assert writer.dropped_total == 1
    writer.submit(Record("odd-at-close", now, usage=Usage(2**63)))
    writer.close()  # no exception: the shutdown steps after the ledger's still run
    assert writer.dropped_total == 2
    assert sorted(ids(tmp_path)) == ["good", "kept"]


def test_rows_still_unwritable_at_close_are_counted_as_lost(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "records").write_text("a file where the table directory should be")
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    for i in range(3):
        writer.submit(Record(f"r{i}", time.time()))
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        writer.close()
    assert writer.dropped_total == 3
    assert "3 records rows it could not write" in caplog.text


def test_the_dropped_count_is_of_request_records_like_the_written_count(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`smf_router_ledger_dropped_records_total` counted rows of every table: a request
    lost with its text row counted twice, and canary rows counted too, next to a written
    count of records only (found in review). Each table's loss is still logged."""
    for table in ("records", "texts", "canary_runs"):
        (tmp_path / table).write_text("a file where the table directory should be")
    writer = LedgerWriter(tmp_path, flush_interval_s=3600, store_text=True)
    now = time.time()
    for i in range(3):
        writer.submit(Record(f"r{i}", now, prompt_text="hello", completion_text="hi"))
    writer.submit_row("canary_runs", {"run_id": "x", "ts": now, "backend": "local", "cases": 3})
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        writer.close()
    assert writer.dropped_total == 3
    assert writer.dropped_rows == {"records": 3, "texts": 3, "canary_runs": 1}
    assert "1 canary_runs rows it could not write" in caplog.text
    full = LedgerWriter(tmp_path / "full", flush_interval_s=3600, max_queue=1)
    for _ in range(2):
        full.submit_row("canary_runs", {"run_id": "y", "ts": now, "backend": "local"})
    assert full.dropped_total == 0  # a canary row refused by a full queue is not a record
    full.close()
