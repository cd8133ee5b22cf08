"""The HTML report: one self-contained file with inline SVG charts, readable offline.

No scripts, fonts or stylesheets are fetched: the charts are SVG drawn here, so the file
opens the same on a laptop without network as in a browser with a strict CSP.
"""

from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Any

from router import report_break_even, report_canary
from router.report_render import (
    dollars,
    group_figures,
    left_out,
    optional_columns,
    pct,
    shadow_line,
    token_notes,
    uncredited_note,
)
from router.report_svg import line_chart, stacked_bars

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1000px;
color:#1f2933;padding:0 1rem}h1{margin-bottom:.2rem}.sub{color:#52606d;margin-top:0}
.cards{display:flex;flex-wrap:wrap;gap:1rem;margin:1.5rem 0}.card{border:1px solid #d9e2ec;
border-radius:8px;padding:.8rem 1rem;min-width:170px}.card b{display:block;font-size:1.5rem}
.card span{color:#52606d;font-size:.85rem}table{border-collapse:collapse;width:100%;
margin:1rem 0;font-size:.9rem}th,td{border-bottom:1px solid #e4e7eb;padding:.35rem .5rem;
text-align:right}th:first-child,td:first-child{text-align:left}.warn{color:#8d2b0b}
figure{margin:1.5rem 0}figcaption{color:#52606d;font-size:.9rem}svg text{font-size:11px;
fill:#3e4c59}
"""


def _series(rows: list[dict[str, Any]], field: str, days: list[str]) -> dict[str, list[float]]:
    """`field` per `key` over `days` (`_days`), from a series with a row a day and key."""
    index = {d: i for i, d in enumerate(days)}
    series: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(days))
    for r in rows:
        series[str(r["key"])][index[r["day"]]] += float(r[field])
    return dict(series)


def _days(report: dict[str, Any]) -> list[str]:
    """Every day the charts draw: those the JSON's per-day series list, quiet ones too
    (`router.report_daily`), so the page and the JSON count the same days. A quiet day
    draws no bar and one point of line."""
    return [r["day"] for r in report["local_share"]]


def _cards(report: dict[str, Any]) -> str:
    t = report["totals"]
    items = [
        _dollar_card(t, "offloaded_usd", "offloaded: what local serving saved"),
        (pct(t["local_share_requests"]), "of requests served locally"),
        _dollar_card(t, "cloud_usd", "spent on cloud"),
        _dollar_card(t, "counterfactual_usd", "had everything gone to cloud"),
        (f"{t['requests']:,}", "requests"),
        (f"{t['prompt_tokens'] + t['completion_tokens']:,}", "tokens"),
    ]
    be = report.get("break_even")
    if be and be["payback_months"] is not None:
        items.append((f"{be['payback_months']} mo", "until the hardware pays for itself"))
    cards = "".join(
        f"<div class=card><b>{escape(v)}</b><span>{escape(k)}</span></div>" for v, k in items
    )
    # beside the offloaded card: how many local requests that figure does not credit
    said = uncredited_note(t)
    return f"<div class=cards>{cards}</div>" + (f"<p>{escape(said)}</p>" if said else "")


def _dollar_card(totals: dict[str, Any], field: str, label: str) -> tuple[str, str]:
    """A headline card of a dollar total, saying how many unpriced requests it leaves out:
    "$0 spent on cloud" was the card of a cloud spend no price was known for."""
    n = left_out(totals, field)
    return dollars(totals, field), label + (f" ({n:,} unpriced request(s) not in it)" if n else "")


def _groups_table(report: dict[str, Any]) -> str:
    head = "<tr><th>{}</th><th>requests</th><th>tokens</th><th>local share</th><th>cloud</th>"
    head += "<th>local cost</th><th>counterfactual</th><th>offloaded</th><th>errors</th>"
    head += "<th>fallbacks</th>"
    columns = optional_columns(report["totals"])
    head += "<th>unpriced</th>" if columns.unpriced else ""
    head += "<th>not credited</th>" if columns.uncredited else ""
    head += "<th>estimated tokens</th></tr>" if columns.estimated else "</tr>"
    rows = [head.format(escape(report["by"]))]
    for g in [*report["groups"], {**report["totals"], "key": "total"}]:
        cells = [
            escape(str(g["key"])),
            f"{g['requests']:,}",
            f"{g['prompt_tokens'] + g['completion_tokens']:,}",
            *group_figures(g, columns),
        ]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    note = "".join(f"<p>{escape(line)}</p>" for line in token_notes(report["totals"]))
    return "<table>" + "".join(rows) + "</table>" + note


def _shadow(report: dict[str, Any]) -> str:
    side = report.get("shadow_spend")
    if not side or not side["comparisons"]:
        return ""
    return f"<h2>Shadow</h2><p>{escape(shadow_line(side))}</p>"


def _canary(report: dict[str, Any]) -> str:
    side = report.get("canary_spend")
    said = report_canary.line(side) if side else None
    return "" if said is None else f"<h2>Canary</h2><p>{escape(said)}</p>"


def _latency_table(report: dict[str, Any]) -> str:
    rows = [
        "<tr><th>backend</th><th>requests</th><th>TTFT p50</th><th>TTFT p90</th>"
        "<th>TTFT p99</th><th>total p50</th><th>total p90</th><th>total p99</th></tr>"
    ]
    for lat in report["latency"]:
        vals = [lat["ttft_s"][p] for p in ("p50", "p90", "p99")]
        vals += [lat["total_s"][p] for p in ("p50", "p90", "p99")]
        cells = [escape(lat["backend"]), f"{lat['requests']:,}"]
        cells += ["-" if v is None else f"{v:.2f} s" for v in vals]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "<table>" + "".join(rows) + "</table>"


def _charts(report: dict[str, Any]) -> str:
    days = _days(report)
    share = _series(report["daily_by_backend"], "requests", days)
    share_svg = stacked_bars(days, share, normalize=True, label="share of requests")
    tokens = _series(report["daily_by_route"], "tokens", days)
    tokens_svg = stacked_bars(days, tokens, normalize=False, label="tokens")
    be = report.get("break_even")
    cumulative = _cumulative_savings(report, days)
    if be:
        hline = ("local hardware cost", float(be["hardware_usd"]))
        offl_svg = line_chart(days, {"cumulative recovered $": cumulative}, hline)
        title = "Cumulative recovered dollars"
        caption = (
            "Offloaded dollars plus the hardware amortisation already charged to local"
            " requests (as the payback is counted), summed over time, against the price of"
            " the local hardware: where the lines cross, the box has paid for itself."
        )
        if (said := report_break_even.note(be)) is not None:
            caption += f" {said}."
    else:
        offl_svg = line_chart(days, {"cumulative offloaded $": cumulative}, None)
        title = "Cumulative offloaded dollars"
        caption = "Counterfactual cloud cost minus local cost, summed over time."
    return (
        _figure("Route share per day", "Which backend served the requests of each day.", share_svg)
        + _figure(
            "Tokens per day by route", "Prompt + completion tokens, stacked by route.", tokens_svg
        )
        + _figure(title, caption, offl_svg)
    )


def _cumulative_savings(report: dict[str, Any], days: list[str]) -> list[float]:
    """The running total the savings chart draws over `days`: with a hardware price, what
    `break_even` counts as recovered (offloaded dollars plus the amortisation charged to
    local requests), so the line crosses the price where `payback_months` says; without
    one, offloaded dollars. A quiet day adds 0: the line stays flat over it."""
    per_day = dict.fromkeys(days, 0.0)
    be = report.get("break_even")
    if be:
        for d in be["daily"]:
            per_day[d["day"]] = per_day.get(d["day"], 0.0) + float(d["recovered_usd"])
    else:
        for r in report["daily_by_route"]:
            per_day[r["day"]] = per_day.get(r["day"], 0.0) + float(r["offloaded_usd"])
    cumulative, running = [], 0.0
    for day in days:
        running += per_day[day]
        cumulative.append(running)
    return cumulative


def _figure(title: str, caption: str, svg: str) -> str:
    return (
        f"<figure><h3>{escape(title)}</h3>{svg}<figcaption>{escape(caption)}</figcaption></figure>"
    )


def _minute(iso: str | None, default: str) -> str:
    """A report time to the minute, saying it is UTC (the report's times are)."""
    return f"{iso[:16].replace('T', ' ')} UTC" if iso else default


def to_html(report: dict[str, Any]) -> str:
    """The report as one HTML document."""
    since, until = report.get("since"), report.get("until")
    window = f"{_minute(since, 'the beginning')} to {_minute(until, 'now')}"
    warnings = "".join(f"<li class=warn>{escape(w)}</li>" for w in report["warnings"])
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>smf-router usage report</title><style>{CSS}</style></head><body>"
        "<h1>LLM usage and cloud-cost offload</h1>"
        f"<p class=sub>From {escape(window)} · generated {escape(report['generated_at'])}"
        f" · prices: {escape(report.get('price_map_version') or 'none recorded')}</p>"
        "<p>Every request to the router is routed either to the local model server or to a"
        " cloud provider. <b>Offloaded dollars</b> are what the cloud would have charged for"
        " the requests served locally, minus what serving them locally cost (power and"
        " hardware amortisation).</p>"
        f"{_cards(report)}{_charts(report)}"
        f"<h2>By {escape(report['by'])}</h2>{_groups_table(report)}"
        f"<h2>Latency per backend</h2>{_latency_table(report)}"
        + _shadow(report)
        + _canary(report)
        + (f"<h2>Warnings</h2><ul>{warnings}</ul>" if warnings else "")
        + "</body></html>\n"
    )
