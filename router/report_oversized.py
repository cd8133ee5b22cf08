"""The report's rows whose dollars no sum can hold, and the warning that says so.

A ledger written before the config bounded prices and local costs (`MAX_PER_MTOK`,
`LocalCost`) may hold a request's cost of $1e291: every report failed on it, "Could not
cast value", and compaction rolled up no day (found in review). The sums leave such values
out (`money.summable`); this counts the rows they left out, which make the report
incomplete (exit 3), as a skipped file does: the figures are short of those rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from router import money

if TYPE_CHECKING:
    from router.ledger.query import Ledger

# The dollar columns of the tables the report sums raw besides the records (whose count
# `router.ledger.rollups.SUMS_SQL` keeps per group, in the report's `agg`).
_RAW = {
    "shadow_comparisons": ("shadow_cost_usd", "judge_cost_usd"),
    "canary_results": ("cost_usd",),
}


def count(ledger: Ledger, since: datetime, until: datetime) -> int:
    """How many rows of the window the report's sums left a value of out."""
    total = int(ledger.sql("SELECT coalesce(sum(oversized), 0)::BIGINT FROM agg")[0][0])
    for table, columns in _RAW.items():
        where = money.oversized(*columns)
        query = f"SELECT count(*)::BIGINT FROM {table} WHERE ts >= ? AND ts < ? AND ({where})"
        total += int(ledger.sql(query, [since, until])[0][0])
    return total


def warning(n: int) -> list[str]:
    """One line when `count` found any."""
    if not n:
        return []
    return [
        f"{n} row(s) hold a cost or duration past {money.MAX_SUMMED:.0e} (written before the"
        " config bounded prices and local costs, or damaged): left out of the sums, so the"
        " report is incomplete"
    ]
