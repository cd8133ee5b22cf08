"""A ledger write outage (a full disk, a read-only remount), through the real writer and files.

Found in review: the rows of failed writes were held in memory where no metric showed them
(queue depth 0, dropped 0: no alert, while a SIGKILL would lose everything since the disk
filled); each failed flush's rows were kept, retried and logged as a batch of their own, so
every flush logged one more line than the last (T²/2 lines after T flushes), and a disk
that came back got one file per failed flush.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from router.ledger import LedgerWriter, segments
from router.metrics import Metrics
from router.record import Record
from tests.ledger.failing_disk import Disk, files, fill_and_flush, ids


def outage_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("smf_router.ledger") and r.levelno >= logging.WARNING
    ]


def test_rows_held_after_failed_writes_show_in_their_metric(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    metrics = Metrics()
    metrics.set_ledger_source(writer)

    def gauge(name: str) -> float | None:
        metrics.render()  # reads the writer, as a scrape does
        return metrics.registry.get_sample_value(f"smf_router_ledger_{name}")

    now = time.time()
    assert fill_and_flush(writer, 4, 50, now) == [0] * 4
    assert gauge("pending_records") == 200
    assert gauge("queue_depth") == 0 and gauge("dropped_records_total") == 0
    assert writer.queue_depth == 0 and writer.pending_rows == 200  # held, not queued
    # rows that could not even be split into days are held, and shown, too
    real_split = segments.split_by_day
    monkeypatch.setattr(segments, "split_by_day", lambda *_: 1 / 0)
    writer.submit(Record("unsplit", now))
    assert writer.flush() == 0
    assert gauge("pending_records") == 201
    monkeypatch.setattr(segments, "split_by_day", real_split)
    disk.full = False
    assert writer.flush() == 201
    assert gauge("pending_records") == 0
    writer.close()
    assert len(ids(tmp_path)) == 201 and writer.dropped_total == 0


def test_a_long_outage_logs_a_few_lines_not_one_per_failed_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    now = time.time()
    with caplog.at_level(logging.WARNING, logger="smf_router.ledger"):
        fill_and_flush(writer, 50, 1, now)
        failing = outage_lines(caplog)
        assert len(failing) == 1, failing  # when it began, with what is held and why
        assert "ledger write failed" in failing[0] and "No space left" in failing[0]
        caplog.clear()
        disk.full = False
        assert writer.flush() == 50
    (recovered,) = outage_lines(caplog)
    assert "work again" in recovered and "50 rows" in recovered
    writer.close()
    assert len(ids(tmp_path)) == 50


def test_while_writes_fail_a_flush_logs_one_line_at_most(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With the minute between reports cut to nothing, each flush logs one line, with the
    count held so far: one retry per (table, day), not one per failed flush."""
    Disk(monkeypatch)
    monkeypatch.setattr("router.ledger.backlog.REPORT_EVERY_S", 0.0)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    now = time.time()
    with caplog.at_level(logging.WARNING, logger="smf_router.ledger"):
        fill_and_flush(writer, 20, 1, now)
    lines = outage_lines(caplog)
    assert len(lines) <= 20, lines
    assert "holding 20 rows" in lines[-1]
    writer.close()


def test_a_recovered_disk_gets_one_file_per_table_and_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600, store_text=True)
    today = time.time()
    yesterday = today - 86_400
    for i in range(50):
        for started, tag in ((yesterday, "y"), (today, "t")):
            writer.submit(Record(f"{tag}{i}", started, prompt_text="hi", completion_text="ho"))
        writer.submit_row("canary_runs", {"run_id": f"c{i}", "ts": today, "backend": "local"})
        assert writer.flush() == 0
    disk.full = False
    assert writer.flush() == 250  # records and texts of two days, and canary runs
    writer.close()
    assert list(files(tmp_path, "records").values()) == [1, 1]
    assert list(files(tmp_path, "texts").values()) == [1, 1]
    assert list(files(tmp_path, "canary_runs").values()) == [1]
    assert ids(tmp_path) == sorted(f"{t}{i}" for t in "yt" for i in range(50))
    assert writer.dropped_rows.total() == 0


def test_held_rows_are_never_dropped_for_new_ones_past_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """`max_queue` bounds the rows held (every table together): the new rows of a failed
    write past it are dropped and counted, the held ones stay and are written later. The
    first drop is logged at once, as an error."""
    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600, max_queue=10)
    now = time.time()
    with caplog.at_level(logging.WARNING, logger="smf_router.ledger"):
        fill_and_flush(writer, 5, 4, now)
    lines = outage_lines(caplog)
    assert len(lines) == 2 and "dropped 4 records rows" in lines[1], lines
    assert writer.pending_rows == 8  # the first two flushes' rows; 12 would pass 10
    assert writer.dropped_total == 12
    disk.full = False
    assert writer.flush() == 8
    writer.close()
    assert ids(tmp_path) == [f"r{i:04d}" for i in range(8)]


def dropped_in(lines: list[str]) -> int:
    """The records rows the log lines say were dropped."""
    return sum(int(line.split("dropped ")[1].split(" records rows")[0]) for line in lines)


def test_drops_since_the_last_report_are_logged_when_writes_recover(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Rows dropped after the first drop's report and before the next, a minute later,
    were logged by no line when the writes recovered first (found in review): the log said
    4 dropped where the metric said 24."""
    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600, max_queue=10)
    now = time.time()
    with caplog.at_level(logging.WARNING, logger="smf_router.ledger"):
        fill_and_flush(writer, 8, 4, now)  # 8 held; the third flush's 4 dropped, logged, 20 more
        disk.full = False
        assert writer.flush() == 8
    lines = outage_lines(caplog)
    assert "work again" in lines[-1] and "dropped 20 records rows" in lines[-1], lines
    assert dropped_in([line for line in lines if "dropped" in line]) == writer.dropped_total
    assert writer.dropped_total == 24
    writer.close()


def test_a_writer_closed_during_an_outage_logs_its_unreported_drops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The same, closed before the writes recovered: the close logged the held rows lost,
    not the rows dropped since the last report, nor that the outage was still going on."""
    Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600, max_queue=10)
    now = time.time()
    with caplog.at_level(logging.WARNING, logger="smf_router.ledger"):
        fill_and_flush(writer, 8, 4, now)
        writer.close()
    lines = outage_lines(caplog)
    closing = [line for line in lines if line.startswith("ledger closed")]
    assert closing[0].startswith("ledger closed with writes failing for "), lines
    assert "dropped 20 records rows since the last report" in closing[0]
    assert closing[1] == "ledger closed with 8 records rows it could not write: they are lost"
    dropped = dropped_in([line for line in lines if "dropped" in line])
    assert dropped + 8 == writer.dropped_total == 32
