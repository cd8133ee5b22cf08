"""Every row a flush that raises past its guards (a bug, no memory) takes is written, held
or counted as dropped, once: through the real writer and files, with the failure injected at
one step of the flush.

Found in review: a flush that raised while putting its rows in batches had taken the held
rows out of the backlog, and lost them uncounted while `pending_rows` went on showing them.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from router.ledger import LedgerWriter, appender
from tests.ledger.failing_disk import Disk, ids, submit


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
