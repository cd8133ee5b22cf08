"""How `eval run` ends (either entry point's, `python -m evals` and `smf-router eval`): its
results file, its report, the comparison with an older run, and its exit status; and a run
that stopped early, saved beside `--out`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from evals import cli_stdout, report, results

NOTHING_GRADED = 3
"""``eval run``'s exit status when no case was graded (every case errored or was N/A)."""


def graded_nothing(doc: dict[str, Any]) -> bool:
    """Whether the run graded no case: every one errored or was N/A."""
    statuses = Counter(c["status"] for c in doc["cases"])
    return not statuses["pass"] + statuses["fail"]


def exit_if_nothing_graded(console: Console, doc: dict[str, Any]) -> None:
    """End with ``NOTHING_GRADED`` when the run graded no case (an endpoint that was down
    errs every case): the report and ``--out`` file are there, but a script must not take
    the run for a measurement."""
    statuses = Counter(c["status"] for c in doc["cases"])
    if statuses["pass"] + statuses["fail"]:
        return
    console.print(
        f"no case was graded: {statuses['error']} errors, {statuses['n/a']} n/a"
        f" of {len(doc['cases'])} cases (exit status {NOTHING_GRADED})"
    )
    raise typer.Exit(NOTHING_GRADED)


def finish(
    console: Console, doc: dict[str, Any], out: Path | None, old: dict[str, Any] | None
) -> None:
    """A finished run (`eval run`'s, either entry point's): ``out`` written, then the report,
    the comparison with ``old`` and the exit status. The file first, and the status
    declared before printing: with the reader of ``| head`` gone, the report's broken pipe
    ended the command, without the file of a run that may have taken hours and with exit 0
    for one that graded nothing (found in re-review). A file that cannot be written is
    said first and ends the command with exit 1, after the report: the run's only record
    then."""
    nothing = graded_nothing(doc)
    if nothing:
        cli_stdout.failing(NOTHING_GRADED)
    # nothing measured (3) says more than a file not written (1): 1 hid it (found in review)
    written = write_first(doc, out, NOTHING_GRADED if nothing else 1) if out else True
    report.print_report(doc, console)
    if out and written:
        said_saved(console, out)
    if old is not None:
        print_compare(console, old, doc)
    if not written and not nothing:
        raise typer.Exit(1)
    exit_if_nothing_graded(console, doc)


def write_first(doc: dict[str, Any], path: Path, status: int = 1) -> bool:
    """Write a run's results before its report is printed; False, after one `error:` line
    on stderr and ``status`` declared, when they cannot be written (a full disk). That was
    a traceback of ~90 lines (of ~230 after a signal, whose 130 or 143 it made 1), or
    nothing at all on stderr with the reader of ``| true`` gone (found in review)."""
    try:
        results.write(path, doc)
    except OSError as exc:
        cli_stdout.failing(status)
        typer.echo(f"error: cannot write {path}: {exc.strerror or exc}", err=True)
        return False
    return True


def said_saved(console: Console, out: Path) -> None:
    """Say where a finished run was written, and when the partial file of an earlier run
    that stopped is beside it: it is older than ``out`` now, and easy to take for this
    run's. It is left where it is: it may be the only measurement of that earlier run, or
    the ``--compare`` file of this one."""
    console.print(f"results: {out}")
    earlier = results.partial_path(out)
    if earlier.is_file():
        console.print(f"note: {earlier} is from an earlier run that stopped, not this one")


def keep_partial(console: Console, doc: dict[str, Any], out: Path | None, status: int = 1) -> None:
    """Report and save the finished cases of a run that stopped early, saying so: beside
    ``out``, not over it (a finished run saved there before was lost to a Ctrl-C). The
    file is written before anything is printed, as a finished run's (``finish``); one that
    cannot be written keeps the run's ``status`` (a signal's 130 or 143)."""
    path = results.partial_path(out) if out is not None else None
    written = path is not None and write_first(doc, path, status)
    report.print_report(doc, console)
    note_partial(console, doc)
    if path is None:
        console.print("partial results not saved: no --out")
    elif written:
        console.print(f"partial results: {path} (--out {out} is written by a finished run only)")


def note_partial(console: Console, doc: dict[str, Any], whose: str = "") -> None:
    """A line saying that a results document is partial, and why, for its reports."""
    note = results.partial_note(doc)
    if note is not None:
        console.print(f"{whose}{note}")


def print_compare(console: Console, old: dict[str, Any], new: dict[str, Any]) -> None:
    """The pass-rate deltas and changed cases between an older run and this one (and
    whether the older one is partial: its cases not run show as absent)."""
    note_partial(console, old, "compared with a ")
    changes = report.compare(results.results_of(old), results.results_of(new))
    console.print(report.compare_table(changes, old, new))
