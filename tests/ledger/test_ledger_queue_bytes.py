"""While a ledger write hangs (a hung NFS mount), the flush thread waits in it and every
request's record queues: the queue is bounded by an estimate of its bytes as well as by rows.

Found in a months-of-operation review: bounded by rows alone (1,000,000), the queue of a
writer stuck in a write held ~1.4 GiB of records, tens of GiB with `store_text` and long
prompts, and nothing was dropped (so no alert fired) until a million had queued.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from router.ledger import LedgerWriter, segment_write
from router.ledger.tally import QUEUED_RECORD_BYTES, queued_bytes
from router.record import Record
from tests.ledger.failing_disk import ids

TEXT = 100_000  # characters of prompt per record: a long prompt with `store_text`
LIMIT = 1024 * 1024


class HungVolume:
    """`segment_write.write_segment` that waits in the write until `release` is set."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self._write = segment_write.write_segment
        monkeypatch.setattr(segment_write, "write_segment", self.write)

    def write(self, *args: Any, **kwargs: Any) -> None:
        self.entered.set()
        self.release.wait(120)  # bounded: a test that forgets to release still ends
        self._write(*args, **kwargs)


def test_records_queued_behind_a_hung_write_are_bounded_in_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hung = HungVolume(monkeypatch)
    writer = LedgerWriter(tmp_path, flush_interval_s=3600, store_text=True, max_queue_bytes=LIMIT)
    now = time.time()
    writer.submit(Record("first", now))
    flusher = threading.Thread(target=writer.flush, daemon=True)
    flusher.start()
    assert hung.entered.wait(60), "the flush never reached its write"
    assert writer.flush_running_seconds > 0 and writer.queue_depth == 0

    for i in range(40):  # ~4 MB of text in 40 rows: far under `max_queue`, past the bytes
        writer.submit(Record(f"r{i:04d}", now, prompt_text="p" * TEXT, completion_text="ok"))
    # a canary row past the bound is dropped the same way, counted under its table
    writer.submit_row("canary_runs", {"run_id": "x" * LIMIT, "ts": now, "backend": "local"})

    each = QUEUED_RECORD_BYTES + sys.getsizeof("p" * TEXT) + sys.getsizeof("ok")
    kept = LIMIT // each
    assert 0 < kept < 40 and writer.queue_depth == kept
    assert writer.queued_bytes == kept * each <= LIMIT
    status = writer.status()
    assert status["queued_bytes"] == writer.queued_bytes and status["max_queue_bytes"] == LIMIT
    dropped = status["dropped_rows"]
    lost = 40 - kept
    assert (dropped["records"], dropped["texts"], dropped["canary_runs"]) == (lost, lost, 1)
    assert writer.dropped_total == 40 - kept

    hung.release.set()
    flusher.join(120)
    assert not flusher.is_alive()
    assert writer.flush() == 2 * kept  # the kept records and their texts
    assert writer.queued_bytes == 0 and writer.flush_running_seconds == 0
    writer.close()
    assert ids(tmp_path) == sorted(["first", *(f"r{i:04d}" for i in range(kept))])
    assert writer.dropped_total == 40 - kept  # nothing more lost at close


def test_the_byte_bound_frees_as_the_flush_takes_the_queue(tmp_path: Path) -> None:
    """`queued_bytes` goes back to 0 once a flush has taken the queue, so a bound reached
    once does not refuse records for good."""
    writer = LedgerWriter(
        tmp_path, flush_interval_s=3600, store_text=True, max_queue_bytes=3 * QUEUED_RECORD_BYTES
    )
    now = time.time()
    for round_ in range(3):
        for i in range(4):  # the fourth is past the bound
            writer.submit(Record(f"r{round_}-{i}", now))
        assert writer.queued_bytes == 3 * QUEUED_RECORD_BYTES
        assert writer.flush() == 3 and writer.queued_bytes == 0
    writer.close()
    assert len(ids(tmp_path)) == 9 and writer.dropped_total == 3


@pytest.mark.parametrize(("char", "width"), [("p", 1), ("诗", 2), ("🙂", 4)])
def test_a_text_counts_the_bytes_python_keeps_it_in(char: str, width: int) -> None:
    """Python keeps a Chinese text at two bytes a character and one with an emoji at four:
    counted by `len`, a queue bounded at 256 MiB could hold 1 GiB (found in review)."""
    extra = queued_bytes(Record("r", time.time(), prompt_text=char * TEXT)) - QUEUED_RECORD_BYTES
    assert width * TEXT <= extra < width * TEXT + 100
