"""Canary and shadow rows: checked where they are queued, stored with their Arrow types."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from router.ledger import LedgerWriter
from router.ledger.columns import ROW_COLUMNS
from router.ledger.schema import ROW_TYPES, SCHEMAS
from router.record import Record

QUEUE_A_ROW = """
import sys
from router.ledger import LedgerWriter
writer = LedgerWriter(sys.argv[1])
writer.submit_row("canary_runs", {"run_id": "r1", "ts": 0.0, "backend": "local", "cases": 3})
print("pyarrow" in sys.modules)
"""


def test_queueing_a_row_imports_no_arrow(tmp_path: Path) -> None:
    """A shadow or canary row in the first second must not stall the event loop on Arrow's
    ~0.2 s import: that happens on the flush thread."""
    done = subprocess.run(
        [sys.executable, "-c", QUEUE_A_ROW, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "False"


def test_an_unknown_column_is_refused_by_the_caller_with_its_name(tmp_path: Path) -> None:
    writer = LedgerWriter(tmp_path)
    with pytest.raises(ValueError, match=r"shadow_comparisons: unknown column\(s\) \['agree'\]"):
        writer.submit_row("shadow_comparisons", {"agree": True})
    with pytest.raises(ValueError, match="unknown ledger table 'canary'"):
        writer.submit_row("canary", {})
    assert writer.queue_depth == 0


def test_rows_are_stored_with_the_declared_types(tmp_path: Path) -> None:
    writer = LedgerWriter(tmp_path)
    writer.submit_row("canary_runs", {"run_id": "r1", "ts": 0.0, "backend": "local", "cases": 3})
    assert writer.flush() == 1
    (path,) = tmp_path.rglob("*.parquet")
    stored = pq.read_schema(path)
    assert stored.names == [name for name, _ in ROW_COLUMNS["canary_runs"]]
    for name, kind in ROW_COLUMNS["canary_runs"]:
        assert stored.field(name).type == ROW_TYPES[kind] == SCHEMAS["canary_runs"].field(name).type


def test_the_written_records_counter_counts_request_records_only(tmp_path: Path) -> None:
    """`smf_router_ledger_written_records_total` is compared with requests served on the
    reliability dashboard: canary and shadow rows written beside them must not inflate it."""
    writer = LedgerWriter(tmp_path)
    writer.submit(Record("r1", time.time()))
    writer.submit_row("canary_runs", {"run_id": "r1", "ts": 0.0, "backend": "local", "cases": 3})
    writer.submit_row("canary_runs", {"run_id": "r2", "ts": 0.0, "backend": "local", "cases": 3})
    assert writer.flush() == 3
    assert writer.written_total == 1


def test_flush_soon_writes_now_and_says_when(tmp_path: Path) -> None:
    """`flush_soon` (a canary run's start) has the flush thread write what is queued at
    once, not at its interval (an hour here), and its event says when that flush is over;
    a writer closed before its thread flushed answers at close."""
    writer = LedgerWriter(tmp_path / "started", flush_interval_s=3600)
    writer.start()
    writer.submit_row("canary_starts", {"run_id": "r1", "ts": time.time(), "backend": "local"})
    assert writer.flush_soon().wait(30)
    assert len(list((tmp_path / "started" / "canary_starts").rglob("*.parquet"))) == 1
    writer.close()

    idle = LedgerWriter(tmp_path / "idle", flush_interval_s=3600)  # its thread never started
    idle.submit_row("canary_starts", {"run_id": "r2", "ts": time.time(), "backend": "local"})
    written = idle.flush_soon()
    assert not written.is_set()
    idle.close()
    assert written.is_set()
    assert len(list((tmp_path / "idle" / "canary_starts").rglob("*.parquet"))) == 1
