"""Rows that a flush which raises can neither write nor hold are counted as dropped and
logged, and the flush thread goes on writing: through the real writer, its flush thread and
files, with the failure injected at one step of the flush.

Found in review: rows that never reached the backlog (converting them to Arrow raised past
its per-row fallback) were lost, counted nowhere; the flush raised, so the other tables'
rows of that flush were lost with them. And a flush whose holding of its unwritten rows
(`Backlog.settle`) raised lost them uncounted, and did not count the rows it had written.
Past those, the flush thread logged whatever a flush raised, with its traceback, at every
flush while it lasted, counted nothing, and died of a `SystemExit`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from router.ledger import Ledger, LedgerWriter, backlog, conversion, segment_write
from router.ledger.backlog import Backlog
from router.record import Record, Usage
from tests.ledger.failing_disk import Disk, ids, submit
from tests.ledger.raising_flush import Fault, errors, settled
from tests.waiting import wait_until


def run_ids(directory: Path) -> list[str]:
    with Ledger(directory) as ledger:
        return sorted(r[0] for r in ledger.sql("SELECT run_id FROM canary_runs"))


def test_records_whose_conversion_raises_past_the_per_row_fallback_are_counted_dropped(
    writer: LedgerWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Converting a flush's 3 records raises (as out of memory) past the per-row fallback:
    they are dropped, counted and logged once; the same flush's canary row is written, and so
    are the records of the flushes after. Before: all 4 rows lost, counted nowhere."""
    real = conversion.Converter._convert

    def convert(self: conversion.Converter, table: str, *args: Any) -> Any:
        if table == "records" and not converted:
            converted.append(table)
            raise MemoryError("injected into _convert")
        return real(self, table, *args)

    converted: list[str] = []
    monkeypatch.setattr(conversion.Converter, "_convert", convert)
    n = submit(writer, 3, 0, time.time())
    writer.submit_row("canary_runs", {"run_id": "x", "ts": time.time(), "backend": "local"})
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        writer.start()
        dropped = wait_until(lambda: writer.status()["dropped_rows"]["records"] == 3)
        assert dropped, writer.status()
        n = submit(writer, 2, n, time.time())
        status = settled(writer, 2)
    assert status["written_records"] == 2
    assert status["dropped_rows"]["records"] == 3
    assert sum(status["dropped_rows"].values()) == 3  # the canary row was written
    assert errors(caplog) == [
        "ledger dropped 3 records rows it could not convert: MemoryError: injected into _convert"
    ]
    writer.close()
    assert ids(tmp_path) == ["r0003", "r0004"]
    assert run_ids(tmp_path) == ["x"]


def test_a_table_whose_conversion_fails_whole_loses_no_other_tables_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """`records_table` broken for one flush, whatever it is given (no row converts, nor
    none: the per-row fallback raises too). Its records are counted once, in one error line;
    the canary row of the same flush is written. Before: the records were counted and the
    flush raised, losing the canary row uncounted, and the log said it twice."""
    real = conversion.records_table
    broken = [True]

    def records_table(records: Sequence[Record]) -> pa.Table:
        if broken[0]:
            raise MemoryError("injected into records_table")
        return real(records)

    monkeypatch.setattr(conversion, "records_table", records_table)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    n = submit(writer, 3, 0, time.time())
    writer.submit_row("canary_runs", {"run_id": "x", "ts": time.time(), "backend": "local"})
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        assert writer.flush() == 1
    assert writer.status()["dropped_rows"]["records"] == 3
    assert errors(caplog) == [
        "ledger dropped 3 records rows it could not convert: MemoryError: injected into "
        "records_table"
    ]
    broken[0] = False
    submit(writer, 1, n, time.time())
    assert writer.flush() == 1
    writer.close()
    assert ids(tmp_path) == ["r0003"]
    assert run_ids(tmp_path) == ["x"]


def texts(directory: Path) -> list[str]:
    with Ledger(directory) as ledger:
        return sorted(r[0] for r in ledger.sql("SELECT request_id FROM texts"))


@pytest.mark.parametrize("how", ["one by one", "whole", "queue full"])
def test_a_text_lost_with_its_record_is_counted_in_texts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """With `store_text`, 2 records with a text and 1 without are lost: unconvertible (a
    token count beyond int64) beside one that converts, their whole conversion raising, or
    refused by a full queue. Their 2 texts are counted in `texts`, as a text row that fails
    to write is; the record kept is written with its text. Before: a text lost before its
    row was made was counted nowhere."""
    real = conversion.Converter._convert

    def convert(self: conversion.Converter, table: str, items: Any, *args: Any) -> Any:
        if how == "whole" and table == "records" and len(items) == 3:
            raise MemoryError("injected into _convert")
        return real(self, table, items, *args)

    monkeypatch.setattr(conversion.Converter, "_convert", convert)
    writer = LedgerWriter(
        tmp_path, flush_interval_s=3600, store_text=True, max_queue=1 if how == "queue full" else 9
    )
    now = time.time()
    writer.submit(Record("kept", now, prompt_text="hello", completion_text="hi"))
    if how == "whole":
        assert writer.flush() == 2  # before the 3 come: the records' and the texts' rows
    odd = Usage(2**63) if how == "one by one" else Usage()
    writer.submit(Record("r0", now, usage=odd, prompt_text="hello"))
    writer.submit(Record("r1", now, usage=odd, completion_text="hi"))
    writer.submit(Record("r2", now, usage=odd))
    writer.close()
    assert writer.dropped_rows["records"] == 3
    assert writer.dropped_rows["texts"] == 2
    assert ids(tmp_path) == texts(tmp_path) == ["kept"]


def test_rows_a_flush_cannot_hold_are_counted_dropped_and_its_written_rows_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Holding a flush's unwritten rows for the next (`Backlog.settle`) raises, for two
    flushes: on a full disk, the 2 rows held from before and the 3 new ones can no longer be
    held, so they are dropped, counted and logged once; on a working disk, the 2 rows written
    count as written. Later flushes hold and write as ever. Before: the flush raised, the 5
    rows lost uncounted, the 2 written ones uncounted."""
    real = Backlog.settle
    failing = [False]

    def settle(backlog: Backlog, *args: Any, **kwargs: Any) -> Any:
        if failing[0]:
            raise RuntimeError("injected into settle")
        return real(backlog, *args, **kwargs)

    monkeypatch.setattr(Backlog, "settle", settle)
    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    n = submit(writer, 2, 0, time.time())
    assert writer.flush() == 0 and writer.pending_rows == 2
    failing[0] = True
    n = submit(writer, 3, n, time.time())
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        assert writer.flush() == 0
        assert writer.pending_rows == 0
        assert writer.status()["dropped_rows"]["records"] == 5
        disk.full = False
        n = submit(writer, 2, n, time.time())
        assert writer.flush() == 2
        assert writer.status()["written_records"] == 2
    assert errors(caplog) == [
        "ledger dropped 5 records rows it could not hold for the next flush: RuntimeError: "
        "injected into settle"
    ]
    failing[0] = False
    disk.full = True
    n = submit(writer, 1, n, time.time())
    assert writer.flush() == 0 and writer.pending_rows == 1
    disk.full = False
    assert writer.flush() == 1
    status = writer.status()
    assert status["written_records"] == 3 and status["pending_rows"] == 0
    assert status["dropped_rows"]["records"] == 5
    writer.close()
    assert ids(tmp_path) == ["r0005", "r0006", "r0007"]


def test_rows_held_before_holding_raised_stay_held_and_only_the_rest_are_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Backlog.settle` raising halfway: the 2 rows held from before are held again, then
    joining the 3 new ones to them raises. The 2 stay held (and are written once the disk
    works), only the 3 are counted dropped."""
    real = backlog._combined

    def combined(tables: list[pa.Table]) -> pa.Table:
        if len(tables) > 1:
            raise MemoryError("injected into _combined")
        return real(tables)

    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    n = submit(writer, 2, 0, time.time())
    assert writer.flush() == 0 and writer.pending_rows == 2
    monkeypatch.setattr(backlog, "_combined", combined)
    submit(writer, 3, n, time.time())
    assert writer.flush() == 0
    assert writer.pending_rows == 2
    assert writer.status()["dropped_rows"]["records"] == 3
    disk.full = False
    assert writer.flush() == 2
    writer.close()
    assert ids(tmp_path) == ["r0000", "r0001"]


def test_once_rows_a_flush_could_not_hold_are_dropped_the_next_idle_flush_is_ok(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3 rows held by a full disk; holding them again raises, so they are dropped; then a
    flush's rows are dropped as `append` raises past its guards. Each time the status shows
    the failure until a flush with nothing to write and nothing held: that one is an ok
    flush. Before: after the first, `last_write_failed` stayed true and
    `last_ok_flush_unix` stood still for good (nothing held, no flush wrote again); a flush
    whose rows `append` dropped did not show as failed."""
    real = backlog._combined

    def combined(tables: list[pa.Table]) -> pa.Table:
        if failing:
            failing.pop()
            raise MemoryError("injected into _combined")
        return real(tables)

    failing: list[bool] = []
    monkeypatch.setattr(backlog, "_combined", combined)
    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    submit(writer, 3, 0, time.time())
    assert writer.flush() == 0
    failed = writer.status()
    assert failed["last_write_failed"] and failed["last_ok_flush_unix"] is None
    failing.append(True)
    assert writer.flush() == 0
    status = writer.status()
    assert status["dropped_rows"]["records"] == 3 and status["pending_rows"] == 0
    assert status["last_write_failed"] is True  # this flush's write failed
    disk.full = False
    assert writer.flush() == 0  # nothing to write, nothing held
    idle = writer.status()
    assert idle["last_write_failed"] is False and idle["last_ok_flush_unix"] is not None
    fault = Fault(monkeypatch, "append")
    writer.submit_row("canary_runs", {"run_id": "x", "ts": time.time(), "backend": "local"})
    assert writer.flush() == 0 and fault.raised == 1
    dropped = writer.status()
    assert dropped["dropped_rows"]["canary_runs"] == 1
    assert dropped["last_write_failed"] is True
    assert dropped["last_ok_flush_unix"] == idle["last_ok_flush_unix"]
    assert writer.flush() == 0
    assert writer.status()["last_write_failed"] is False
    writer.close()
    assert ids(tmp_path) == []


def test_rows_of_flushes_that_raise_are_counted_dropped_and_the_thread_writes_on(
    writer: LedgerWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`Appender.append` raising past its own guards (a bug) at three flushes of the flush
    thread in a row: the first took 3 records and a canary row, which are counted dropped;
    one error line for the three; the rows queued after are written. Before: nothing
    counted, and an error with its traceback at every flush."""
    fault = Fault(monkeypatch, "append", times=3)
    n = submit(writer, 3, 0, time.time())
    writer.submit_row("canary_runs", {"run_id": "x", "ts": time.time(), "backend": "local"})
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        writer.start()
        assert wait_until(lambda: fault.raised == 3 and fault.calls > 3), fault.calls
        n = submit(writer, 2, n, time.time())
        status = settled(writer, 2)
    assert status["written_records"] == 2
    assert status["dropped_rows"]["records"] == 3
    assert status["dropped_rows"]["canary_runs"] == 1
    assert errors(caplog) == [
        "ledger flush failed; dropped the rows it had taken (1 canary_runs rows, 3 records "
        "rows): RuntimeError: injected into append"
    ]
    writer.close()
    assert ids(tmp_path) == ["r0003", "r0004"]
    assert run_ids(tmp_path) == []


def test_the_flush_thread_outlives_a_flush_that_raises_anything(
    writer: LedgerWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The flush side cannot be made, at three flushes in a row, and the first time with a
    `SystemExit` (a bug calling `sys.exit`): the thread logs each distinct failure once and
    writes the queued rows once it can. Before: the `SystemExit` ended the thread silently,
    and no row was written again."""
    failures: list[BaseException] = [SystemExit(3), OSError("injected"), OSError("injected")]
    real = segment_write.close_private_tables

    def close_private_tables(directory: Path) -> list[str]:
        if failures:
            raise failures.pop(0)
        return real(directory)

    monkeypatch.setattr(segment_write, "close_private_tables", close_private_tables)
    n = submit(writer, 3, 0, time.time())
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        writer.start()
        status = settled(writer, n)
    assert not failures
    assert status["written_records"] == 3
    assert sum(status["dropped_rows"].values()) == 0  # they waited in the queue
    assert errors(caplog) == [
        "ledger flush failed: SystemExit: 3",
        "ledger flush failed: OSError: injected",
    ]
    writer.close()
    assert ids(tmp_path) == ["r0000", "r0001", "r0002"]
