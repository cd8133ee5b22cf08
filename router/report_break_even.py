"""The report's break-even: when savings pay back the local hardware, at the window's rate."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from router import money
from router.config import Config
from router.pricing import MONTH_S

if TYPE_CHECKING:  # DuckDB: not in a router that only parses a window (the endpoint)
    from router.ledger.query import Ledger

DAY_S = 86400.0


def of(
    ledger: Ledger, config: Config | None, window_days: float, days: list[str]
) -> dict[str, Any] | None:
    """When savings pay back the local hardware, at the rate seen in the report window
    (`window_days` long: see `report_window.window_days`).

    Recovered dollars are offloaded dollars plus the hardware amortisation the local
    requests were charged: their offload had it taken out, and counting it again against
    the hardware's price would count the hardware twice. The ledger stores a local
    request's whole cost (amortisation, fixed cost and energy, by the config it was written
    under), not its amortisation apart: that is the config's amortisation rate over the
    seconds served, but never more than the local cost stored for them, per day and backend
    (`_charged`). Taken from the config alone, it added back dollars never charged: a router
    run without `local_cost` stored every local cost as $0, and the report's config added
    its own share back as savings (1,000 requests of 30 s read $4.27 a day for $3.00).
    `daily` holds them per day, each of `days` (`report_window.report_days`, the days the
    HTML charts draw) in order, $0 on a quiet one: the HTML chart sums those, so its line
    crosses the hardware price where this says it is paid. Listing only the days with
    records, a line plotted from the JSON jumped over the quiet ones.

    A local request whose route has no known cloud price (counterfactual NULL) saved an
    unknown amount: its offload is left out, its hardware share still counted (the rollups
    keep no seconds apart for it). `unpriced_local_requests` says how many, and the table
    and HTML say so; when every local request is one, `payback_months` is None (unknown,
    where the share alone read as a payback).
    """
    boxes = [b for b in (config.backends if config else []) if b.local_cost is not None]
    hardware = sum(b.local_cost.hardware_usd for b in boxes if b.local_cost)
    if not boxes or hardware <= 0:
        return None
    per_second = {
        b.name: b.local_cost.hardware_usd / b.local_cost.amortization_months / MONTH_S
        for b in boxes
        if b.local_cost
    }
    daily = dict.fromkeys(days, 0.0)
    local, unpriced = 0, 0
    for day, backend, seconds, cost, offloaded, n, n_unpriced in ledger.sql(
        f"SELECT CAST(day AS VARCHAR), backend, {money.exact_sum('local_seconds')},"
        f" {money.exact_sum('local_usd')}, {money.exact_sum('offloaded_usd')},"
        " sum(local_requests)::BIGINT,"
        " sum(CASE WHEN tier = 'local' THEN unpriced ELSE 0 END)::BIGINT"
        " FROM agg GROUP BY ALL ORDER BY 1, 2"
    ):
        amortized = _charged(seconds, per_second.get(backend, 0.0), cost)
        daily[day] = daily.get(day, 0.0) + float(offloaded or 0.0) + amortized
        local, unpriced = local + int(n or 0), unpriced + int(n_unpriced or 0)
    recovered = sum(daily.values())
    per_day = recovered / window_days if window_days > 0 else 0.0
    months = hardware / (per_day * MONTH_S / DAY_S) if per_day > 0 else None
    if local and unpriced == local:  # no local request's saving is known: nor the payback
        months = None
    return {
        "hardware_usd": money.data(hardware),  # as the totals' (`report._summary`)
        "recovered_usd": money.data(recovered),
        "savings_per_day_usd": money.data(per_day),
        "payback_months": round(months, 2) if months is not None else None,
        "window_days": round(window_days, 3),
        "local_requests": local,
        "unpriced_local_requests": unpriced,
        "daily": [{"day": d, "recovered_usd": money.data(v)} for d, v in sorted(daily.items())],
    }


def _charged(seconds: float | None, per_second: float, cost: float | None) -> float:
    """The amortisation a day's local requests on one backend were charged: the config's
    rate over their `seconds`, capped at the local `cost` the ledger stored for them.

    Under the config the ledger was written with, the rate is below the cost by the
    energy and fixed cost, which are spent, not paid off: they stay out. The cap holds
    whatever config wrote the costs: $0 by a router without `local_cost` adds back
    nothing, less before a price rise adds back no more than that (with energy in it, some
    of that too). A price lowered since adds back the lower share: the savings lean low,
    never high. Per day and backend, whatever `--by`, so the figure never changes with it.
    """
    return min(float(seconds or 0.0) * per_second, max(0.0, float(cost or 0.0)))


def note(be: dict[str, Any]) -> str | None:
    """The line saying how many local requests the savings could not price, if any."""
    n = be.get("unpriced_local_requests")
    if not n:
        return None
    unknown = ": the payback is unknown" if n == be.get("local_requests") else ""
    return (
        f"{n:,} of {be['local_requests']:,} local request(s) have no known cloud price: what"
        f" they saved is left out of the recovered dollars (their hardware share is not){unknown}"
    )
