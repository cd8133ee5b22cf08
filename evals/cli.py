"""The eval CLI: ``python -m evals run ...`` (mounted by the router as ``smf-router eval``)."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import math
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, TextIO, cast

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from evals import cli_stdout, report, results
from evals.applicability import Capabilities
from evals.cli_finish import finish, keep_partial, note_partial, print_compare
from evals.endpoint import Endpoint, said, served_context_window
from evals.graders import GRADER_RULES
from evals.redaction import Secrets
from evals.runner import run_cases
from evals.suite import (
    PROFILES,
    SHIPPED,
    Case,
    load,
    load_profile,
    load_warnings,
    published_count,
)
from evals.urls import check_url, masked_url

app = typer.Typer(
    help="Run smf-bench-format eval suites against an OpenAI-compatible endpoint.",
    no_args_is_help=True,
)

THINKING = {"off": False, "on": True, "omit": None}
INTERRUPTED = 130
"""``run``'s exit status after Ctrl-C (SIGINT), as a shell's: the finished cases are saved."""
TERMINATED = 143
"""``run``'s exit status after SIGTERM (a job's deadline, ``kill``): saved the same way."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is, so that it stops as Ctrl-C stops it: killed, it lost
    every finished case (found in review)."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


CONTEXT_WINDOW_HELP = "Prompt + answer tokens the model takes (default: the endpoint's models card)"


def select_cases(suites: Path, profile: str | None) -> list[Case]:
    """A published profile under an smf-bench checkout, or every case under ``suites``;
    a path that does not load is the option's error, not a traceback. A case that loads
    but must not run as written (N/A: ``evals.suite_flaws``), or runs but likely not as
    meant (``evals.suite_notes``), is warned of on stderr. An unknown profile is the
    ``--profile``'s error: it was said as ``--suites``'s, an option not given (found in
    review)."""
    if profile and profile not in PROFILES:
        raise typer.BadParameter(
            f"--profile: unknown profile {profile!r}; known: {sorted(PROFILES)}"
        )
    try:
        cases = load_profile(suites, profile) if profile else load(suites)
    except (OSError, ValueError) as exc:  # SuiteError is a ValueError
        raise typer.BadParameter(
            f"--suites: {exc or f'no such file or directory: {suites}'}"
        ) from None
    for warning in load_warnings(cases):
        typer.echo(f"warning: {warning}", err=True)
    return cases


def endpoint_url(url: str) -> str:
    """``--endpoint`` as a base URL requests can go to: a port out of range or a broken
    ``[host]`` ended the run in a traceback, a URL without a scheme went nowhere."""
    try:
        return check_url(url)
    except ValueError as exc:
        raise typer.BadParameter(f"--endpoint: {exc}") from None


def endpoint_of(url: str, model: str, key: str | None) -> Endpoint:
    """``--endpoint``, ``--model`` and the key in ``--api-key-env`` as the endpoint to ask,
    its error texts cleaned of the key (``Endpoint.secrets``)."""
    return Endpoint(endpoint_url(url), model, api_key=key, secrets=Secrets([key]))


def request_timeout(seconds: float) -> float:
    """``--timeout`` as seconds a request may take: ``nan`` ended the run in a traceback,
    0 or less made every case an error (no reply within 0s)."""
    if not math.isfinite(seconds) or seconds <= 0:
        raise typer.BadParameter(f"--timeout must be a positive number of seconds, got {seconds}")
    return seconds


def read_results(path: Path) -> dict[str, Any]:
    """A saved results document to report or compare with; one that does not read is the
    argument's error (exit 2), not a traceback. Its summary is recomputed from its cases
    (files written before ``error_kinds`` counted request timeouts among failure modes)."""
    try:
        doc = results.read(path)
    except results.ResultsError as exc:
        raise typer.BadParameter(str(exc)) from None
    return {**doc, "summary": results.summarize(results.results_of(doc))}


def check_outputs(out: Path | None, compare: Path | None) -> dict[str, Any] | None:
    """Before a run that may take hours: ``--out`` has a directory to go to, and the
    ``--compare`` file reads (it is returned, for the comparison after the run)."""
    if out is not None:
        if not out.parent.is_dir():
            raise typer.BadParameter(f"--out: no directory {out.parent}")
        if out.is_dir():
            raise typer.BadParameter(f"--out: {out} is a directory; name the file to write")
        if results.not_a_file(out):
            raise typer.BadParameter(f"--out: {out} is not a regular file")
        if not os.access(out.parent, os.W_OK):
            raise typer.BadParameter(f"--out: cannot write in {out.parent}")
    return read_results(compare) if compare is not None else None


def before_run(console: Console, line: str) -> None:
    """A line printed before the run. One that cannot be written (the reader of `| true`
    gone at once) does not stop it: it ended there with exit 0, no case asked and no file
    written (found in re-review). The run is for its file and exit status; the error is
    the command's at its end (`cli_stdout.run`)."""
    try:
        console.print(line)
    except (OSError, SystemExit):  # rich exits 1 at a broken pipe (/dev/null on fd 1 then)
        if not cli_stdout.write_failed():
            raise


class Interrupted(Exception):
    """The run stopped before every case finished (Ctrl-C, or a bug of ours: the cause);
    ``document`` holds the cases that did, its run block saying so under ``partial``."""

    def __init__(self, document: dict[str, Any]) -> None:
        partial = document["run"]["partial"]
        super().__init__(
            f"the run stopped ({partial['stopped_by']}) with {partial['not_run']} of"
            f" {partial['not_run'] + len(document['cases'])} cases not finished"
        )
        self.document = document


def run_document(
    cases: Sequence[Case],
    endpoint: Endpoint,
    *,
    concurrency: int,
    timeout_s: float,
    thinking: str,
    profile: str | None,
    context_window: int | None = None,
    on_result: Callable[[results.CaseResult], None] | None = None,
    backend: str | None = None,
    while_writable: bool = False,
) -> dict[str, Any]:
    """Run the cases and build the results document (the run block holds no secrets;
    ``backend`` names the router's configured backend the endpoint is, when it is one).
    ``while_writable``: stop once stdout can take no more output (a run with nothing else
    to write to: ``cli_stdout.unless_unwritable``).

    Cases are kept as they finish: when the run stops early, ``Interrupted`` carries the
    document of those (in the order of ``cases``); the others are counted, not listed."""
    run: dict[str, Any] = {
        "started_at": dt.datetime.now(dt.UTC).isoformat(),
        "finished_at": None,
        "endpoint": masked_url(endpoint.base_url),  # a password or key in it stays out
        "model": endpoint.model,
        "profile": profile,
        "thinking": thinking,
        "concurrency": concurrency,
        "timeout_s": timeout_s,
        "context_window": context_window,
        "grader_rules": GRADER_RULES,
    }
    if backend is not None:
        run["backend"] = backend
    finished: list[results.CaseResult] = []

    def keep(result: results.CaseResult) -> None:
        finished.append(result)
        if on_result is not None:
            on_result(result)

    main = threading.current_thread() is threading.main_thread()  # where signals are set
    previous = signal.signal(signal.SIGTERM, _terminate) if main else None
    try:
        work = run_cases(
            cases,
            endpoint,
            concurrency,
            timeout_s,
            thinking=THINKING[thinking],
            capabilities=Capabilities(context_window=context_window),
            on_result=keep,
        )
        outcome = asyncio.run(cli_stdout.unless_unwritable(work) if while_writable else work)
    except (KeyboardInterrupt, Exception) as exc:
        run["finished_at"] = dt.datetime.now(dt.UTC).isoformat()
        run["partial"] = {
            "stopped_by": stopped_by(exc, endpoint),
            "not_run": len(cases) - len(finished),
        }
        order = {(c.suite, c.id): i for i, c in enumerate(cases)}
        done = sorted(finished, key=lambda r: order.get((r.suite, r.id), len(cases)))
        raise Interrupted(results.to_document(done, run)) from exc
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
    run["finished_at"] = dt.datetime.now(dt.UTC).isoformat()
    return results.to_document(outcome, run)


def stopped_by(exc: BaseException, endpoint: Endpoint) -> str:
    """What ended a run early: ``SIGINT``, or the error (the one inside a task group's),
    cleaned as an upstream's words (``evals.endpoint.said``): an error's text may quote the
    endpoint's URL or reply."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, Terminated):
        return "SIGTERM"
    if isinstance(exc, KeyboardInterrupt):
        return "SIGINT"
    return said(endpoint, f"{type(exc).__name__}: {exc}", 200)


@app.command()
def run(
    endpoint: Annotated[str, typer.Option(help="Base URL, e.g. http://spark:8888/v1")],
    model: Annotated[str, typer.Option(help="Model name to send")],
    suites: Annotated[Path, typer.Option(help="Suite file or directory")] = SHIPPED,
    profile: Annotated[str | None, typer.Option(help="Published profile, e.g. strict_v01")] = None,
    thinking: Annotated[str, typer.Option(help="off | on | omit (send no switch)")] = "off",
    concurrency: Annotated[int, typer.Option(min=1, max=256)] = 8,
    timeout: Annotated[float, typer.Option(help="Seconds per request")] = 300.0,
    api_key_env: Annotated[
        str, typer.Option(help="Env var holding the API key")
    ] = "OPENAI_API_KEY",
    out: Annotated[Path | None, typer.Option(help="Write results JSON here")] = None,
    compare: Annotated[Path | None, typer.Option(help="Older results JSON to diff")] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar (on stderr)")] = True,
    context_window: Annotated[int | None, typer.Option(min=1, help=CONTEXT_WINDOW_HELP)] = None,
) -> None:
    """Run suites against an endpoint, print the multi-metric report, optionally save/compare."""
    if thinking not in THINKING:
        raise typer.BadParameter(f"--thinking must be one of {sorted(THINKING)}")
    target = endpoint_of(endpoint, model, os.environ.get(api_key_env))
    timeout = request_timeout(timeout)
    console = Console()
    cases = select_cases(suites, profile)
    old = check_outputs(out, compare)
    if profile and len(cases) != published_count(profile):
        before_run(
            console,
            f"note: {len(cases)} cases, the published {profile} has {published_count(profile)}",
        )
    options: dict[str, Any] = dict(
        concurrency=concurrency, timeout_s=timeout, thinking=thinking, profile=profile
    )
    doc = measure(console, cases, target, progress, context_window, out=out, **options)
    finish(console, doc, out, old)


def measure(
    console: Console,
    cases: Sequence[Case],
    target: Endpoint,
    progress: bool,
    context_window: int | None,
    out: Path | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Run the cases (with a progress bar on stderr, if asked) against ``target``, whose
    context window is the one given, else the one its models card states, else unknown.

    A run that stops early (Ctrl-C, a bug) keeps what finished: its report is printed and
    its partial document written beside ``out`` (``--out``), as ``results.partial_path``;
    then Ctrl-C exits ``INTERRUPTED`` and a bug goes on up. Only the end was saved: a
    Ctrl-C lost every finished case. Without ``out``, stdout is the run's only output: once
    it can take no more, the run stops (no case is asked after) and ends as any command
    whose stdout failed (``cli_stdout.run``: a reader gone is exit 0)."""
    window = context_window or served_context_window(target)
    if window:
        before_run(console, f"context window: {window} tokens (answers longer than fit are cut)")
    options["while_writable"] = out is None
    try:
        if not progress:
            return run_document(cases, target, context_window=window, **options)
        with _progress() as bar:
            task = bar.add_task("cases", total=len(cases))
            return run_document(
                cases,
                target,
                context_window=window,
                on_result=lambda _: bar.advance(task),
                **options,
            )
    except Interrupted as stop:
        if isinstance(stop.__cause__, cli_stdout.Unwritable):
            keep_partial(console, stop.document, out)  # its write fails: `cli_stdout.run` ends
            raise typer.Exit(1) from None  # a stdout that took it after all: a partial run
        signalled = signal_status(stop.__cause__)  # None: a bug, whose traceback goes on up
        cli_stdout.failing(signalled or 1)  # before printing, as a finished run's (`finish`)
        keep_partial(console, stop.document, out, signalled or 1)
        if signalled is not None:
            raise typer.Exit(signalled) from None
        raise


def signal_status(cause: BaseException | None) -> int | None:
    """The exit status of a run a signal stopped (SIGTERM, Ctrl-C); None for any other stop."""
    if isinstance(cause, Terminated):
        return TERMINATED
    if isinstance(cause, KeyboardInterrupt):
        return INTERRUPTED
    return None


@app.command("report")
def report_command(
    path: Annotated[Path, typer.Argument(help="Results JSON")],
    compare: Annotated[Path | None, typer.Option(help="Older results JSON to diff")] = None,
) -> None:
    """Print the report of a saved run (and its differences from an older one)."""
    console = Console()
    doc = read_results(path)
    old = read_results(compare) if compare else None
    report.print_report(doc, console)
    note_partial(console, doc)
    if old is not None:
        print_compare(console, old, doc)


def _progress() -> Progress:
    """The progress bar, drawn on stderr: on stdout, its last frame was printed as it closed,
    before the results file was written, and a stdout that could not take it (`| head`,
    `>/dev/full`) ended the run there, without its file (found in review)."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=cast(TextIO, Aside(sys.stderr))),  # rich takes any such object
    )


class Aside(io.TextIOBase):
    """stderr for the progress bar, dropping what it cannot write: a bar is no output of the
    run's, and one that could not be drawn (`2>&1 | head`, `2>/dev/full`) must not end a run
    that may have taken hours (rich exits 1 at a broken pipe, after putting /dev/null on
    file descriptor 1). The stream is the one of before the bar: on a terminal, rich puts
    one over `sys.stderr` that prints to the bar's console, this, and so to itself."""

    def __init__(self, stream: TextIO | None) -> None:
        super().__init__()
        self.stream = stream  # None: the process started with stderr closed
        self.broken = False

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        """The wrapped stream's: without it rich took UTF-8 on an ASCII stderr and drew the
        bar as `\u2501` escapes, wrapping over four lines of a terminal (found in review)."""
        return getattr(self.stream, "encoding", None) or "utf-8"

    def isatty(self) -> bool:
        return self.stream is not None and self.stream.isatty()

    def write(self, text: str) -> int:
        if not self.broken and self.stream is not None:
            try:
                self.stream.write(text)
            except (OSError, ValueError):  # ValueError: stderr closed by now
                self.broken = True
        return len(text)

    def flush(self) -> None:
        if not self.broken and self.stream is not None:
            try:
                self.stream.flush()
            except (OSError, ValueError):
                self.broken = True
