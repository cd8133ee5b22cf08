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

from evals import results
from evals.cli import app as evals_app
from evals.suite import SHIPPED, load
from router.eval_command import app as router_eval_app
from tests.harness import REPO, VENV_BIN, simulator

MATH = SHIPPED / "math" / "math.yaml"
ENTRY_POINTS = pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "evals", "run"], [str(VENV_BIN / "smf-router"), "eval", "run"]],
    ids=["evals", "router"],
)


def run_unread(command: list[str]) -> subprocess.CompletedProcess[str]:
    """`command` with its stdout a pipe whose reader is gone before the first line."""
    search = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]  # the code under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(search)}
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
    finally:
        os.close(write)


@ENTRY_POINTS
def test_a_run_whose_reader_went_away_writes_its_results(
    tmp_path: Path, command: list[str]
) -> None:
    """`eval run --out r.json | head` asked every case, then lost them all: the report was
    printed before the file was written, and its broken pipe ended the command, exit 0
    (found in re-review). The line before the run (the context window) did not stop it."""
    out = tmp_path / "r.json"
    with simulator(model="m") as server:
        args = ["--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        done = run_unread([*command, *args, "--no-progress", "--out", str(out)])
        asked = server.completions()
    assert (done.returncode, done.stderr) == (0, "")
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


@pytest.mark.parametrize("app", [evals_app, router_eval_app], ids=["evals", "router"])
def test_results_that_cannot_be_written_are_an_error_after_the_report(
    tmp_path: Path, app: Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is written before the report now: one that cannot be (a full disk) must not
    take the report with it, the only record of the run then."""

    def full(path: Path | str, document: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(results, "write", full)
    with simulator(model="m") as server:
        args = ["run", "--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        args += ["--no-progress", "--out", str(tmp_path / "r.json")]
        done = CliRunner().invoke(app, args)
    assert done.exit_code == 1
    assert isinstance(done.exception, OSError) and done.exception.errno == errno.ENOSPC
    assert "Per suite (pass rate" in done.output and "│ math " in done.output
