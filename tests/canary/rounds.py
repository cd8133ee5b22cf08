"""One canary round in a test: run it, then close the canary's clients, whatever happened;
and a ledger's rounds made older, as if run earlier."""

from __future__ import annotations

import asyncio
import shutil
from datetime import UTC
from pathlib import Path

from router.canary import Canary
from router.ledger import LedgerWriter
from router.ledger.recent import RecentRows

TABLES = ("canary_runs", "canary_results")


def one_round(canary: Canary) -> None:
    async def once() -> None:
        try:
            await canary.run_once()
        finally:
            await canary.aclose()

    asyncio.run(once())


def aged(ledger: Path, seconds: float) -> None:
    """Every canary round in `ledger` rewritten `seconds` earlier, as if run then: a restart
    waits out `interval_s` from the start of the newest run it recalls or wrote a start of
    (`router.canary_schedule`), so a test that restarts a router to see its first run makes
    the runs before older than that. The ledger's other tables go with the old directory,
    `canary_starts` with them (the last run's start, `router.canary_starts`)."""
    rows = {table: RecentRows(ledger, table).read("0000-01-01") for table in TABLES}
    shutil.rmtree(ledger)
    writer = LedgerWriter(ledger, flush_interval_s=60)
    for table, found in rows.items():
        for row in found:
            ts = row["ts"].replace(tzinfo=UTC).timestamp() - seconds  # the ledger's naive UTC
            writer.submit_row(table, {**row, "ts": ts})
    writer.close()
