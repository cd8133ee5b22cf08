"""A report's dollars are the same however DuckDB adds them up: read raw, in parallel, or
from a compacted day's rollup (docs/ledger.md promises the same figures compacted or not).

The ledger is the real writer's rows, copied many times into segments as the writer names
and checksums them (as a review built a 7-million-row ledger, scaled down)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from router.ledger import LedgerWriter, checksum
from router.record import Attempt, Record, Usage
from tests.processes import smf_router

DAY = datetime(2026, 3, 1, 10, tzinfo=UTC).timestamp()
WINDOW = ["--since", "2026-03-01", "--until", "2026-03-02", "--format", "json"]
COPIES, FILES = 25_000, 4  # 100,000 requests of each tier, in four segments


def _served(name: str, tier: str, cost: float) -> Record:
    return Record(
        name,
        DAY,
        route="coding",
        intent="coding",
        backend=tier,
        tier=tier,
        attempts=[Attempt(tier, tier, duration_s=0.5)],
        usage=Usage(50, 20),
        duration_s=0.5,
        cost_usd=cost,
        counterfactual_usd=0.1,
    )


def _big_ledger(tmp_path: Path) -> Path:
    """`FILES` segments of one day, each `COPIES` of a local request ($0.0001, $0.10 at the
    cloud's price) and of a cloud one ($0.10)."""
    seed = tmp_path / "seed"
    writer = LedgerWriter(seed)
    writer.submit(_served("local", "local", 0.0001))
    writer.submit(_served("cloud", "cloud", 0.1))
    writer.close()
    (written,) = (seed / "records").rglob("*.parquet")
    rows = pq.read_table(written)
    copies = rows.take([i for i in range(rows.num_rows) for _ in range(COPIES)])
    ledger = tmp_path / "ledger"
    LedgerWriter(ledger).close()
    day = ledger / "records" / written.parent.name
    day.mkdir(parents=True, exist_ok=True)
    for n in range(FILES):
        segment, part = day / f"big-{n:08d}.parquet", day / f".big-{n}.tmp"
        pq.write_table(copies, part)
        checksum.write(segment, part)
        part.rename(segment)
    return ledger


def _dollars(ledger: Path) -> dict[str, Any]:
    done = smf_router("report", "--ledger", str(ledger), *WINDOW)
    assert done.returncode == 0, done.stderr
    totals = json.loads(done.stdout)["totals"]
    assert totals["requests"] == 2 * COPIES * FILES
    return {key: value for key, value in totals.items() if key.endswith("_usd")}


def test_the_dollars_are_exact_read_raw_and_once_compacted(tmp_path: Path) -> None:
    """Summed as DOUBLE, 200,000 requests of $0.10 read $20,000.0000000377 raw and
    $19,999.9999999895 once compacted, and a 7-million-row ledger read 4299.75 in one run
    and 4299.7499999998 in the next (found in review)."""
    ledger = _big_ledger(tmp_path)
    exact = {
        "cloud_usd": 10_000.0,
        "local_usd": 10.0,
        "counterfactual_usd": 20_000.0,
        "offloaded_usd": 9_990.0,
    }
    assert _dollars(ledger) == exact
    compacted = smf_router("ledger", "compact", "--ledger", str(ledger))
    assert compacted.returncode == 0, compacted.stderr
    assert "rolled up 1 day(s)" in compacted.stdout
    assert _dollars(ledger) == exact


def _report(ledger: Path) -> tuple[int, dict[str, Any]]:
    done = smf_router("report", "--ledger", str(ledger), *WINDOW)
    assert done.returncode in (0, 3), done.stderr
    return done.returncode, json.loads(done.stdout)


def test_a_cost_past_any_sum_is_left_out_and_makes_the_report_incomplete(
    tmp_path: Path,
) -> None:
    """A ledger written before `local_cost` was bounded holds $5e291 for half a second of
    `hardware_usd: 1e300`: every report exited 1, "Could not cast value … to DECIMAL(38,12)",
    and each compaction warned "no rollup" for the day (found in review). The value is left
    out of the sums and counted, the report made and incomplete (exit 3), raw and rolled up.
    A shadow replay's cost past any sum is counted the same way."""
    ledger = tmp_path / "ledger"
    writer = LedgerWriter(ledger)
    writer.submit(_served("local", "local", 5e291))
    writer.submit(_served("cloud", "cloud", 0.1))
    writer.submit_row(
        "shadow_comparisons",
        {"ts": DAY, "request_id": "local", "intent": "coding", "route": "coding"}
        | {"live_backend": "cloud", "shadow_backend": "local", "agreed": True}
        | {"live_tokens": 70, "live_cost_usd": 0.1, "shadow_tokens": 70, "shadow_cost_usd": 1e300},
    )
    writer.close()
    for compacted in (False, True):
        status, report = _report(ledger)
        assert status == 3
        assert report["incomplete"] is True
        (warning,) = [w for w in report["warnings"] if "past 1e+15" in w]
        assert warning.startswith("2 row(s) hold a cost or duration past 1e+15")
        totals = report["totals"]
        assert (totals["requests"], totals["cloud_usd"], totals["local_usd"]) == (2, 0.1, None)
        assert (totals["counterfactual_usd"], totals["offloaded_usd"]) == (0.2, 0.0)
        assert report["shadow_spend"]["shadow_usd"] == 0.0
        if not compacted:
            done = smf_router("ledger", "compact", "--ledger", str(ledger))
            assert done.returncode == 0, done.stderr
            assert "rolled up 1 day(s)" in done.stdout
            assert "no rollup" not in done.stderr
