"""Every row a flush that raises past its guards (a bug, no memory) takes, or leaves queued,
is written, held or counted as dropped, once: through the real writer and files, with the
failure injected at one step of the flush.

Found in review: a flush that raised while putting its rows in batches had taken the held
rows out of the backlog, and lost them uncounted while `pending_rows` went on showing them;
a flush that raised after its conversion dropped a record counted that record twice, and
never counted the texts of the records it lost; and rows left queued by a last flush that
could not make its flush side were counted nowhere at close.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest

from router.ledger import LedgerWriter, appender, segment_write
from router.record import Record, Usage
from tests.ledger.failing_disk import Disk, ids, submit
from tests.ledger.raising_flush import Fault, errors


class BatchFault:
    """`Batch(...)` in `router.ledger.appender` raising `exc` once: the flush fails while it
    puts its rows in batches, after it took the held ones out of the backlog."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
        self.raised = 0
        real = appender.Batch

        def batch(*args: Any, **kwargs: Any) -> appender.Batch:
            if not self.raised:
                self.raised += 1
                raise exc
            return real(*args, **kwargs)

        monkeypatch.setattr(appender, "Batch", batch)


@pytest.mark.parametrize("exc", [MemoryError("injected into Batch"), SystemExit(3)])
def test_held_rows_stay_held_when_putting_a_flush_in_batches_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: BaseException
) -> None:
    """5 rows held by a full disk; the disk recovers, and the next flush, with 1 new row,
    raises while putting its rows in batches. The 5 stay held and are written by the flush
    after; the new one is counted dropped: all 6 accounted for. Before: the 5 were gone,
    never written nor counted, while `pending_rows` went on saying 5."""
    disk = Disk(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    n = submit(writer, 5, 0, time.time())
    assert writer.flush() == 0 and writer.pending_rows == 5
    disk.full = False
    fault = BatchFault(monkeypatch, exc)
    submit(writer, 1, n, time.time())
    if isinstance(exc, Exception):
        assert writer.flush() == 0
    else:
        with pytest.raises(SystemExit):
            writer.flush()
    assert fault.raised == 1
    status = writer.status()
    assert (status["pending_rows"], status["dropped_rows"]["records"]) == (5, 1)
    assert status["last_write_failed"] is True
    assert writer.flush() == 5
    writer.close()
    assert (writer.written_total, writer.dropped_total) == (5, 1)
    assert ids(tmp_path) == [f"r{i:04d}" for i in range(5)]  # each once


@pytest.mark.parametrize("where", ["append", "batches"])
def test_a_raising_flush_counts_each_lost_record_once_and_their_texts(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    where: str,
) -> None:
    """With `store_text`, a flush of 3 records, 2 with a text, one of those unconvertible (a
    token count beyond int64), raises past its guards: `append` raises at once, or once the
    conversion dropped (and counted) that record, while it puts the rows in batches. Either
    way 3 records and 2 texts are counted dropped. Before: the unconvertible record was
    counted twice, and the texts lost with the flush were counted nowhere."""
    if where == "append":
        fault: Fault | BatchFault = Fault(monkeypatch, "append")
    else:
        fault = BatchFault(monkeypatch, MemoryError("injected into Batch"))
    writer = LedgerWriter(tmp_path, flush_interval_s=3600, store_text=True)
    now = time.time()
    writer.submit(Record("r0", now, prompt_text="hello", completion_text="hi"))
    writer.submit(Record("r1", now))
    writer.submit(Record("r2", now, usage=Usage(2**63), prompt_text="hello"))
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        assert writer.flush() == 0
    assert fault.raised == 1
    dropped = writer.status()["dropped_rows"]
    assert (dropped["records"], dropped["texts"]) == (3, 2)
    assert sum(dropped.values()) == 5
    assert any(
        line.startswith("ledger flush failed; dropped the rows it") for line in errors(caplog)
    )
    writer.submit(Record("r3", now, prompt_text="hello"))
    assert writer.flush() == 2  # the record and its text
    writer.close()
    assert ids(tmp_path) == ["r3"]
    assert writer.dropped_rows == {"records": 3, "texts": 2}


@pytest.mark.parametrize("exc", [OSError("injected"), SystemExit(3)])
def test_rows_left_queued_by_a_last_flush_that_cannot_start_are_counted_at_close(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    exc: BaseException,
) -> None:
    """The flush side cannot be made (its start-up raises, once) when the writer closes,
    with 3 records (2 with a text, `store_text` on) and a canary row queued: they are
    counted dropped, by table, in one error line, and the queue is empty; a second `close()`
    counts nothing more. Before: they stayed in the queue, counted nowhere, written never."""
    failures = [exc]
    real = segment_write.close_private_tables

    def close_private_tables(directory: Path) -> list[str]:
        if failures:
            raise failures.pop()
        return real(directory)

    monkeypatch.setattr(segment_write, "close_private_tables", close_private_tables)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600, store_text=True)
    now = time.time()
    writer.submit(Record("r0", now, prompt_text="hello"))
    writer.submit(Record("r1", now, completion_text="hi"))
    writer.submit(Record("r2", now))
    writer.submit_row("canary_runs", {"run_id": "x", "ts": now, "backend": "local"})
    with caplog.at_level(logging.ERROR, logger="smf_router.ledger"):
        if isinstance(exc, Exception):
            writer.close()
        else:
            with pytest.raises(SystemExit):
                writer.close()
        assert not failures
        for _ in range(2):  # the second close makes the flush side, and finds nothing queued
            status = writer.status()
            assert (status["queue_depth"], status["written_records"]) == (0, 0)
            assert writer.dropped_rows == {"records": 3, "texts": 2, "canary_runs": 1}
            writer.close()
    lost = [line for line in errors(caplog) if "still queued" in line]
    assert lost == [
        "ledger closed with 1 canary_runs rows, 3 records rows, 2 texts rows still queued: "
        "they are lost"
    ]
