"""The report's per-day series (`local_share`, `daily_by_route`, `daily_by_backend`): a row
for each day of the report (`report_window.report_days`, the days `break_even.daily` and
the HTML charts count), a quiet one too, as zeros.

Listing only the days with records, a quiet day went missing from every series but
`break_even.daily`: a weekend without traffic vanished from a line plotted from the JSON,
and a mean per day over the listed rows left it out (found in review). A share of nothing
(a day with no routed request, or no served token) is None, not 0: 0 % read as "all on
the cloud" on a day nothing was sent anywhere.
"""

from __future__ import annotations

from typing import Any

from router import money
from router.ledger.query import Ledger


def seen(ledger: Ledger) -> list[str]:
    """The ISO days the report's aggregate (`agg`) has rows for, every one of them, refused
    requests' too: `report_window.report_days` spans them."""
    return [day for (day,) in ledger.sql("SELECT DISTINCT CAST(day AS VARCHAR) FROM agg")]


def share(part: float, whole: float) -> float | None:
    """`part` of `whole` to six decimals, or None when there is no `whole` to have a share of."""
    return round(part / whole, 6) if whole else None


def local_share(ledger: Ledger, days: list[str]) -> list[dict[str, Any]]:
    """Per day of `days`, the requests and tokens routed and how many of them were local:
    requests refused before they were routed are left out (they were neither's to serve)."""
    found = {
        day: (n, local_n, tokens, local_tokens)
        for day, n, local_n, tokens, local_tokens in ledger.sql(
            "SELECT CAST(day AS VARCHAR), sum(requests)::BIGINT, sum(local_requests)::BIGINT,"
            " sum(prompt_tokens + completion_tokens)::BIGINT, sum(local_tokens)::BIGINT"
            " FROM agg WHERE route <> '(none)' OR backend <> '(none)'"  # what was routed
            " GROUP BY day"
        )
    }
    rows = []
    for day in days:
        n, local_n, tokens, local_tokens = found.get(day, (0, 0, 0, 0))
        rows.append(
            {
                "day": day,
                "requests": n,
                "local_requests": local_n,
                "share_requests": share(local_n, n),
                "tokens": tokens,
                "local_tokens": local_tokens,
                "share_tokens": share(local_tokens, tokens),
            }
        )
    return rows


def by_key(ledger: Ledger, column: str, days: list[str]) -> list[dict[str, Any]]:
    """Per day of `days` and `column` (route or backend): requests, served tokens and
    offloaded dollars, the numbers the HTML charts draw. Every key seen in the window has a
    row each day, zeros on a day it had none, so a series per key has no hole either."""
    found: dict[tuple[str, str], tuple[int, int, float]] = {
        (day, key): (n, tokens, money.data(offloaded or 0.0))
        for day, key, n, tokens, offloaded in ledger.sql(
            f"SELECT CAST(day AS VARCHAR), {column}, sum(requests)::BIGINT,"
            f" sum(prompt_tokens + completion_tokens)::BIGINT, {money.exact_sum('offloaded_usd')}"
            " FROM agg GROUP BY ALL"
        )
    }
    keys = sorted({key for _, key in found})
    rows = []
    for day in days:
        for key in keys:
            n, tokens, offloaded = found.get((day, key), (0, 0, 0.0))
            rows.append(
                {
                    "day": day,
                    "key": key,
                    "requests": n,
                    "tokens": tokens,
                    "offloaded_usd": offloaded,
                }
            )
    return rows
