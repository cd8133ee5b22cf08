"""`smf-router canary run`: one canary round against every backend, results into the ledger.

For deployments where the schedule lives outside the routers (a Kubernetes CronJob runs
it once per cluster; routers without `canary.enabled` read its rounds back from the ledger,
`router.canary_follow`); a router with `canary.enabled` runs the same rounds itself.
It prints one line per backend for a person (`--json`: the round's summaries for scripts).
A SIGTERM (Kubernetes' `activeDeadlineSeconds`), a SIGINT (Ctrl-C) or `--deadline-s` ends
the round early: each backend's rows are written with what it finished (`router.canary_bound`).
Exit status: 0 once some backend graded a case, `NOTHING_GRADED` when none did (every backend
unreachable: nothing was measured), `ROWS_LOST` when the ledger did not take the round's rows,
128 + the signal's number when one ended the round; 2 for a config, suites or a ledger that
cannot take a round now (`not_now`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import signal
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from evals import cli_stdout
from evals.results import CaseResult
from router.canary import Canary, load_cases
from router.canary_judge import gate_book
from router.cli_config import load_or_exit
from router.config import Backend as BackendSettings
from router.config import ConfigError
from router.ledger import LedgerWriter, location
from router.ledger.unwritable import Unwritable
from router.pricing import Pricer
from router.sandbox_layers import CANARY, runs_code, say, undumpable

app = typer.Typer(help="Canary evals against every configured backend.", no_args_is_help=True)

MAX_DETAILS = 3  # distinct error details shown per backend, most common first
MAX_DETAIL_CHARS = 200
# A round these end exits with 128 + their number, as a shell's. Ctrl-C's ended the process
# at once, with nothing printed and the round under way unwritten (found in review).
STOPPING = (signal.SIGTERM, signal.SIGINT)
NOTHING_GRADED = 3  # as `eval run`'s: a round that measured nothing is no success
# A round whose rows the ledger did not take (it went read-only or full while the round ran,
# and the writer gave them up at the exit): measured, but recorded nowhere. It exited 0 with
# the writer's "they are lost" on stderr (found in review); 1, as a failed write of stdout.
ROWS_LOST = 1


def error_details(results: Sequence[CaseResult]) -> list[tuple[str, int]]:
    """What a backend's errors said, most common first, with their counts: the ledger keeps
    only their kind, and `errors: 7` alone did not say why (an unreachable backend, a
    refused key). Read from the backend's own results (`Canary.last_results`): kept per
    endpoint, two backends on one URL and model with the same headers showed each other's
    (found in review)."""
    details: Counter[str] = Counter()
    for r in results:
        if r.status == "error":
            text = " ".join((r.detail or r.failure_kind or "no detail").split())
            details[text[:MAX_DETAIL_CHARS]] += 1
    return details.most_common(MAX_DETAILS)


def summary_line(run: dict[str, Any]) -> str:
    """One backend's round as a person reads it. It printed the summary's dict, with an epoch
    timestamp (found in review)."""
    when, skipped = iso_time(run["ts"]), run["skipped_reason"]
    if skipped and not run["cases"]:
        return f"{run['backend']}: skipped ({skipped}), at {when}"
    cases, passed, failed, errors = run["cases"], run["passed"], run["failed"], run["errors"]
    counts = f"{passed}/{cases} passed, {failed} failed, {errors} errors"
    if unanswerable := cases - passed - failed - errors:
        counts += f", {unanswerable} n/a"  # cases the backend's window cannot hold
    suites = run["suites"].replace(",", ", ") or "none"
    took = f"{run['duration_s']:.1f} s"
    # a wait the backend asked for mid-round: the rest of it passed by (`router.canary_wait`)
    then = f"; then skipped ({skipped})" if skipped else ""
    return f"{run['backend']}: {counts}{then}; suites: {suites}; started {when}, took {took}"


def iso_time(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@app.command()
def run(
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="Router config YAML (default: $SMF_ROUTER_CONFIG)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print each backend's summary as JSON instead.")
    ] = False,
    deadline_s: Annotated[
        float | None,
        typer.Option(
            "--deadline-s",
            help="End the round this many seconds after it starts: cases still unanswered "
            "are recorded as errors (default: no deadline).",
        ),
    ] = None,
) -> None:
    """Run one rotating sample of every suite against every backend and record the results."""
    undumpable()  # before any sandboxed program: they must not read this environment
    if deadline_s is not None and not (math.isfinite(deadline_s) and deadline_s > 0):
        # 0 was taken: a round of cases "not asked" was recorded, and moved the rotation on
        raise typer.BadParameter(
            f"must be a number of seconds > 0, not {deadline_s}", param_hint="'--deadline-s'"
        )
    settings = load_or_exit(config)
    if settings is None:
        typer.echo("error: no config: give --config or set SMF_ROUTER_CONFIG", err=True)
        raise typer.Exit(2)
    try:  # before the ledger's writer starts: a bad suite is a message, not a traceback
        cases = load_cases(
            settings, warn=lambda warning: typer.echo(f"warning: {warning}", err=True)
        )
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    # `serve`'s line at start, where code cases run: on stderr, stdout may be the --json
    say(settings, [CANARY] if runs_code(cases) else [], write=_on_stderr)
    book = gate_book(settings.canary)
    writable_or_exit(settings.ledger.path)  # before any case runs
    ledger = Path(settings.ledger.path)  # the rotation goes on after the latest round there
    writer = LedgerWriter(ledger, settings.ledger.flush_interval_s)
    writer.start()
    canary = Canary(
        settings,
        cases,
        book,
        rows=writer,
        history=ledger,
        deadline_s=deadline_s,
        pricing=Pricer(settings),  # each case's call priced, as a router's canary prices it
    )

    async def once() -> None:
        loop = asyncio.get_running_loop()
        for sig in STOPPING:
            loop.add_signal_handler(sig, canary.stop, sig.name)
        try:
            await canary.run_once()
        finally:
            for sig in STOPPING:
                loop.remove_signal_handler(sig)
            await canary.aclose()

    try:
        asyncio.run(once())
    finally:
        writer.close()
    graded = any(run["passed"] + run["failed"] for run in canary.last_run.values())
    lost = writer.dropped_rows.total()  # the writer logged them, by table, as it closed
    if canary.stopped is not None:
        status = 128 + signal.Signals[canary.stopped]
    elif lost:
        status = ROWS_LOST
    else:
        status = 0 if graded else NOTHING_GRADED
    # Declared before the lines are shown, and said whether or not they could be: with the
    # reader of `| head` gone, their broken pipe ended the job as a success (found in re-review)
    cli_stdout.failing(status)
    try:
        show(canary, settings.backends, as_json)
    finally:
        if lost:
            typer.echo(
                f"error: the ledger did not take {lost} row(s) of this round: its results "
                f"are not recorded (exit status {ROWS_LOST} unless a signal ended it)",
                err=True,
            )
        if canary.stopped is not None:
            typer.echo(f"stopped by {canary.stopped}: unfinished cases are errors", err=True)
        elif not graded:
            typer.echo(
                f"no backend graded a case: nothing was measured (exit status {NOTHING_GRADED})",
                err=True,
            )
        if status:
            raise typer.Exit(status)


def writable_or_exit(path: str) -> None:
    """Exit 2 unless the ledger at `path` takes rows now: results it could never take, or
    could not take before the round exits, would be lost."""
    try:
        unwritable = location.prepare(path)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if unwritable is not None:  # `serve` starts on it (`router.ledger.unwritable`); not a round
        typer.echo(f"error: {not_now(unwritable)}", err=True)
        raise typer.Exit(2)


def not_now(unwritable: Unwritable) -> str:
    """Why a round does not start on a ledger the start could not write into (a read-only
    remount, a full disk). `serve` starts on one and holds its rows until writes work again
    (`router.ledger.unwritable`); a round exits within minutes, and its held rows are lost
    then: it started, spent every backend's calls (a paid cloud's too) and lost every result
    with exit 0 (found in review). Refused as before that change, with exit 2, saying so."""
    why = "is read-only now" if unwritable.read_only else "cannot be written now"
    return (
        f"ledger.path: {unwritable.path!r} {why} ({unwritable.doing}: {unwritable.error}): "
        "a canary round would ask every backend and lose its results at its exit, so none "
        "is run. Run it again once the ledger is writable"
    )


def _on_stderr(level: int, text: str, _fields: dict[str, Any]) -> None:
    """`router.sandbox_layers.say`'s lines as this command's others: on stderr, a warning
    after `warning: `. No log is configured here: logged, the info line would go nowhere
    (Python's last-resort handler prints warnings only)."""
    typer.echo(f"warning: {text}" if level >= logging.WARNING else text, err=True)


def show(canary: Canary, backends: Sequence[BackendSettings], as_json: bool) -> None:
    """Each backend's round, for a person or (`as_json`) for a script."""
    last = canary.status().get("last_run", {})
    ran = [backend for backend in backends if backend.name in last]
    if as_json:
        shown = [
            {
                **last[b.name],
                "at": iso_time(last[b.name]["ts"]),
                "error_details": dict(error_details(canary.last_results.get(b.name, []))),
            }
            for b in ran
        ]
        typer.echo(json.dumps(shown, indent=2))
        return
    for backend in ran:
        typer.echo(summary_line(last[backend.name]))
        for text, n in error_details(canary.last_results.get(backend.name, [])):
            typer.echo(f"  {n} × {text}")
