"""The usage report: requests, tokens, spend and offloaded dollars out of the ledger.

`build(...)` returns a plain dict with a stable schema (documented in docs/ledger.md, version
in `schema_version`); renderers in `router.report_render` and `router.report_html` turn it
into a table, CSV, JSON or one offline HTML file. One scan aggregates the records into a
small table (day × route × intent × backend × caller); everything but the latency
percentiles is summed from that.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from router import (
    money,
    report_break_even,
    report_canary,
    report_daily,
    report_oversized,
    report_shadow,
    report_window,
)
from router.config import Config
from router.ledger import rollups
from router.ledger.query import DATA_ERRORS, Busy, Ledger
from router.money import exact_sum

By = Literal["route", "intent", "backend", "caller", "day"]
SCHEMA_VERSION = 1
EXACT_MAX = 1_000_000  # above this, latency percentiles come from ~1 % histograms
SAMPLE_ROWS = 1_000_000  # …and records not rolled up beyond this many are sampled for them

# Tier is a group key, so per-tier sums are split after grouping, over the small table.
# Closed days come pre-summed from their rollups; only the other days are scanned.
# A request refused before it was classified has no route nor intent: `(none)`, as a
# request no backend served has backend `(none)`. Its tokens (the router's estimate of what
# an attempt that failed uncommitted read and generated) are `unserved_tokens`, apart from
# the token columns and shares, which count what a backend served: counted in, a local
# request that failed mid-reasoning halved the local share of tokens (found in re-review).
# An unserved row's tokens are only ever estimates (`Gateway.finish` counts tokens without a
# backend only by estimating them), so `unserved_tokens` is its `estimated_tokens`.
# A dollar column is NULL outside its tier (cloud spend of the cloud rows, ...): its sum is
# NULL both for no such row and for every such row unpriced, which `_dollars` tells apart by
# the tier's requests (one shown as $0, an unpriced cloud spend read as none).
_AGG = """
CREATE OR REPLACE TEMP TABLE agg AS
WITH base AS ({raw}{rolled})
SELECT day, coalesce(nullif(route, ''), '(none)') AS route,
       coalesce(nullif(intent, ''), '(none)') AS intent, coalesce(backend, '(none)') AS backend,
       coalesce(tier, 'none') AS tier, caller, requests,
       CASE WHEN backend IS NULL THEN 0 ELSE prompt_tokens END AS prompt_tokens,
       CASE WHEN backend IS NULL THEN 0 ELSE completion_tokens END AS completion_tokens,
       cached_tokens, reasoning_tokens,
       CASE WHEN tier = 'cloud' THEN cost_usd END AS cloud_usd,
       CASE WHEN tier = 'local' THEN cost_usd END AS local_usd,
       CASE WHEN tier = 'cloud' THEN cost_usd WHEN tier = 'local' THEN counterfactual_usd END
           AS counterfactual_usd,
       CASE WHEN tier = 'local' THEN saved_usd ELSE 0 END AS offloaded_usd,
       CASE WHEN tier = 'local' THEN requests ELSE 0 END AS local_requests,
       CASE WHEN tier = 'cloud' THEN requests ELSE 0 END AS cloud_requests,
       CASE WHEN tier = 'cloud' THEN unpriced ELSE 0 END AS cloud_unpriced,
       CASE WHEN tier = 'local' THEN prompt_tokens + completion_tokens ELSE 0 END
           AS local_tokens,
       CASE WHEN tier = 'local' THEN seconds ELSE 0 END AS local_seconds,
       errors, fallbacks, unpriced, uncredited, oversized,
       CASE WHEN backend IS NULL THEN 0 ELSE estimated END AS estimated,
       CASE WHEN backend IS NULL THEN 0 ELSE estimated_tokens END AS estimated_tokens,
       CASE WHEN backend IS NULL THEN estimated ELSE 0 END AS unserved_estimated,
       CASE WHEN backend IS NULL THEN estimated_tokens ELSE 0 END AS unserved_tokens,
       first_at, last_at
FROM base
"""
_ROLLED = f"""
UNION ALL BY NAME
SELECT day, route, intent, backend, tier, {{caller}} AS caller, sum(requests)::BIGINT AS requests,
       sum(prompt_tokens)::BIGINT AS prompt_tokens,
       sum(completion_tokens)::BIGINT AS completion_tokens,
       sum(cached_tokens)::BIGINT AS cached_tokens,
       sum(reasoning_tokens)::BIGINT AS reasoning_tokens, {exact_sum("cost_usd")} AS cost_usd,
       {exact_sum("counterfactual_usd")} AS counterfactual_usd,
       {exact_sum("saved_usd")} AS saved_usd,
       {exact_sum("seconds")} AS seconds, sum(errors)::BIGINT AS errors,
       sum(fallbacks)::BIGINT AS fallbacks, sum(unpriced)::BIGINT AS unpriced,
       sum(estimated)::BIGINT AS estimated, sum(estimated_tokens)::BIGINT AS estimated_tokens,
       sum(uncredited)::BIGINT AS uncredited, sum(oversized)::BIGINT AS oversized,
       min(first_at) AS first_at, max(last_at) AS last_at
FROM rollup_sums GROUP BY ALL
"""

_SUMS = f"""
sum(requests)::BIGINT, sum(prompt_tokens)::BIGINT, sum(completion_tokens)::BIGINT,
sum(cached_tokens)::BIGINT, sum(reasoning_tokens)::BIGINT, {exact_sum("cloud_usd")},
{exact_sum("local_usd")}, {exact_sum("counterfactual_usd")}, {exact_sum("offloaded_usd")},
sum(local_requests)::BIGINT,
sum(local_tokens)::BIGINT, sum(errors)::BIGINT, sum(fallbacks)::BIGINT,
sum(CASE WHEN route = '(none)' AND backend = '(none)' THEN requests ELSE 0 END)::BIGINT,
sum(unpriced)::BIGINT, sum(estimated)::BIGINT, sum(estimated_tokens)::BIGINT,
sum(unserved_estimated)::BIGINT, sum(unserved_tokens)::BIGINT, sum(uncredited)::BIGINT,
sum(cloud_requests)::BIGINT, sum(cloud_unpriced)::BIGINT
"""
_SUM_NAMES = [
    "requests",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "reasoning_tokens",
    "cloud_usd",
    "local_usd",
    "counterfactual_usd",
    "offloaded_usd",
    "local_requests",
    "local_tokens",
    "errors",
    "fallbacks",
    "refused",
    "unpriced_requests",
    "estimated_requests",  # token counts the router estimated (no usage from the backend)
    "estimated_tokens",
    "unserved_requests",  # ended before any backend served them, with estimated tokens
    "unserved_tokens",  # those estimates: in no token column above
    # local requests that failed (`rollups.UNCREDITED`): their cloud price is not offloaded
    "uncredited_local_requests",
    "cloud_requests",  # the requests `cloud_usd` sums (not in the JSON: see `_dollars`)
    "unpriced_cloud_requests",  # those of `unpriced_requests` missing from `cloud_usd`
]

_GROUP_COLUMN: dict[str, str] = {
    "route": "route",
    "intent": "intent",
    "backend": "backend",
    "caller": "caller",
    "day": "CAST(day AS VARCHAR)",
}

_LATENCY = """
SELECT backend, count(*)::BIGINT,
       quantile_cont(ttft_s, [0.5, 0.9, 0.99]), quantile_cont(duration_s, [0.5, 0.9, 0.99])
FROM records
WHERE started_at >= ? AND started_at < ? AND backend IS NOT NULL AND outcome = 'ok'
GROUP BY backend ORDER BY backend
"""


def _summary(values: tuple[Any, ...]) -> dict[str, Any]:
    sums = dict(zip(_SUM_NAMES, values, strict=True))
    cloud, local = int(sums.pop("cloud_requests") or 0), int(sums["local_requests"] or 0)
    served = {  # the requests each dollar sum is of; offloaded is documented as a sum over
        "cloud_usd": cloud,  # the known savings: 0 when none is known (`unpriced_*` say so)
        "local_usd": local,
        "counterfactual_usd": cloud + local,
    }
    out: dict[str, Any] = {
        name: _dollars(value, served.get(name, 0)) if name.endswith("_usd") else int(value or 0)
        for name, value in sums.items()
    }
    # Shares of what the router routed: a request refused before it was planned (a bad
    # body, an unknown model) is an error, but no request local or the cloud could serve;
    # counted in, a client's stream of bad requests read as a fall in the local share.
    n = out["requests"]
    planned = n - out["refused"]
    tokens = out["prompt_tokens"] + out["completion_tokens"]
    # None for a share of nothing (an empty window, the refused's `(none)` group): 0 % read
    # as "all on the cloud", or as no error, of no request at all
    out["local_share_requests"] = report_daily.share(out["local_requests"], planned)
    out["local_share_tokens"] = report_daily.share(out.pop("local_tokens"), tokens)
    out["error_rate"] = report_daily.share(out.pop("errors"), n)
    out["fallback_rate"] = report_daily.share(out.pop("fallbacks"), planned)
    return out


def _dollars(value: float | None, served: int) -> float | None:
    """A dollar sum to ten decimals (`money.data`; the renderers round it, `money.usd`), 0
    when no request of its tier was `served`, None when it had some and every one of them is
    unpriced: the spend is unknown, where $0 read as free. A sum leaving out only some is a
    number; `unpriced_*` count what it leaves out (the renderers say "+ ?")."""
    if value is None:
        return None if served else 0.0
    return money.data(float(value))


def _totals(ledger: Ledger) -> dict[str, Any]:
    return _summary(ledger.sql(f"SELECT {_SUMS} FROM agg")[0])


def _groups(ledger: Ledger, by: By) -> list[dict[str, Any]]:
    column = _GROUP_COLUMN[by]
    order = "key" if by == "day" else "2 DESC, key"
    rows = ledger.sql(f"SELECT {column} AS key, {_SUMS} FROM agg GROUP BY key ORDER BY {order}")
    return [{"key": row[0], **_summary(row[1:])} for row in rows]


def _pcts(values: list[float] | None) -> dict[str, float | None]:
    values = values or [None, None, None]  # type: ignore[list-item]
    return {f"p{q}": v for q, v in zip((50, 90, 99), values, strict=True)}


def _latency(
    ledger: Ledger, since: datetime, until: datetime, requests: int
) -> list[dict[str, Any]]:
    """Percentiles per backend: exact up to EXACT_MAX records, from ~1 % histograms above.

    The histograms of closed days come from their rollups, the rest from the open days.
    """
    if requests > EXACT_MAX:
        rows = _histogram_latency(ledger, since, until)
    else:
        rows = ledger.sql(_LATENCY, [since, until])
    counts = dict(ledger.sql("SELECT backend, sum(requests - errors)::BIGINT FROM agg GROUP BY 1"))
    return [
        {"backend": b, "requests": counts.get(b, n), "ttft_s": _pcts(ttft), "total_s": _pcts(total)}
        for b, n, ttft, total in rows
    ]


def _histogram_latency(ledger: Ledger, since: datetime, until: datetime) -> list[tuple[Any, ...]]:
    """Rows like _LATENCY's, with percentiles read off log-bucket histograms."""
    source, weight = "records_open", 1.0
    if ledger.open_rows > SAMPLE_ROWS:  # many days not rolled up: a ~1M-row sample of those
        percent = 100 * SAMPLE_ROWS / ledger.open_rows
        source, weight = (
            f"records_open TABLESAMPLE system({percent:.4f}%) REPEATABLE (7)",
            (100 / percent),
        )
    raw = f"SELECT backend, metric, bucket, n * {weight} AS n FROM ({rollups.LATENCY_SQL})"
    rolled = " UNION ALL SELECT backend, metric, bucket, n FROM rollup_latency"
    hist = ledger.sql(
        "SELECT backend, metric, bucket, sum(n)::DOUBLE"
        f" FROM ({raw.format(source=source)}{rolled}) GROUP BY ALL",
        [since, until] * 2,
    )
    per: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for backend, metric, b, n in hist:
        per.setdefault(backend, {"ttft": [], "total": []})[metric].append((b, n))
    qs = (0.5, 0.9, 0.99)
    return [
        (b, 0, rollups.percentiles(m["ttft"], qs), rollups.percentiles(m["total"], qs))
        for b, m in sorted(per.items())
    ]


def _unpriced_warning(ledger: Ledger, totals: dict[str, Any]) -> list[str]:
    """One line when some requests' dollars are unknown: a sum without them reads as
    complete (a $0 spend, a negative offload, before they were stored as NULL)."""
    n = totals["unpriced_requests"]
    if not n:
        return []
    rows = ledger.sql("SELECT DISTINCT route, backend FROM agg WHERE unpriced > 0 ORDER BY 1, 2")
    where = ", ".join(f"{backend} on route {route}" for route, backend in rows)
    return [
        f"{n} request(s) with no known cloud price ({where}): their cost or counterfactual"
        " cost is left out of the dollar sums; give the cloud backend a `price` in the config"
        " (`smf-router config check` names it)"
    ]


def _iso_utc(value: datetime | None) -> str | None:
    """A naive UTC time as ISO 8601 with its offset: bare, it read as the reader's local time."""
    return value.replace(tzinfo=UTC).isoformat() if value else None


def _naive_utc(value: datetime | None) -> datetime | None:
    if value is None or value.tzinfo is None:
        return value
    return value.astimezone(UTC).replace(tzinfo=None)


class Unsummable(Exception):
    """No total to show: the ledger holds counts its sums overflow (written before
    `usage.MAX_TOKENS` bounded them), or a compaction kept merging away the files the report
    listed (`query.Busy`). The message is one line, for the CLI and the endpoint alike."""


def build(
    directory: Path,
    since: datetime | None = None,
    until: datetime | None = None,
    by: By = "route",
    config: Config | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The whole report as plain JSON-ready data (see docs/ledger.md for the schema).

    `now` (default: the clock's) ends a window without `until` and is its `generated_at`:
    the CLI and the endpoint pass the one they parsed `since` against."""
    try:
        return _build(directory, since, until, by, config, now or report_window.now())
    except DATA_ERRORS as exc:
        reason = str(exc).partition("\n")[0]
        raise Unsummable(f"cannot add up the ledger at {directory}: {reason}") from None
    except Busy as exc:
        raise Unsummable(f"cannot read the ledger at {directory}: {exc}") from None


def _build(
    directory: Path,
    since: datetime | None,
    until: datetime | None,
    by: By,
    config: Config | None,
    now: datetime,
) -> dict[str, Any]:
    if by not in _GROUP_COLUMN:
        raise ValueError(f"by must be one of {sorted(_GROUP_COLUMN)}, not {by!r}")
    since, until = _naive_utc(since), _naive_utc(until)
    at = now.astimezone(UTC).replace(tzinfo=None)
    # read to `until`, else to now (not to year 9999 while the table's header says "now")
    lo, hi = since or datetime(1970, 1, 1), until or at
    first_day = since.date().isoformat() if since else None
    # `hi` is exclusive: a window ending at midnight does not read (nor warn of) that day
    last_day = (hi - timedelta(microseconds=1)).date().isoformat()
    tables = ("records", "shadow_comparisons", "canary_results")
    with Ledger(Path(directory), first_day, last_day, tables=tables) as ledger:
        # Callers multiply the groups 20-fold: aggregate by caller only when asked to.
        caller = "caller" if by == "caller" else "''"
        raw = rollups.SUMS_SQL.format(source="records_open", caller=caller)
        ledger.use_rollups(lo, hi)  # the rollup views exist, empty or not: always read them
        rolled = _ROLLED.format(caller=caller)
        ledger.sql(_AGG.format(raw=raw, rolled=rolled), [lo, hi])
        window_days = report_window.window_days(ledger, lo, min(hi, at))
        totals = _totals(ledger)
        side = report_shadow.spend(ledger, lo, hi)
        canary = report_canary.spend(ledger, lo, hi)
        oversized = report_oversized.count(ledger, lo, hi)
        generated_at = now.astimezone(UTC).isoformat(timespec="seconds")
        # every day of each per-day series, quiet ones too, and the days the HTML draws
        days = report_window.report_days(report_daily.seen(ledger), generated_at, _iso_utc(until))
        return {
            "schema_version": SCHEMA_VERSION,
            "generated_at": generated_at,
            "ledger": str(directory),
            "since": _iso_utc(since),
            "until": _iso_utc(until),
            "by": by,
            "price_map_version": ",".join(sorted(ledger.price_map_versions)) or None,
            "totals": totals,
            "groups": _groups(ledger, by),
            "local_share": report_daily.local_share(ledger, days),
            "daily_by_route": report_daily.by_key(ledger, "route", days),
            "daily_by_backend": report_daily.by_key(ledger, "backend", days),
            "latency": _latency(ledger, lo, hi, totals["requests"]),
            "break_even": report_break_even.of(ledger, config, window_days, days),
            "shadow_spend": side,
            "canary_spend": canary,
            "warnings": list(ledger.warnings)
            + _unpriced_warning(ledger, totals)
            + report_shadow.warning(side)
            + report_canary.warning(canary)
            + report_oversized.warning(oversized),
            # rows left out: a file skipped (damaged, unreadable), a value no sum can hold
            # (`report_oversized`); unpriced rows are counted, and their sums say "+ ?"
            "incomplete": bool(ledger.warnings) or oversized > 0,
        }
