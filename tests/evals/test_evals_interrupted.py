"""`eval run` stopped before its end keeps the cases that finished: Ctrl-C (a real SIGINT to
a real `smf-router eval run`) and a bug of ours mid-run. Only the end used to be saved."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer import Typer
from typer.testing import CliRunner

from evals import results, runner
from evals.cli import app as evals_app
from evals.suite import load
from router.eval_command import app as router_eval_app
from tests.harness import REPO, VENV_BIN, Running, breaks_on_call, simulator, wait_until
from tests.processes import killed_if_left_running

APPS = pytest.mark.parametrize("app", [evals_app, router_eval_app], ids=["evals", "router"])
MATH = REPO / "evals" / "suites" / "math" / "math.yaml"


def flat(text: str) -> str:
    """Output without rich's line wrapping (a long path is cut across lines)."""
    return "".join(text.split())


def asked_and_held(server: Running, asked: int) -> bool:
    """`asked` cases were sent and the last of them is held: the ones before it finished."""
    stats = server.stats()
    return stats["held"] == 1 and stats["by_path"].get("/v1/chat/completions", 0) == asked


def finish_and_hold(server: Running, held: int, log: Path | None = None) -> None:
    """Let the `held - 1` cases before it through one at a time, then wait until case
    `held` is at the backend: a signal sent next finds exactly that many finished and one
    under way. `log`, the command's output, is shown if a case never comes."""
    for asked in range(1, held + 1):
        reached = wait_until(lambda: asked_and_held(server, asked), 30)  # noqa: B023
        assert reached, f"case {asked} never held" + (f": {log.read_text()}" if log else "")
        if asked < held:
            server.control("release", {})


ENTRY_POINTS = pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "evals", "run"], [str(VENV_BIN / "smf-router"), "eval", "run"]],
    ids=["evals", "router"],
)


@pytest.mark.parametrize(
    ("sent", "exit_status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["int", "term"]
)
@ENTRY_POINTS
def test_ctrl_c_saves_the_finished_cases_and_exits_130(
    tmp_path: Path, command: list[str], sent: signal.Signals, exit_status: int
) -> None:
    """Ctrl-C after two of eleven cases lost both: nothing was written until the end (found
    in review); so did SIGTERM (a job's deadline, `kill`), which still did after. Each
    request is held until released, one case at a time: two are let through, the third is
    at the backend when the signal comes."""
    cases = load(MATH)
    out, log = tmp_path / "r.json", tmp_path / "eval.log"
    search = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]  # the code under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(search)}
    with simulator(model="m") as server, log.open("wb") as sink:
        server.control("faults", {"fault": "hold"})
        command = [*command, "--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        command += ["--concurrency", "1"]
        command += ["--timeout", "60", "--no-progress", "--out", str(out)]
        with killed_if_left_running(
            subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
        ) as process:
            finish_and_hold(server, 3, log)
            process.send_signal(sent)
            status = process.wait(timeout=30)
    output = log.read_text()
    assert status == exit_status, output
    partial = tmp_path / "r.partial.json"
    assert f"partialresults:{partial}" in flat(output)
    assert "Traceback" not in output
    assert not out.exists()  # only a finished run is written to --out
    doc = results.read(partial)
    assert [(c["id"], c["status"]) for c in doc["cases"]] == [(c.id, "pass") for c in cases[:2]]
    assert doc["run"]["partial"] == {"stopped_by": sent.name, "not_run": len(cases) - 2}
    assert doc["summary"]["math"]["passed"] == 2
    report = CliRunner().invoke(evals_app, ["report", str(partial)])
    assert report.exit_code == 0
    assert f"partialrun(stoppedby{sent.name}):2casesfinished,{len(cases) - 2}notrun" in flat(
        report.output
    )


@APPS
def test_a_bug_mid_run_saves_the_finished_cases_then_raises(
    tmp_path: Path, app: Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug of ours on the third case ended the run with nothing written."""
    monkeypatch.setattr(runner, "gate", breaks_on_call(3, runner.gate))
    out = tmp_path / "r.json"
    with simulator(model="m") as server:
        args = ["run", "--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        args += ["--concurrency", "1", "--no-progress"]
        result = CliRunner().invoke(app, [*args, "--out", str(out)])
        monkeypatch.setattr(runner, "gate", breaks_on_call(1, runner.gate))
        unsaved = CliRunner().invoke(app, args)
    total = len(load(MATH))
    assert result.exit_code == 1, result.output
    stopped = f"the run stopped (ZeroDivisionError: a bug) with {total - 2} of {total} cases"
    assert str(result.exception) == f"{stopped} not finished"  # and its traceback goes on up
    doc = results.read(tmp_path / "r.partial.json")
    assert [c["status"] for c in doc["cases"]] == ["pass", "pass"]
    assert doc["run"]["partial"] == {"stopped_by": "ZeroDivisionError: a bug", "not_run": total - 2}
    assert f"partialresults:{tmp_path / 'r.partial.json'}" in flat(result.output)
    assert unsaved.exit_code == 1, unsaved.output
    assert "partialresultsnotsaved:no--out" in flat(unsaved.output)


@APPS
def test_a_partial_run_is_saved_beside_a_finished_one_never_over_it(
    tmp_path: Path, app: Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run stopped early wrote its few cases over the `--out` of an earlier finished run:
    that run was lost, and the partial file then passed as a canary baseline and as a
    `--compare` file without a word (found in review). It goes to `r.partial.json` now."""
    out, partial, total = tmp_path / "r.json", tmp_path / "r.partial.json", len(load(MATH))
    with simulator(model="m") as server:
        args = ["run", "--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        args += ["--concurrency", "1", "--no-progress"]
        finished = CliRunner().invoke(app, [*args, "--out", str(out)])
        assert finished.exit_code == 0, finished.output
        before = out.read_bytes()
        monkeypatch.setattr(runner, "gate", breaks_on_call(3, runner.gate))
        stopped = CliRunner().invoke(app, [*args, "--out", str(out)])
        monkeypatch.undo()
        compared = CliRunner().invoke(app, [*args, "--compare", str(partial)])
    assert stopped.exit_code == 1, stopped.output
    assert out.read_bytes() == before
    assert f"partialresults:{partial}(--out{out}iswrittenbyafinishedrunonly)" in flat(
        stopped.output
    )
    assert results.read(partial)["run"]["partial"]["not_run"] == total - 2
    note = f"comparedwithapartialrun(stoppedbyZeroDivisionError:abug):2casesfinished,{total - 2}"
    assert compared.exit_code == 0, compared.output
    assert note in flat(compared.output)
    reported = CliRunner().invoke(app, ["report", str(out), "--compare", str(partial)])
    assert reported.exit_code == 0, reported.output
    assert note in flat(reported.output)


@APPS
def test_a_finished_run_says_the_partial_file_beside_it_is_an_earlier_one(
    tmp_path: Path, app: Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`r.partial.json` of a run that stopped stayed beside the `r.json` of the finished run
    after it without a word: an older, smaller file under a name easy to take for this
    run's. It is kept (it may be the only measurement of that run: removing it lost one
    when the rerun graded nothing, found in review), and named."""
    out, partial = tmp_path / "r.json", tmp_path / "r.partial.json"
    with simulator(model="m") as server:
        args = ["run", "--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        args += ["--concurrency", "1", "--no-progress", "--out", str(out)]
        monkeypatch.setattr(runner, "gate", breaks_on_call(3, runner.gate))
        stopped = CliRunner().invoke(app, args)
        assert stopped.exit_code == 1 and partial.exists(), stopped.output
        kept = partial.read_bytes()
        monkeypatch.undo()
        finished = CliRunner().invoke(app, args)
    assert finished.exit_code == 0, finished.output
    assert partial.read_bytes() == kept
    assert f"note:{partial}isfromanearlierrunthatstopped,notthisone" in flat(finished.output)
    assert len(results.read(out)["cases"]) == len(load(MATH))


@pytest.mark.parametrize(
    ("sink", "said"),
    [("gone", ""), ("full", "error: cannot write to stdout: No space left on device\n")],
    ids=["gone", "full"],
)
@ENTRY_POINTS
def test_a_sigterm_under_a_reader_gone_saves_the_finished_cases_and_exits_143(
    tmp_path: Path, command: list[str], sink: str, said: str
) -> None:
    """The partial report was printed before its file was written: with the reader of
    `| head` gone, its broken pipe ended the command, no file and exit 0 (found in
    re-review); so did the progress bar's last frame, printed to stdout as it closed, and
    on a full disk the 143 came without a word (found in a later review). Two cases
    finish, the third is held when the SIGTERM comes."""
    search = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]  # the code under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(search)}
    out = tmp_path / "r.json"
    if sink == "full":
        write = os.open("/dev/full", os.O_WRONLY)
    else:
        read, write = os.pipe()
        os.close(read)  # gone before the first line (the context window's)
    with simulator(model="m") as server:
        server.control("faults", {"fault": "hold"})
        command = [*command, "--endpoint", server.url, "--model", "m", "--suites", str(MATH)]
        command += ["--concurrency", "1", "--timeout", "60", "--out", str(out)]  # with the bar
        pipe = subprocess.PIPE
        with killed_if_left_running(
            subprocess.Popen(command, stdout=write, stderr=pipe, text=True, env=env)
        ) as process:
            os.close(write)
            finish_and_hold(server, 3)
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=30)
    assert process.returncode == 143, stderr
    lines = stderr.splitlines(keepends=True)
    assert "".join(line for line in lines if not line.startswith("cases ")) == said, stderr
    doc = results.read(tmp_path / "r.partial.json")
    assert [c["status"] for c in doc["cases"]] == ["pass", "pass"]


@pytest.mark.parametrize(
    ("sent", "exit_status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["int", "term"]
)
def test_a_partial_file_that_cannot_be_written_keeps_the_signals_status(
    tmp_path: Path, sent: signal.Signals, exit_status: int
) -> None:
    """The partial file not written (its temporary name a directory), a Ctrl-C or SIGTERM
    exited 1 after a traceback of ~230 lines (found in review): one line on stderr, the
    report, and the signal's status. The progress bar is drawn (on stderr) meanwhile."""
    search = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]  # the code under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(search)}
    partial = tmp_path / "r.partial.json"
    (tmp_path / "r.partial.json.tmp").mkdir()
    with simulator(model="m") as server:
        server.control("faults", {"fault": "hold"})
        command = [sys.executable, "-m", "evals", "run", "--endpoint", server.url]
        command += ["--model", "m", "--suites", str(MATH), "--concurrency", "1"]
        command += ["--timeout", "60", "--out", str(tmp_path / "r.json")]
        pipe = subprocess.PIPE
        with killed_if_left_running(
            subprocess.Popen(command, stdout=pipe, stderr=pipe, text=True, env=env)
        ) as process:
            finish_and_hold(server, 1)
            process.send_signal(sent)
            stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == exit_status, stderr
    assert stderr.endswith(f"error: cannot write {partial}: Is a directory\n"), stderr
    assert "Traceback" not in stderr and "Per suite (pass rate" in stdout
    assert not partial.exists()
