"""The ledger's CLI commands, mounted by the main CLI: `smf-router report` and
`smf-router ledger compact`."""

from __future__ import annotations

import errno
import math
import os
import shutil
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from evals import cli_stdout
from router.cli_config import load_or_exit
from router.config import Config
from router.config_checks import MAX_DAYS

if TYPE_CHECKING:  # pyarrow, imported by the command that compacts, not at start
    from router.ledger.compaction import CompactionResult

PARTIAL = 3  # `report`'s exit status when it has warnings: written, but incomplete

app = typer.Typer(help="Usage reports and ledger maintenance.", no_args_is_help=True)


class GroupBy(StrEnum):
    route = "route"
    intent = "intent"
    backend = "backend"
    caller = "caller"
    day = "day"


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"
    html = "html"


ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="Router config (for the ledger path and local costs; default: $SMF_ROUTER_CONFIG).",
    ),
]
CompactConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="Router config (for the ledger path and retention; default: $SMF_ROUTER_CONFIG).",
    ),
]
# `readable=False`: click's own check refused a ledger this user may not read in a usage
# box, before `ledger_dir` could say what to do about it
LedgerOption = Annotated[
    Path | None,
    typer.Option("--ledger", help="Ledger directory (default: from the config).", readable=False),
]


def ledger_dir(ledger: Path | None, config: Config | None) -> Path:
    """The ledger directory, which must hold a ledger: a typo, or a directory next to the
    ledger (its parent, its `records/`), must not read as "no traffic" (a report of zeros),
    "no shadow comparisons yet" (`shadow report`) nor as "nothing to do" (a cron job that
    never applies retention). A ledger with no rows yet is one (`router.ledger.presence`).
    One this user may not look in (it, or its parent, not searchable) is neither: an error
    that says so, where it was "no ledger" or a PermissionError traceback."""
    from router.ledger import presence

    directory = ledger or Path(config.ledger.path if config else "./var/ledger")
    try:
        if presence.is_ledger(directory):
            return directory
        what = " (a directory with no ledger's tables in it)" if directory.is_dir() else ""
        near = presence.meant(directory) if directory.is_dir() else None
    except PermissionError as exc:
        typer.echo(
            f"error: cannot read {directory}: {exc.strerror or os.strerror(errno.EACCES)} "
            "(run as the ledger's user or group)",
            err=True,
        )
        raise typer.Exit(2) from None
    hint = f"; there is one at {near}: --ledger {near}" if near is not None else ""
    typer.echo(
        f"error: no ledger at {directory}{what} (--ledger or the config's ledger.path)"
        + (hint or _demo_hint(ledger, config)),
        err=True,
    )
    raise typer.Exit(2)


def _demo_hint(ledger: Path | None, config: Config | None) -> str:
    """Demo mode (`make run` with nothing configured) records in a ledger of its own, never
    read by default so its fake dollars never pass for real ones; a user who just tried the
    demo and asks for its report is told where it is."""
    from router.default_config import DEMO_LEDGER

    if ledger is not None or config is not None or not Path(DEMO_LEDGER).is_dir():
        return ""
    return f"; demo mode's ledger is {DEMO_LEDGER}: add --ledger {DEMO_LEDGER} to read it"


def _write(out: Path, text: str) -> None:
    """`--out`, with its directories; a path that cannot be written (a directory, a place
    that cannot hold one) is a one-line error, not a traceback."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except FileExistsError:  # `mkdir` met a file where the directory goes: it said "File exists"
        typer.echo(f"error: cannot write {out}: {os.strerror(errno.ENOTDIR)}", err=True)
        raise typer.Exit(2) from None
    except OSError as exc:
        typer.echo(f"error: cannot write {out}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None


def _terminal_width(out: Path | None) -> int | None:
    """The width of the terminal the report is printed on; None for `--out`, a pipe or a
    file, which get the table at its own width."""
    if out is not None or not sys.stdout.isatty():
        return None
    # $COLUMNS first, as rich and every pager read it; a terminal with no size (0) is none
    columns = shutil.get_terminal_size(fallback=(0, 0)).columns
    return columns or None


def _parse_time(text: str, option: str, now: datetime) -> datetime:
    from router import report_window

    try:
        return report_window.parse_since(text, now)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint=f"'{option}'") from None


@app.command("report")
def report_command(
    since: Annotated[
        str | None,
        typer.Option(
            help="`30d`, `12h`, `2w` before now, or an ISO date/time (default: 30 days"
            " before --until, else before now)."
        ),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            help="Exclusive end: `30d`, `12h`, `2w` before now, or an ISO date/time (default: now)."
        ),
    ] = None,
    by: Annotated[GroupBy, typer.Option(help="Group rows by.")] = GroupBy.route,
    fmt: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.table,
    out: Annotated[Path | None, typer.Option(help="Write to a file instead of stdout.")] = None,
    ledger: LedgerOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Requests, tokens, cloud spend and offloaded dollars from the ledger."""
    from router import report, report_html, report_render, report_window

    config = load_or_exit(config_path)
    now = report_window.now()  # one now: `--since 7d`, the window's check and its end
    start = _parse_time(since, "--since", now) if since else None  # `--since ""`: default
    end = _parse_time(until, "--until", now) if until else None
    start = start or report_window.default_since(end, now)
    try:
        report_window.check_window(start, end, ("--since", "--until"), now, not since)
    except ValueError as exc:  # the usage error (status 2) of the options, named in it
        raise typer.BadParameter(str(exc)) from None
    directory = ledger_dir(ledger, config)
    try:
        data = report.build(directory, start, end, by.value, config, now)
    except report.Unsummable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    narrow = None if out is not None or cli_stdout.writes_unicode(encoding) else encoding
    renders: dict[Format, Callable[[dict[str, Any]], str]] = {
        Format.table: partial(
            report_render.to_table, charset=narrow, terminal_width=_terminal_width(out)
        ),
        Format.csv: report_render.to_csv,
        Format.json: report_render.to_json,
        Format.html: report_html.to_html,
    }
    text = renders[fmt](data)
    if fmt == Format.html and narrow is not None:
        # `<meta charset=utf-8>` over the stdout's own bytes (é as Latin-1's E9) was no valid
        # page (found in re-review); character references are right in every locale
        text = text.encode("ascii", "xmlcharrefreplace").decode("ascii")
    if out:
        _write(out, text)
        typer.echo(f"wrote {out}", err=True)
    else:
        sys.stdout.write(text)
    for warning in data["warnings"] if fmt != Format.table else []:
        typer.echo(f"warning: {warning}", err=True)
    if data["incomplete"]:
        # Partial: the report is written, but its numbers leave rows out (a skipped file).
        # It exited 0, and a cron job could not tell (found in review); not 1, which says no
        # report was made. Unpriced requests are counted and warned of, not left out: a
        # status for them would say "partial" for a month after a price was added.
        raise typer.Exit(PARTIAL)


@app.command("compact")
def compact_command(
    ledger: LedgerOption = None,
    config_path: CompactConfigOption = None,
    grace_hours: Annotated[
        float, typer.Option(help="A day is closed this long after it ended (at least 0).")
    ] = 1.0,
    retention_days: Annotated[
        int | None,
        typer.Option(min=1, max=MAX_DAYS, help=f"Drop days older than this (1 to {MAX_DAYS})."),
    ] = None,
) -> None:
    """Merge each closed day into one file, and drop days past the config's retention
    (--config or $SMF_ROUTER_CONFIG), or past --retention-days; without either, none."""
    from router.ledger import compaction

    # A negative grace closes today's partition while writers still append to it (its
    # merges then race theirs); nan compares false to everything and did the same.
    if not math.isfinite(grace_hours) or grace_hours < 0:
        typer.echo(
            f"error: --grace-hours must be a number of hours ≥ 0, not {grace_hours}", err=True
        )
        raise typer.Exit(2)
    config = load_or_exit(config_path)
    directory = ledger_dir(ledger, config)
    now = datetime.now(UTC)
    keep = retention_days
    if keep is None and config is not None:
        keep = config.ledger.retention_days
    text_keep = config.ledger.text_retention_days if config else None
    kept: list[str] = []  # partitions past retention that could not be deleted
    dropped = compaction.apply_retentions(directory, keep, text_keep, now, kept)
    result = compaction.compact(directory, now, grace_s=grace_hours * 3600)
    said = [f"warning: {warning}" for warning in kept + result.warnings]
    # A day another process held read as nothing to do ("compacted 0 day(s)", status 0): a
    # cron log could not tell them apart. Still no failure: the next run compacts it.
    said += [
        f"skipped (locked): {day}: another process is merging it (a compaction, or a "
        "writer's merge); the next run compacts it"
        for day in result.skipped
    ]
    if keep is None and config is None:
        # Not the config model's defaults: a real config may keep days longer than they do,
        # and a compaction without it must not delete them. Said, so no one believes it ran.
        said.insert(
            0,
            "no retention applied: no config (--config or $SMF_ROUTER_CONFIG)"
            " and no --retention-days",
        )
    if kept or result.failed:
        cli_stdout.failing(1)  # even when the reader of the summary went away (`| head`)
    try:
        typer.echo(compact_summary(result, len(dropped)))
    finally:  # said, and exit 1, whether or not the summary could be written
        for line in said:
            typer.echo(line, err=True)
        if kept or result.failed:  # exit 0: a CronJob that left texts past retention passed
            failures = f"{len(kept)} retention and {result.failed} compaction failure(s)"
            typer.echo(f"error: {failures}, named above", err=True)
            raise typer.Exit(1)


def compact_summary(result: CompactionResult, dropped: int) -> str:
    """`compact`'s one line: the days merged, the days rolled up, the partitions dropped.
    Rollups rebuilt after an upgrade (a new rollup format) read as "compacted 0 day(s)",
    nothing done, while every closed day was read again (found in review)."""
    rebuilt = result.rollups_upgraded
    why = f" ({rebuilt} rebuilt from an older rollup format)" if rebuilt else ""
    return (
        f"compacted {result.days} day(s): {result.files_in} files → {result.files_out};"
        f" rolled up {result.rollups} day(s){why}; dropped {dropped} day partition(s)"
    )
