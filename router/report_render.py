"""Report renderers for the terminal and for other tools: a rich table, CSV and JSON.

The HTML report has its own module (`router.report_html`) because it draws charts; its
table takes the cells it shares with the terminal's from here (`group_figures`).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, NamedTuple

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from router import report_break_even, report_canary
from router.money import usd

# The narrowest the key column folds to on a terminal too narrow for the table (a key that
# fits stays whole): narrower, a caller's name takes more lines than it saves columns.
FOLDED_KEY = 24

CSV_COLUMNS = [
    "key",
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
    "local_share_requests",
    "local_share_tokens",
    "error_rate",
    "fallback_rate",
    "refused",  # new columns go last: those before keep their places (readers by position)
    "unpriced_requests",
    "estimated_requests",
    "estimated_tokens",
    "unserved_requests",
    "unserved_tokens",
    "uncredited_local_requests",
    "unpriced_cloud_requests",
]


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=False, default=str) + "\n"


def to_csv(report: dict[str, Any]) -> str:
    """One row per group, then a `TOTAL` row; columns as in CSV_COLUMNS, and nothing else:
    a spreadsheet or `csv` reader takes every line for a row. The shadow's and the canary's
    spend and the warnings are in the other formats (JSON) and on stderr."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([report["by"] if c == "key" else c for c in CSV_COLUMNS])
    for group in report["groups"]:
        writer.writerow([group.get(c) for c in CSV_COLUMNS])
    writer.writerow(["TOTAL"] + [report["totals"].get(c) for c in CSV_COLUMNS[1:]])
    return out.getvalue()


def pct(value: float | None) -> str:
    """A share in percent; "-" (as a latency of no request) for a share of nothing (None),
    which read 0.0 %, "all on the cloud", of a window with no request."""
    return "-" if value is None else f"{value * 100:.1f}%"


def left_out(group: dict[str, Any], field: str) -> int:
    """How many requests the dollar sum `field` of `group` leaves out, its unpriced ones: the
    cloud spend an unpriced cloud request's, the counterfactual any unpriced one's, the
    offload an unpriced local one's (`docs/ledger.md`, Report JSON)."""
    unpriced = group.get("unpriced_requests") or 0
    cloud = group.get("unpriced_cloud_requests") or 0
    return {
        "cloud_usd": cloud,
        "counterfactual_usd": unpriced,
        "offloaded_usd": unpriced - cloud,
    }.get(field, 0)


def dollars(group: dict[str, Any], field: str) -> str:
    """The dollar figure `field` of `group` as the table and the HTML page show it: "unknown"
    when every request it is of is unpriced (None), "$X + ?" when some are, else `usd`. A
    $0 said "free" of a spend no one knew (found in review)."""
    value = group[field]
    if value is None:
        return "unknown"
    return f"{usd(value)} + ?" if left_out(group, field) else usd(value)


class OptionalColumns(NamedTuple):
    """Which of the group tables' last columns there are, each only when the totals count
    any (`optional_columns`), in the terminal and the HTML table alike, in this order."""

    unpriced: bool  # requests with no known cloud price
    uncredited: bool  # local requests that failed: not in the offloaded dollars
    estimated: bool  # tokens the router estimated


def optional_columns(totals: dict[str, Any]) -> OptionalColumns:
    """The optional columns of the group tables of a report with these `totals`."""
    return OptionalColumns(
        bool(totals.get("unpriced_requests")),
        bool(totals.get("uncredited_local_requests")),
        bool(totals.get("estimated_requests")),
    )


def group_figures(group: dict[str, Any], columns: OptionalColumns) -> list[str]:
    """A group's cells after its key and token counts (`columns` says which of the optional
    last ones it has). One list for the terminal and the HTML table, which differ only in how
    they show the key and the tokens: written twice, a column added to one and not the other,
    or formatted another way, would make the two reports of one ledger disagree. The
    uncredited column says which groups the line under the table ("N of M local request(s)
    failed, not credited") counts: JSON and CSV had the figure per group, these only the total.
    """
    cells = [
        pct(group["local_share_requests"]),
        dollars(group, "cloud_usd"),
        dollars(group, "local_usd"),
        dollars(group, "counterfactual_usd"),
        dollars(group, "offloaded_usd"),
        pct(group["error_rate"]),
        pct(group["fallback_rate"]),
    ]
    if columns.unpriced:
        cells.append(f"{group['unpriced_requests']:,}")
    if columns.uncredited:
        cells.append(f"{group['uncredited_local_requests']:,}")
    if columns.estimated:
        cells.append(f"{group['estimated_tokens']:,}")
    return cells


def to_table(
    report: dict[str, Any], charset: str | None = None, terminal_width: int | None = None
) -> str:
    """A terminal table of the groups plus totals, latency and break-even lines; drawn in
    ASCII for a stdout whose `charset` cannot hold box drawing (None: one that holds any
    character), where it was a grid of `?` (rich draws ASCII itself only for a console
    writing to such a stream, not this one). `terminal_width`: the terminal's, where the
    table goes to one (`table_width`); None, as wide as the table."""
    ascii_only = charset is not None
    dot, arrow = (" | ", "->") if ascii_only else (" · ", "→")
    table = Table(
        title=f"smf-router usage by {report['by']}", box=box.ASCII if ascii_only else box.HEAVY_HEAD
    )
    headers = ["", "requests", "prompt tok", "compl. tok", "local share", "cloud $"]
    headers += ["local $", "counterfactual $", "offloaded $", "errors", "fallbacks"]
    columns = optional_columns(report["totals"])
    if columns.unpriced:
        headers.append("unpriced")
    if columns.uncredited:
        headers.append("not credited")
    if columns.estimated:
        headers.append("est. tok")
    # Never "…" in a cell: `platform…` named no caller, `$0.00000…` no amount (found in a new
    # user's review). The key folds onto more lines; a number, and its header, never breaks.
    table.add_column(headers[0], overflow="fold")
    for header in headers[1:]:
        table.add_column(header, justify="right", no_wrap=True)
    rows = [*report["groups"], {**report["totals"], "key": "TOTAL"}]
    keys = [held(str(g["key"]), charset) for g in rows]
    for g, key in zip(rows, keys, strict=True):
        cells = [
            escape(key),  # a key like `ci[bot]` is text, not markup
            f"{g['requests']:,}",
            f"{g['prompt_tokens']:,}",
            f"{g['completion_tokens']:,}",
            *group_figures(g, columns),
        ]
        table.add_row(*cells, end_section=g["key"] == "TOTAL" or g is rows[-2])
    width = table_width(table, max(map(cell_len, keys)), terminal_width)
    console = Console(record=True, width=width, file=io.StringIO())
    console.print(window_line(report, arrow), markup=False, soft_wrap=True)
    console.print(table)
    if (uncredited := uncredited_note(report["totals"])) is not None:
        console.print(uncredited, markup=False, soft_wrap=True)  # under the offloaded column
    for lat in report["latency"]:
        t, d = lat["ttft_s"], lat["total_s"]
        console.print(
            f"{lat['backend']}: TTFT p50 {_s(t['p50'])} p90 {_s(t['p90'])} p99 {_s(t['p99'])}"
            f"{dot}total p50 {_s(d['p50'])} p90 {_s(d['p90'])} p99 {_s(d['p99'])}",
            markup=False,
        )
    be = report.get("break_even")
    if be:
        months = be["payback_months"]  # None: nothing recovered ("pays back in never")
        when = f"pays back in {months} months" if months is not None else "does not pay back"
        if months is None and be.get("unpriced_local_requests"):
            when = "payback unknown"  # every local request's saving is unknown
        console.print(
            f"hardware {usd(be['hardware_usd'])}: recovered {usd(be['recovered_usd'])} "
            f"in this window, {usd(be['savings_per_day_usd'])}/day {arrow} {when} at this rate",
            markup=False,
        )
        if (said := report_break_even.note(be)) is not None:
            console.print(said, markup=False, soft_wrap=True)  # one line, as the warnings
    for note in token_notes(report["totals"]):
        console.print(note, markup=False)
    _print_apart(console, report)
    version = report.get("price_map_version") or "none recorded"
    console.print(f"price map: {version}", markup=False)
    for warning in report["warnings"]:  # paths and decode errors: text, not markup
        # one line however long: a path broken at the table's width could not be copied
        warned = Text.assemble(("warning:", "yellow"), " ", warning)
        console.print(warned, highlight=False, soft_wrap=True)
    text = console.export_text()
    return text if text.endswith("\n") else text + "\n"


def _print_apart(console: Console, report: dict[str, Any]) -> None:
    """The lines of what the router's own calls cost, apart from the live spend above: the
    shadow's and the canary's, each when there were any."""
    side = report.get("shadow_spend")
    if side and side["comparisons"]:
        console.print(shadow_line(side), markup=False)
    canary = report.get("canary_spend")
    if canary and (said := report_canary.line(canary)) is not None:
        console.print(said, markup=False, soft_wrap=True)  # one line, as the warnings


def table_width(table: Table, key_width: int, terminal_width: int | None) -> int:
    """The width to lay `table` out in so that it cuts no cell (`key_width`: its widest key).
    A fixed 140 columns cut a long key and the widest dollar cells to `…` (found in a new
    user's review). Out of a terminal (a pipe, a file): the table's own width, each row on
    one line. On a terminal: its width, as far as the table fits in it with its keys folded
    down to `FOLDED_KEY` columns; one wider still is laid out wider, and the terminal wraps
    its lines rather than it losing digits."""
    natural = Console(width=1_000_000, file=io.StringIO()).measure(table).maximum
    if terminal_width is None:
        return natural
    return max(terminal_width, natural - key_width + min(key_width, FOLDED_KEY))


def window_line(report: dict[str, Any], arrow: str = "→") -> str:
    """The window the report covers, from its own `since` and `until` (as JSON gives them):
    a pasted table did not say which 30 days it summed. An open end is "now", when the
    report was made; an open start, the ledger's first record."""
    since = report.get("since") or "the first record"
    until = report.get("until") or f"{report['generated_at']} (now)"
    return f"window (UTC): {since} {arrow} {until}"


def shadow_line(side: dict[str, Any]) -> str:
    """What the shadow cost, said apart from the live spend it is not part of."""
    return (
        f"shadow, apart from the above: {side['comparisons']:,} comparison(s), replays"
        f" {usd(side['shadow_usd'])}, judge {usd(side['judge_usd'])}"
        + (f" ({side['unpriced']:,} with no known price left out)" if side.get("unpriced") else "")
    )


def uncredited_note(totals: dict[str, Any]) -> str | None:
    """The line saying how many local requests failed and are not credited, if any: with
    "offloaded $X" alone, a reader could not tell that X leaves out the cloud price of the
    local requests whose client got an error (`router.record.CREDITED_OUTCOMES`)."""
    n = totals.get("uncredited_local_requests")
    if not n:
        return None
    return (
        f"{n:,} of {totals['local_requests']:,} local request(s) failed, not credited: their"
        " cloud price is not in the offloaded dollars (their local cost is)"
    )


def estimate_note(totals: dict[str, Any]) -> str:
    """The line saying how much of the token counts the router estimated itself."""
    return (
        f"{totals['estimated_tokens']:,} of the tokens ({totals['estimated_requests']:,}"
        " request(s)) are the router's estimates: the backend reported no usage, or a stream"
        " ended before its count"
    )


def token_notes(totals: dict[str, Any]) -> list[str]:
    """The footnotes on the token counts: how much the router estimated, and the estimates
    of requests no backend served, which no token column holds (each only when any)."""
    notes = [estimate_note(totals)] if totals.get("estimated_requests") else []
    return notes + ([unserved_note(totals)] if totals.get("unserved_tokens") else [])


def unserved_note(totals: dict[str, Any]) -> str:
    """The line saying the estimated tokens of requests no backend served, left out above."""
    return (
        f"apart from the above: {totals['unserved_tokens']:,} estimated token(s) of"
        f" {totals['unserved_requests']:,} request(s) no backend served (an attempt read the"
        " prompt and generated, then failed or was left before anything reached the client)"
    )


def held(text: str, charset: str | None) -> str:
    """`text` as a stdout in `charset` writes it, a `?` for each character it cannot hold,
    before the table is laid out: "日本" took the four cells of two wide characters and was
    written as two `?`, the columns after it shifted (found in re-review)."""
    return text if charset is None else text.encode(charset, "replace").decode(charset)


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}s"
