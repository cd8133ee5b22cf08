"""A ledger written before `canary_results` kept each case's tokens and cost still reads:
the report counts its answered results as `unrecorded` (their cost is not known, not $0),
its rows merge with rows that have the columns, and a follower still reads its rounds."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from typer.testing import CliRunner

from router.canary_rows import finished_rounds
from router.ledger import Ledger, LedgerWriter, compaction
from router.ledger.cli import app
from router.ledger.recent import RecentRows

# Written by the router before the spend columns (tests/fixtures/ledger-canary-v1.md).
BEFORE = Path(__file__).resolve().parents[1] / "fixtures" / "ledger-canary-v1"
DAY = datetime(2026, 3, 2, 10, tzinfo=UTC).timestamp()
WINDOW = ["--since", "2026-03-01", "--until", "2026-03-10"]


def _report(ledger: Path, fmt: str) -> tuple[str, int]:
    result = CliRunner().invoke(app, ["report", "--ledger", str(ledger), *WINDOW, "--format", fmt])
    return result.stdout, result.exit_code


def _copied(tmp: Path) -> Path:
    ledger = tmp / "ledger"
    shutil.copytree(BEFORE, ledger)
    return ledger


def test_the_fixture_was_written_without_the_spend_columns() -> None:
    [path] = (BEFORE / "canary_results").glob("*/*.parquet")
    assert pq.read_schema(path).names[-1] == "latency_s"  # the columns as they were


def test_a_ledger_from_before_reports_its_canary_results_as_unrecorded(tmp_path: Path) -> None:
    out, status = _report(_copied(tmp_path), "json")
    assert status == 0, out
    data = json.loads(out)
    assert data["canary_spend"] == {
        "calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "estimated_calls": 0,
        "cloud_usd": 0.0,
        "local_usd": 0.0,
        "unpriced": 0,
        "unrecorded": 4,  # passed and failed: answered; an error and an n/a were not
    }
    assert data["totals"]["requests"] == 1 and data["totals"]["cloud_usd"] == 0.01
    assert data["warnings"] == [] and data["incomplete"] is False
    table, status = _report(_copied(tmp_path / "again"), "table")
    assert status == 0
    line = "canary, apart from the above: 0 call(s), 0 tokens, cloud $0, local $0"
    assert f"{line} (4 answered before the ledger kept their cost)" in table


def _new_result(case_id: str, **spend: Any) -> dict[str, Any]:
    return {
        "run_id": "r2",
        "ts": DAY + 900,
        "backend": "cloud",
        "suite": "math",
        "case_id": case_id,
        "difficulty": "easy",
        "status": "pass",
        "latency_s": 0.5,
        **spend,
    }


def test_rows_from_before_merge_with_rows_that_have_the_columns(tmp_path: Path) -> None:
    """A day of old and new files compacts into one (the old rows' spend NULL), reports the
    same before and after, and the old round still reads back whole (a follower's gates)."""
    ledger = _copied(tmp_path)
    writer = LedgerWriter(ledger, process_tag="v2")
    spend = {"tier": "cloud", "prompt_tokens": 100, "completion_tokens": 20}
    writer.submit_row("canary_results", _new_result("math-3", **spend, cost_usd=0.5))
    writer.submit_row("canary_results", _new_result("math-4", **spend, cost_usd=None))
    writer.close()
    before, status = _report(ledger, "json")
    assert status == 0
    compacted = compaction.compact(ledger, now=datetime(2026, 3, 10, tzinfo=UTC))
    assert compacted.failed == 0 and not compacted.warnings
    assert len(list((ledger / "canary_results").glob("*/*.parquet"))) == 1
    after, status = _report(ledger, "json")
    assert status == 0
    side = json.loads(after)["canary_spend"]
    assert side == json.loads(before)["canary_spend"]
    counted = (side["calls"], side["cloud_usd"], side["unpriced"], side["unrecorded"])
    assert counted == (2, 0.5, 1, 4)
    with Ledger(ledger) as read:
        old = read.sql("SELECT count(*) FROM canary_results WHERE run_id = 'r1' AND tier IS NULL")
    assert old == [(6,)]
    runs = RecentRows(ledger, "canary_runs").read("2026-03-01")
    results = RecentRows(ledger, "canary_results").read("2026-03-01")
    rounds = finished_rounds(runs, [r for r in results if r["run_id"] == "r1"], ())
    assert sorted(r.key for r in rounds) == [("r1", "cloud"), ("r1", "local")]
    assert all(len(r.results) == 3 for r in rounds)
