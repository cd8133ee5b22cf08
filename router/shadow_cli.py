"""`smf-router shadow report`: shadow agreement per intent and backend pair, with advice."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from router import money
from router.cli_config import load_or_exit
from router.config_checks import MAX_DAYS
from router.shadow_report import PairSummary, bounds, from_ledger, summarize

app = typer.Typer(help="Shadow evaluation reports.", no_args_is_help=True)


@app.callback()
def shadow() -> None:
    """Shadow evaluation: how often another backend agreed with the live answers."""


def _seconds(value: float | None) -> str:
    """A median latency, or `-` when there is none (every shadow failed): 0.00 read as
    instant."""
    return "-" if value is None else f"{value:.2f}"


def _table(summaries: list[PairSummary]) -> Table:
    table = Table(title="Shadow agreement (Wilson 95% interval)")
    for name in (
        "intent",
        "route",
        "live → shadow",
        "n",
        "agree",
        "95% CI",
        "p50 live/shadow s",
        "$ live/shadow/judge",
        "judge",
        "errors",
    ):
        table.add_column(name, overflow="fold")  # never "…": a cut number reads as another
    for s in summaries:
        agree = f"{s.agreement:.0%}" if s.agreement is not None else "-"
        judge = ", ".join(f"{k} {v}" for k, v in sorted(s.judge.items())) or "-"
        table.add_row(
            s.intent,
            s.route or "-",
            f"{s.live_backend} → {s.shadow_backend}",
            str(s.samples),
            agree,
            bounds(s.low, s.high),  # as the advice lines print it
            f"{_seconds(s.live_p50_s)} / {_seconds(s.shadow_p50_s)}",
            " / ".join(_usd(c) for c in (s.live_cost_usd, s.shadow_cost_usd, s.judge_cost_usd)),
            judge,
            str(s.errors),
        )
    return table


UNPRICED_NOTE = (
    "? : a call of that group had tokens and no known cloud price, so its dollars are unknown;"
    " give the backend a `price` in the config (`smf-router config check` names it)"
)


def _usd(cost: float | None) -> str:
    """A group's dollars; "?" when a call in it had no known price (not a $0 to read). Four
    decimals, which keep two significant digits from $0.001 on; below, `money.figure`'s two
    significant digits, as the main report writes dollars: $4.4e-05 read 0.0000 (found in
    review)."""
    if cost is None:
        return "?"
    return money.figure(cost) if 0 < abs(cost) < SMALL_USD else f"{cost:.4f}"


SMALL_USD = 0.001  # four decimals keep fewer than two significant digits below this


@app.command("report")
def report(
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help=(
                "Router config (ledger path, tiers, routes: advice to move a route needs it;"
                " default: $SMF_ROUTER_CONFIG)."
            ),
        ),
    ] = None,
    ledger: Annotated[
        Path | None,  # not `readable`: `ledger_dir` says what to do about an unreadable one
        typer.Option("--ledger", help="Ledger directory.", readable=False),
    ] = None,
    days: Annotated[
        int | None,
        typer.Option(min=1, max=MAX_DAYS, help=f"Only the last N days (1 to {MAX_DAYS})."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Per intent and backend pair: samples, agreement with a CI, latency, cost, advice."""
    from router.ledger import Ledger
    from router.ledger.cli import PARTIAL, ledger_dir
    from router.ledger.query import Busy

    cfg = load_or_exit(config)
    directory = ledger_dir(ledger, cfg)
    tiers = {b.name: b.tier for b in cfg.backends} if cfg else {}
    # each route's first backend: a row live on another member of its route is fallback
    firsts = {route: members[0] for route, members in cfg.routes.items()} if cfg else {}
    try:
        with Ledger(directory, _first_day(days), tables=("shadow_comparisons",)) as store:
            summaries = summarize(from_ledger(store, days), tiers, firsts)
            warnings = list(store.warnings)
            skipped = store.skipped
    except Busy as exc:  # a compaction kept merging files away: as `smf-router report` says
        typer.echo(f"error: cannot read the ledger at {directory}: {exc}", err=True)
        raise typer.Exit(1) from None
    for warning in warnings:  # files skipped: on stderr, never inside the JSON
        typer.echo(f"warning: {warning}", err=True)
    if as_json:
        typer.echo(json.dumps([s.as_dict() for s in summaries], indent=2))
    else:
        _print(summaries, skipped)
    if skipped:
        # Partial, as `smf-router report` says it: rows were left out. A ledger whose every
        # comparison was in a damaged file said "no shadow comparisons in the ledger yet"
        # (`--json`: []), exit 0 (found in review).
        raise typer.Exit(PARTIAL)


def _first_day(days: int | None) -> str | None:
    """The first day partition `--days` reads, as `smf-router report` opens only its
    window's: a damaged file 100 days back made `--days 7` partial (exit 3) of a window it
    read whole (found in review). The query's own cut (`from_ledger`, a moment later) falls
    on this day or after it."""
    if days is None:
        return None
    return (datetime.now(UTC) - timedelta(days=days)).date().isoformat()


def _print(summaries: list[PairSummary], skipped: int) -> None:
    """The table and the advice; without comparisons, whether some were unreadable."""
    # At a pipe's 80 columns, or a narrow terminal's, rich cut the table's own numbers (95% CI
    # `50%–7…`; found in review); every column folds what is wider than 140 instead.
    console = Console(width=140)
    if not summaries:
        console.print(
            f"no shadow comparisons readable ({skipped} skipped file(s) or directories,"
            " named in the warnings)"
            if skipped
            else "no shadow comparisons in the ledger yet"
        )
        return
    console.print(_table(summaries))
    if any(None in (s.live_cost_usd, s.shadow_cost_usd, s.judge_cost_usd) for s in summaries):
        console.print(UNPRICED_NOTE)
    for s in summaries:
        console.print(s.recommendation)
