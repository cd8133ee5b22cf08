"""Canary rounds written into a ledger as if run days ago, and the backends and gate settings
the recall tests read them back with."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from router.ledger import LedgerWriter

LOCAL = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
CLOUD = {"name": "cloud", "tier": "cloud", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
CANARY = {"window": 20, "min_samples": 5, "floors": {"math": 0.6}}


def write_rounds(ledger: Path, days_ago: float, statuses: dict[str, list[str]], n: int = 2) -> None:
    """`n` rounds of math results per backend, `days_ago` days back, through the writer."""
    writer = LedgerWriter(ledger, flush_interval_s=60)
    start = (datetime.now(UTC) - timedelta(days=days_ago)).timestamp()
    for i in range(n):
        run_id, ts = f"r{days_ago}-{i}", start + 900 * i
        for backend, cases in statuses.items():
            summary: dict[str, Any] = {"run_id": run_id, "ts": ts, "backend": backend}
            passed = cases.count("pass")
            done = {"cases": len(cases), "suites": "math", "passed": passed}
            writer.submit_row("canary_runs", summary | done)
            for k, status in enumerate(cases):
                row = summary | {"suite": "math", "case_id": f"m-{k}", "status": status}
                writer.submit_row("canary_results", row)
    writer.close()
