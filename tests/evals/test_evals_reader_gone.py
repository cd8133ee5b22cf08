"""`eval run` whose reader went away (`| head`, `| true`): its results file and its exit
status are what a script runs it for, and the broken pipe of its report took both."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer import Typer
from typer.testing import CliRunner

from evals import cli as evals_cli
from evals import results, runner
from evals.cli import app as evals_app
from evals.suite import SHIPPED, load
from router.eval_command import app as router_eval_app
from tests.harness import REPO, VENV_BIN, breaks_on_call, simulator, wait_until

MATH = SHIPPED / "math" / "math.yaml"
ENTRY_POINTS = pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "evals", "run"], [str(VENV_BIN / "smf-router"), "eval", "run"]],
    ids=["evals", "router"],
)


def run_unread(command: list[str], sink: str = "gone") -> subprocess.CompletedProcess[str]:
    """`command` with a stdout it cannot write: a pipe whose reader is gone before the first
    line (`sink` "gone"), stderr too ("both", `2>&1 | head`), or a full disk ("full",
    `>/dev/full`)."""
    search = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]  # the code under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(search)}
    if sink == "full":
        read, write = -1, os.open("/dev/full", os.O_WRONLY)
    else:
        read, write = os.pipe()
        os.close(read)
    try:
        return subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            stdout=write,
            stderr=subprocess.STDOUT if sink == "both" else subprocess.PIPE,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
    finally:
        os.close(write)


SINKS = pytest.mark.parametrize(
    ("sink", "status", "said"),
    [
        ("gone", 0, ""),
        ("both", 0, ""),
        ("full", 1, "error: cannot write to stdout: No space left on device\n"),
    ],
    ids=["gone", "both", "full"],
)


@SINKS
@ENTRY_POINTS
def test_a_run_whose_reader_went_away_writes_its_results(
    tmp_path: Path, command: list[str], sink: str, status: int, said: str
) -> None:
    """`eval run --out r.json | head` asked every case, then lost them all: the report was
    printed before the file was written, and its broken pipe ended the command, exit 0
    (found in re-review). The line before the run (the context window) did not stop it, nor
    does the progress bar: its last frame was printed to stdout when it closed, before the
    file was written, and ended the command there (`>/dev/full`: exit 1, no file; found in
    a later review). It is drawn on stderr, where it cannot end the run either."""
    out = tmp_path / "r.json"
    with simulator(model="m") as server:
        args = ["--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        done = run_unread([*command, *args, "--out", str(out)], sink)  # the progress bar too
        asked = server.completions()
    assert done.returncode == status, done.stderr
    assert (done.stderr or "").endswith(said) and "Traceback" not in (done.stderr or "")
    assert asked == len(load(MATH))
    assert {c["status"] for c in results.read(out)["cases"]} == {"pass"}


@ENTRY_POINTS
def test_a_run_that_graded_nothing_exits_3_when_its_reader_went_away(
    tmp_path: Path, command: list[str]
) -> None:
    """An endpoint that was down, `| true`: exit 0, where the same run read to the end
    exits 3 (found in re-review). `--context-window` prints a line before the run."""
    with simulator(model="m") as server:
        down = server.url
    out = tmp_path / "r.json"
    args = ["--endpoint", down, "--model", "m", "--suites", str(MATH), "--timeout", "5"]
    done = run_unread([*command, *args, "--context-window", "4096", "--out", str(out)])
    assert done.returncode == 3, done.stderr
    assert {c["status"] for c in results.read(out)["cases"]} == {"error"}


@pytest.mark.parametrize("saved", [False, True], ids=["no-out", "out"])
def test_a_run_without_out_stops_once_its_reader_has_gone(tmp_path: Path, saved: bool) -> None:
    """`eval run | head -1`: once the reader had its line and went, the run went on asking
    every case (minutes with a real backend) for a report no one would read and an exit
    status of 0 (found in review). Without `--out` it stops now: no case is asked after,
    no traceback, exit 0 as any command whose reader went away. With `--out` the file is
    its output: it runs to the end and writes it."""
    search = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(search)}
    out = tmp_path / "r.json"
    cases = len(load(MATH))
    with simulator(model="m", ttft_s=1.0) as server:  # each case a second: ~11 s in all
        args = ["--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        args += ["--concurrency", "1", "--context-window", "32768"]  # a line before the run
        args += ["--out", str(out)] if saved else []
        read, write = os.pipe()
        command = [str(VENV_BIN / "smf-router"), "eval", "run", *args]
        pipe = subprocess.PIPE
        job = subprocess.Popen(command, stdout=write, stderr=pipe, text=True, env=env)
        os.close(write)
        try:
            with os.fdopen(read, "rb") as reader:
                assert reader.readline().startswith(b"context window: ")  # `head -1`'s line
                assert wait_until(lambda: server.completions() >= 2, 30)  # the run under way
            asked_then = server.completions()
            _, err = job.communicate(timeout=60)
            asked = server.completions()
        finally:
            job.kill()
    assert job.returncode == 0, err
    assert "Traceback" not in err
    if saved:
        assert asked == cases and {c["status"] for c in results.read(out)["cases"]} == {"pass"}
    else:  # the case under way at most, and one started before the next look (`POLL_S`)
        assert asked <= asked_then + 1 < cases, (asked_then, asked)
        assert not out.exists()


@pytest.mark.parametrize(
    ("sink", "status", "said"),
    [
        ("gone", 0, ""),
        ("full", 1, "error: cannot write to stdout: No space left on device\n"),
        ("closed", 1, "error: cannot write to stdout: Bad file descriptor\n"),
    ],
)
def test_a_run_without_out_whose_stdout_failed_asks_no_case(
    sink: str, status: int, said: str
) -> None:
    """`| true`, `>/dev/full`, `>&-` without `--out`: the line before the run could not be
    written (or nothing ever could), and every case was asked anyway, for an exit status
    only. None is now; the command ends as any whose stdout failed."""
    command = [str(VENV_BIN / "smf-router"), "eval", "run"]
    if sink == "closed":  # `>&-`: the process starts with no fd 1
        command, sink = ["sh", "-c", 'exec "$@" >&-', "sh", *command], "gone"
    with simulator(model="m") as server:
        args = ["--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        done = run_unread([*command, *args, "--context-window", "32768"], sink)
        asked = server.completions()
    assert (done.returncode, asked) == (status, 0), done.stderr
    assert done.stderr.endswith(said) and "Traceback" not in done.stderr


APPS = pytest.mark.parametrize("app", [evals_app, router_eval_app], ids=["evals", "router"])


def test_the_progress_bar_on_an_ascii_stderr_is_ascii(tmp_path: Path) -> None:
    """On stderr the bar took UTF-8 whatever its encoding: on an ASCII one, 40 `\\u2501`
    escapes, wrapping over four lines of a terminal (found in review)."""
    search = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(search), "PYTHONIOENCODING": "ascii"}
    with simulator(model="m") as server:
        args = ["--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        done = subprocess.run(
            [sys.executable, "-m", "evals", "run", *args, "--out", str(tmp_path / "r.json")],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert "cases" in done.stderr and "\\u2501" not in done.stderr


def full(path: Path | str, document: object) -> None:
    """`results.write` on a full disk."""
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@APPS
def test_results_that_cannot_be_written_are_an_error_after_the_report(
    tmp_path: Path, app: Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is written before the report now: one that cannot be (a full disk) must not
    take the report with it, the only record of the run then. It was a traceback of ~90
    lines, and nothing at all on stderr under `| true` (found in review): one line now."""
    monkeypatch.setattr(results, "write", full)
    out = tmp_path / "r.json"
    with simulator(model="m") as server:
        args = ["run", "--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        done = CliRunner().invoke(app, [*args, "--no-progress", "--out", str(out)])
    assert done.exit_code == 1, done.output
    assert not isinstance(done.exception, OSError)
    assert done.stderr == f"error: cannot write {out}: No space left on device\n"
    assert "Per suite (pass rate" in done.stdout and "│ math " in done.stdout
    assert "results:" not in done.stdout  # it was not saved


@APPS
def test_a_run_that_graded_nothing_exits_3_though_its_results_cannot_be_written(
    tmp_path: Path, app: Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing measured (3) says more than a file not written (1): the 1 hid it, and the
    "no case was graded" line with it (found in review)."""
    monkeypatch.setattr(results, "write", full)
    with simulator(model="m") as server:
        down = server.url
    args = ["run", "--endpoint", down, "--model", "m", "--suites", str(MATH), "--timeout", "5"]
    done = CliRunner().invoke(app, [*args, "--no-progress", "--out", str(tmp_path / "r.json")])
    assert done.exit_code == 3, done.output
    assert done.stderr.startswith("error: cannot write ")
    assert "no case was graded" in done.stdout


@APPS
def test_a_partial_run_of_a_bug_that_cannot_be_written_says_so(
    tmp_path: Path, app: Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its partial file not written, a run stopped early was a traceback of the write's
    error (found in review): one line and the report now, and the bug's own traceback still
    goes up (a signal's status: `test_evals_interrupted`)."""
    monkeypatch.setattr(runner, "gate", breaks_on_call(3, runner.gate))
    monkeypatch.setattr(results, "write", full)
    partial = tmp_path / "r.partial.json"
    with simulator(model="m") as server:
        args = ["run", "--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        args += ["--concurrency", "1", "--no-progress", "--out", str(tmp_path / "r.json")]
        done = CliRunner().invoke(app, args)
    assert done.exit_code == 1, done.output
    assert isinstance(done.exception, evals_cli.Interrupted)
    assert done.stderr == f"error: cannot write {partial}: No space left on device\n"
    assert "Per suite (pass rate" in done.stdout and "partial results:" not in done.stdout
