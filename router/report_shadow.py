"""The report's shadow lines: what the shadow's replays and its judge's calls cost, said
apart from live spend, and a warning when some of those calls had no known price."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from router import money
from router.ledger.query import Ledger


def spend(ledger: Ledger, since: datetime, until: datetime) -> dict[str, Any]:
    """What the shadow's replays and its judge's calls cost, kept apart from live spend
    (never in `cloud_usd` nor the offload: no client asked for them). They were in the
    ledger and in no report (found in review). The canary's calls: `router.report_canary`.
    `unpriced` counts the comparisons whose replay or judge call had tokens and no known
    price (a NULL cost): left out of the sums, which read as $0 without a word before."""
    n, shadow, judge, unpriced = ledger.sql(
        f"SELECT count(*)::BIGINT, {money.exact_sum(money.summable('shadow_cost_usd'))},"
        f" {money.exact_sum(money.summable('judge_cost_usd'))},"
        " count(*) FILTER (WHERE (shadow_cost_usd IS NULL AND shadow_tokens > 0)"
        " OR (judge_cost_usd IS NULL AND judge_tokens > 0))::BIGINT"
        " FROM shadow_comparisons WHERE ts >= ? AND ts < ?",
        [since, until],
    )[0]
    return {
        "comparisons": int(n or 0),
        "shadow_usd": money.data(float(shadow or 0.0)),  # as the report's other dollars
        "judge_usd": money.data(float(judge or 0.0)),
        "unpriced": int(unpriced or 0),
    }


def warning(side: dict[str, Any]) -> list[str]:
    """One line when some shadow or judge calls' dollars are unknown (`spend`)."""
    n = side["unpriced"]
    if not n:
        return []
    return [
        f"{n} shadow comparison(s) whose replay or judge call has no known cloud price: left"
        " out of the shadow dollars; give the backend a `price` in the config"
        " (`smf-router config check` names it)"
    ]
