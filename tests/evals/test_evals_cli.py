"""The eval CLIs (`python -m evals` and `smf-router eval`): a run that writes its results and
compares them, and files and endpoints that go wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer import Typer
from typer.testing import CliRunner

from evals import results
from evals.cli import app as evals_app
from evals.results import CaseResult, to_document
from evals.suite import SHIPPED, Case, load
from router.eval_command import app as router_eval_app
from tests.evals.shipped_cases import pick
from tests.harness import REPO, VENV_BIN, simulator
from tests.processes import on_terminal

APPS = pytest.mark.parametrize("app", [evals_app, router_eval_app], ids=["evals", "router"])
MATH = str(SHIPPED / "math" / "math.yaml")


def flat(result: Result) -> str:
    """The output without rich's box and line wrapping."""
    return "".join(result.output.replace("│", "").split())


def bad_results_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "missing": tmp_path / "typo.json",
        "not JSON": tmp_path / "notjson.json",
        "another schema": tmp_path / "other.json",
        "broken cases": tmp_path / "cases.json",
    }
    files["not JSON"].write_text("{results: yes")
    files["another schema"].write_text('{"schema": "x"}')
    files["broken cases"].write_text(json.dumps({"schema": results.SCHEMA, "cases": [{"id": 1}]}))
    return files


@APPS
def test_report_of_a_file_that_is_not_a_results_file_names_it(tmp_path: Path, app: Typer) -> None:
    """`eval report` on a missing, non-JSON or wrong-schema file ended in a traceback
    (found in review)."""
    good = tmp_path / "good.json"
    results.write(good, to_document([CaseResult("c1", "math", "easy", "pass")], {}))
    expected = {
        "missing": "typo.json:nosuchfile",
        "not JSON": "notjson.json:notJSON",
        "another schema": "other.json:notasmf-evals-results/1file(schema='x')",
        "broken cases": "cases.json:'cases'mustbealistofresultswithid,suite,difficulty,status",
    }
    for what, path in bad_results_files(tmp_path).items():
        for args in (["report", str(path)], ["report", str(good), "--compare", str(path)]):
            out = CliRunner().invoke(app, args)
            assert out.exit_code == 2, (what, out.output)
            assert isinstance(out.exception, SystemExit), (what, out.exception)
            assert expected[what] in flat(out), (what, out.output)
    assert CliRunner().invoke(app, ["report", str(good)]).exit_code == 0


@APPS
def test_run_checks_compare_and_out_before_asking_anything(tmp_path: Path, app: Typer) -> None:
    """`eval run --compare typo.json` failed only after the whole run (found in review)."""
    with simulator(model="m") as server:
        base = ["run", "--endpoint", server.url, "--model", "m", "--no-progress"]
        base += ["--suites", MATH]
        typo = CliRunner().invoke(app, [*base, "--compare", str(tmp_path / "typo.json")])
        nowhere = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "no" / "r.json")])
        folder = CliRunner().invoke(app, [*base, "--out", str(tmp_path)])  # an hour, then lost
        device = tmp_path / "stdout"  # `--out /dev/stdout`: as root, the rename replaced it
        device.symlink_to("/dev/null")
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        refused = [CliRunner().invoke(app, [*base, "--out", str(path)]) for path in (device, fifo)]
        asked = server.stats()["requests"]
    assert (typo.exit_code, nowhere.exit_code, folder.exit_code) == (2, 2, 2), folder.output
    assert "typo.json:nosuchfile" in flat(typo)
    assert f"--out:nodirectory{tmp_path / 'no'}".replace(" ", "") in flat(nowhere)
    assert "isadirectory" in flat(folder)
    for path, done in zip((device, fifo), refused, strict=True):
        assert done.exit_code == 2, done.output
        assert f"--out:{path}isnotaregularfile" in flat(done)
    assert device.is_symlink() and Path("/dev/null").is_char_device()
    assert asked == 0


def test_results_are_never_written_over_what_is_no_regular_file(tmp_path: Path) -> None:
    """The rename of the atomic write replaced a device or a fifo with the file (found in
    review): the partial file of a run, beside `--out`, is checked only as it is written."""
    fifo = tmp_path / "r.partial.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        results.write(fifo, {"schema": results.SCHEMA, "cases": []})
    assert fifo.is_fifo() and not (tmp_path / "r.partial.json.tmp").exists()


@APPS
def test_run_that_graded_nothing_exits_non_zero(tmp_path: Path, app: Typer) -> None:
    """With the endpoint down every case errored and `eval run` still exited 0 (found in
    review): a script could not tell a measurement from nothing. The results are written."""
    with simulator(model="m") as server:
        down = server.url
    out = tmp_path / "down.json"
    args = ["run", "--endpoint", down, "--model", "m", "--no-progress", "--timeout", "5"]
    result = CliRunner().invoke(app, [*args, "--suites", MATH, "--out", str(out)])
    assert result.exit_code == 3, result.output
    assert "no case was graded" in result.output
    assert {c["status"] for c in results.read(out)["cases"]} == {"error"}

    image = tmp_path / "image.yaml"
    image.write_text(
        "- {id: i, prompt: look, evaluator: text_match, expected: cat,"
        " requires_modalities: [image_in]}\n"
    )
    with simulator(model="m") as server:
        only_na = CliRunner().invoke(
            app, ["run", "--endpoint", server.url, "--model", "m", "--suites", str(image)]
        )
        asked = server.completions()  # (its /v1/models card is read, for the window)
    assert only_na.exit_code == 3 and "0 errors, 1 n/a of 1 cases" in only_na.output
    assert asked == 0


@APPS
def test_a_run_against_an_aborting_engine_graded_nothing(tmp_path: Path, app: Typer) -> None:
    """An engine that aborts every request (`finish_reason: "abort"`) exited 0 with every
    cut answer a failure of the model, where a 503 on each is errors and exit 3 (found in
    review)."""
    out = tmp_path / "abort.json"
    with simulator(model="m") as server:
        server.control("faults", {"fault": "abort"})
        args = ["run", "--endpoint", server.url, "--model", "m", "--no-progress"]
        result = CliRunner().invoke(app, [*args, "--suites", MATH, "--out", str(out)])
        aborted = server.stats()["by_fault"].get("abort", 0)
    assert result.exit_code == 3, result.output
    cases = results.read(out)["cases"]
    assert {(c["status"], c["failure_kind"]) for c in cases} == {("error", "transport")}
    assert aborted == len(cases) > 0


@APPS
def test_a_password_in_the_endpoint_stays_out_of_the_results_file(
    tmp_path: Path, app: Typer
) -> None:
    """The run block held `base_url` as given: `http://user:pass@host/v1` put the password
    in a results file that is shared and committed as a baseline (found in review)."""
    suite = tmp_path / "one.yaml"
    suite.write_text("- {id: a, prompt: 'Say cat', evaluator: text_match, expected: cat}\n")
    out = tmp_path / "run.json"
    with simulator(model="m") as server:
        endpoint = server.url.replace("http://", "http://evaluser:pw-S3CRET@") + "?key=K3Y"
        args = ["run", "--endpoint", endpoint, "--model", "m", "--suites", str(suite)]
        result = CliRunner().invoke(app, [*args, "--no-progress", "--out", str(out)])
    assert out.exists(), result.output
    text = out.read_text()
    assert "pw-S3CRET" not in text and "K3Y" not in text and "pw-S3CRET" not in result.output
    root = server.url.removeprefix("http://")
    assert results.read(out)["run"]["endpoint"] == f"http://***@{root}?key=***"


@APPS
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://127.0.0.1:99999/v1", "--endpoint:notaURL:theportisnotanumberfrom0to65535"),
        ("http://[::1/v1", "--endpoint:notaURL:"),
        ("spark:8888/v1", "--endpoint:mustbeanhttp://orhttps://URLwithahost"),
        ("ftp://127.0.0.1/v1", "--endpoint:mustbeanhttp://orhttps://URLwithahost"),
    ],
)
def test_an_endpoint_that_is_no_url_is_a_usage_error(app: Typer, url: str, message: str) -> None:
    """A port out of range or a broken `[host]` ended `eval run` in a ValueError traceback,
    and a URL without a scheme in an error of every case (found in review)."""
    args = ["run", "--endpoint", url, "--model", "m", "--no-progress", "--suites", MATH]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert message in flat(result), result.output


@APPS
@pytest.mark.parametrize("seconds", ["nan", "0", "-5", "inf"])
def test_a_timeout_that_is_no_positive_number_is_a_usage_error(app: Typer, seconds: str) -> None:
    """`--timeout nan` ended the run in a traceback, and 0 or less made every case an
    error ("no reply within 0s") (found in review)."""
    args = ["run", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--no-progress"]
    result = CliRunner().invoke(app, [*args, "--suites", MATH, "--timeout", seconds])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "--timeoutmustbeapositivenumberofseconds" in flat(result), result.output


@APPS
def test_eval_alone_prints_its_help(app: Typer) -> None:
    """`smf-router eval` said "Missing command." where every other group prints its help
    (found in review)."""
    result = CliRunner().invoke(app, [], env={"COLUMNS": "200"})
    assert "Missing command" not in result.output
    assert "Usage:" in result.output and "Commands" in result.output
    assert {"run", "report"} <= set(result.output.split())


@APPS
def test_suites_without_a_case_are_a_usage_error(tmp_path: Path, app: Typer) -> None:
    """An empty suites directory ran nothing and exited 3, as a dead endpoint does (found
    in review)."""
    args = ["run", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--no-progress"]
    result = CliRunner().invoke(app, [*args, "--suites", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "holdsnocases" in flat(result)


def test_cli_writes_results_and_compares(tmp_path: Path) -> None:
    chosen = pick("smf.math.hard.01", "smf.reasoning.easy.01", "smf.instruction.easy.01")
    suite_dir = tmp_path / "suites"
    suite_dir.mkdir()
    (suite_dir / "s.json").write_text(json.dumps([_raw(c) for c in chosen]))
    runner = CliRunner()
    with simulator(model="m") as server:  # the shipped cases' references (canary answers)
        old, new = tmp_path / "old.json", tmp_path / "new.json"
        args = ["run", "--endpoint", server.url, "--model", "m", "--suites", str(suite_dir)]
        first = runner.invoke(evals_app, [*args, "--out", str(old), "--no-progress"])
        assert first.exit_code == 0, first.output
        server.control("replies", {chosen[2].prompt: "nope"})  # the instruction case
        second = runner.invoke(
            evals_app, [*args, "--out", str(new), "--compare", str(old), "--no-progress"]
        )
    assert second.exit_code == 0, second.output
    doc = results.read(new)
    assert doc["summary"]["instruction"]["failed"] == 1
    assert doc["summary"]["math"]["pass_rate"] == 1.0
    statuses = {c["id"]: c["status"] for c in doc["cases"]}
    assert statuses["smf.instruction.easy.01"] == "fail"
    assert "smf.instruction.easy.01" in second.output and "Changed cases (1)" in second.output
    assert doc["run"]["model"] == "m" and "api_key" not in json.dumps(doc["run"])


def _raw(case: Case) -> dict[str, Any]:
    return {
        "id": case.id,
        "category": case.suite,
        "difficulty": case.difficulty,
        "prompt": case.prompt,
        "evaluator": case.evaluator,
        "expected": case.expected,
        "metadata": dict(case.metadata),
        "reference": case.reference,
    }


@APPS
def test_cli_names_suites_that_do_not_load(tmp_path: Path, app: Typer) -> None:
    """A missing --suites path ended in a FileNotFoundError traceback, then said
    `Invalid value: nosuch`, naming neither the option nor what was wrong (found in
    review)."""
    args = ["run", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--no-progress"]
    missing = CliRunner().invoke(app, [*args, "--suites", str(tmp_path / "nosuch")])
    assert missing.exit_code == 2
    assert f"--suites:nosuchfileordirectory:{tmp_path / 'nosuch'}" in flat(missing)
    assert not isinstance(missing.exception, FileNotFoundError)


def test_cli_names_a_malformed_suite_field_without_a_traceback(tmp_path: Path) -> None:
    """`metadata: [1, 2]` ended the CLI in a TypeError traceback (found in review)."""
    bad = tmp_path / "meta.yaml"
    bad.write_text("- {id: b, prompt: hi, evaluator: text_match, expected: x, metadata: [1, 2]}\n")
    args = ["run", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--no-progress"]
    out = CliRunner().invoke(evals_app, [*args, "--suites", str(bad)])
    assert out.exit_code == 2 and out.exception is not None
    assert not isinstance(out.exception, TypeError)
    flat = "".join(out.output.replace("│", "").split())  # rich wraps the message in a box
    assert "meta.yaml:case'b':'metadata'mustbeamapping" in flat


def test_the_progress_bar_on_a_terminal_draws_to_the_end(tmp_path: Path) -> None:
    """Drawn on stderr, the bar wrote to the stream rich puts over `sys.stderr` on a
    terminal, which prints to the bar: the run spun there, never ending (found while moving
    the bar from stdout to stderr). Stdin, stdout and stderr are a terminal."""
    search = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]  # the code under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(search), "TERM": "xterm-256color"}
    out = tmp_path / "r.json"
    with simulator(model="m") as server:
        args = ["run", "--endpoint", server.url, "--model", "m", "--suites", MATH]
        argv = [sys.executable, "-m", "evals", *args, "--out", str(out)]
        exit_status, output = on_terminal(argv, env)
    assert exit_status == 0, output[-500:]
    total = len(load(Path(MATH)))
    assert f"{total}/{total}".encode() in output and b"Per suite (pass rate" in output
    assert len(results.read(out)["cases"]) == total


@pytest.mark.parametrize("command", [["smf-router", "eval"], ["python", "-m", "evals"]])
def test_an_unknown_profile_is_the_profiles_error(command: list[str]) -> None:
    """`--profile nope` was said as "--suites: unknown profile 'nope'", an option the user
    never gave (found in review)."""
    args = ["run", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--profile", "nope"]
    done = subprocess.run(
        [str(VENV_BIN / command[0]), *command[1:], *args, "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "300"},
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--profile: unknown profile 'nope'; known: ['strict_v01']" in done.stderr
    assert "--suites" not in done.stderr and done.stdout == ""
