"""`smf-router canary run` as the CronJob runs it: a sample that rotates from one process to
the next, rounds a hung backend, a deadline or a SIGTERM cannot leave unrecorded, and a
suite that does not load said in one line."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from evals.suite import SHIPPED, Case, load
from router.canary import Canary
from router.canary_bound import UNANSWERED
from router.canary_cli import error_details
from router.canary_rotation import resumed_offsets
from router.canary_rows import finished_rounds
from router.config import parse
from router.config_sections import CanarySettings
from router.gating import GateBook
from router.ledger import Ledger
from router.ledger.recent import RecentRows
from tests.canary.rounds import aged, one_round
from tests.harness import VENV_BIN, Running, config_for, router, simulator, wait_until
from tests.slots import must_reach, status_extra

MATH = str(SHIPPED / "math")
INTENTS = ("coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing")


def _config(tmp: Path, sim: Running, hung: bool = False, **canary: Any) -> dict[str, Any]:
    """`local` on the simulator and, with `hung`, a backend there that never answers."""
    backends = [{"name": "local", "tier": "local", "base_url": sim.url, "model": "local-model"}]
    if hung:  # the simulator's per-model fault: the request is read and never answered
        model = "local-model+no_response"
        backends.append({"name": "hung", "tier": "local", "base_url": sim.url, "model": model})
    return {
        "backends": backends,
        "routes": {intent: [b["name"] for b in backends] for intent in INTENTS},
        "ledger": {"path": str(tmp / "ledger"), "flush_interval_s": 0.1},
        "resilience": {"enabled": False},
        "canary": {"suites": MATH, "sample_per_suite": 3, "concurrency": 1, **canary},
    }


def _written(tmp: Path, data: dict[str, Any]) -> Path:
    path = tmp / "router.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _command(path: Path, *extra: str) -> list[str]:
    return [str(VENV_BIN / "smf-router"), "canary", "run", "--config", str(path), *extra]


def test_each_cronjob_run_goes_on_where_the_last_one_ended(tmp_path: Path) -> None:
    """Each `canary run` process made a new Canary whose rotation started at 0: every
    CronJob round tested the same first three cases of each suite (found in review)."""
    with simulator(profile="vllm", model="local-model") as sim:
        path = _written(tmp_path, _config(tmp_path, sim))
        for _ in range(3):
            done = subprocess.run(_command(path), capture_output=True, text=True, timeout=180)
            assert done.returncode == 0, done.stderr
    rows = Ledger(tmp_path / "ledger").sql(
        "select run_id, list(case_id) from canary_results group by run_id order by min(ts)"
    )
    runs = [set(ids) for _, ids in rows]
    assert len(runs) == 3 and all(len(ids) == 3 for ids in runs)
    assert len(set().union(*runs)) == 9  # three runs, nine of the suite's eleven cases
    first = [case.id for case in load(SHIPPED / "math")]
    assert [sorted(ids) for ids in runs] == [sorted(first[i : i + 3]) for i in (0, 3, 6)]


def _case(suite: str, i: int) -> Case:
    return Case(f"{suite}-{i}", f"{suite} {i}", suite, "easy", f"q{i}", "exact_match")


def test_the_rotation_resumes_after_the_latest_round_even_one_that_wrapped() -> None:
    cases = [_case("math", i) for i in range(5)] + [_case("coding", i) for i in range(2)]

    def row(run: str, ts: float, case: str) -> dict[str, Any]:
        return {"run_id": run, "ts": ts, "suite": case.split("-")[0], "case_id": case}

    old = [row("a", 1.0, c) for c in ("math-0", "math-1", "math-2")]
    wrapped = [row("b", 2.0, c) for c in ("math-3", "math-4", "math-0", "coding-0", "coding-1")]
    assert resumed_offsets(cases, old) == {"math": 3}
    assert resumed_offsets(cases, old + wrapped) == {"math": 1}  # the suite ran whole: coding at 0
    assert resumed_offsets(cases, []) == {}


def test_a_hung_backend_ends_its_round_after_two_unanswered_cases(tmp_path: Path) -> None:
    """A backend that accepts requests and never answers cost `timeout_s` for every case
    (with the defaults 21 x 120 s / 2, past the CronJob's deadline; in a router, every
    backend's next round waited for it). Now two cases without a reply end its round."""
    rows: list[tuple[str, dict[str, Any]]] = []

    class Rows:
        def submit_row(self, table: str, row: dict[str, Any]) -> None:
            rows.append((table, row))

    with simulator(profile="vllm", model="local-model") as sim:
        config = parse(_config(tmp_path, sim, hung=True, timeout_s=2))
        canary = Canary(config, load(SHIPPED / "math"), GateBook({}), Rows())

        one_round(canary)
        asked = sim.completions()
    runs = [row for table, row in rows if table == "canary_runs"]
    assert [run["backend"] for run in runs] == ["local", "hung"]  # local did not wait for it
    assert runs[0]["passed"] == 3 and (runs[1]["cases"], runs[1]["errors"]) == (3, 3)
    assert asked == 3 + 2  # the third case of hung was never sent
    assert dict(error_details(canary.last_results["hung"])) == {
        "no reply within 2s": 2,
        "not asked: 2 cases in a row got no reply in time": 1,
    }


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_sigterm_or_a_ctrl_c_writes_the_rounds_it_ended(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """Kubernetes' activeDeadlineSeconds ends the job with a SIGTERM: the process died at
    once, and the hung backend's round was never written (found in review). Now its round
    ends with what it finished, written, and its exit status says it was stopped. Ctrl-C
    (SIGINT) still did that after: exit 130, nothing printed (found in review)."""
    with simulator(profile="vllm", model="local-model") as sim:
        path = _written(tmp_path, _config(tmp_path, sim, hung=True, timeout_s=60))
        runs = RecentRows(tmp_path / "ledger", "canary_runs")
        pipe = subprocess.PIPE
        job = subprocess.Popen(_command(path), stdout=pipe, stderr=pipe, text=True)
        try:
            local_written = wait_until(
                lambda: any(r["backend"] == "local" for r in runs.read("2000-01-01")), 60
            )
            assert local_written and job.poll() is None  # hung still waits for its first reply
            job.send_signal(sig)
            out, err = job.communicate(timeout=60)
        finally:
            job.kill()
    assert job.returncode == 128 + sig, err
    assert f"stopped by {sig.name}" in err
    assert f"1 × no reply before the round ended ({sig.name})" in out
    ledger = Ledger(tmp_path / "ledger")
    written = ledger.sql("select backend, cases, errors from canary_runs order by backend")
    assert written == [("hung", 3, 3), ("local", 3, 0)]
    results = RecentRows(tmp_path / "ledger", "canary_results").read("2000-01-01")
    whole = finished_rounds(runs.read("2000-01-01"), results, ())
    assert sorted(r.summary["backend"] for r in whole) == ["hung", "local"]  # all on disk


def test_a_deadline_ends_the_round_with_its_rows_written(tmp_path: Path) -> None:
    with simulator(profile="vllm", model="local-model") as sim:
        path = _written(tmp_path, _config(tmp_path, sim, hung=True, timeout_s=60))
        command = _command(path, "--json", "--deadline-s", "3")
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    local, hung = json.loads(done.stdout)
    assert local["passed"] == 3 and (hung["cases"], hung["errors"]) == (3, 3)
    assert hung["error_details"] == {
        "no reply before the round ended (deadline 3 s)": 1,
        "not asked: the round had ended (deadline 3 s)": 2,
    }
    assert Ledger(tmp_path / "ledger").sql("select count(*) from canary_runs") == [(2,)]


@pytest.mark.parametrize("seconds", ["0", "-1", "nan"])
def test_a_deadline_that_is_no_positive_number_is_a_usage_error(
    tmp_path: Path, seconds: str
) -> None:
    """`--deadline-s 0` was taken: a round of cases "not asked" was recorded, and moved the
    rotation past cases no backend was asked (found in review)."""
    path = _written(tmp_path, _config(tmp_path, Running("http://127.0.0.1:9/v1", "")))
    done = subprocess.run(
        _command(path, "--deadline-s", seconds), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--deadline-s" in done.stderr and "> 0" in done.stderr
    assert not (tmp_path / "ledger").exists()


def test_a_round_no_backend_answered_exits_3(tmp_path: Path) -> None:
    """Every backend unreachable, every case an error: it exited 0, and a CronJob showed a
    success that measured nothing, where `eval run` exits 3 (found in review)."""
    path = _written(tmp_path, _config(tmp_path, Running("http://127.0.0.1:9/v1", "")))
    done = subprocess.run(_command(path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.startswith("local: 0/3 passed, 0 failed, 3 errors")
    assert done.stderr.splitlines()[-1] == (
        "no backend graded a case: nothing was measured (exit status 3)"
    )
    assert Ledger(tmp_path / "ledger").sql("select count(*) from canary_runs") == [(1,)]


def _unread(argv: list[str]) -> subprocess.Popen[str]:
    """`argv` with its stdout a pipe whose reader is gone (`| true`), its stderr read."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.Popen(argv, stdout=write, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write)


def test_a_round_no_backend_answered_exits_3_when_its_reader_went_away(tmp_path: Path) -> None:
    """`canary run | true`: the lines' broken pipe ended the job with exit 0, a success
    that measured nothing, and the stderr line unsaid (found in re-review)."""
    path = _written(tmp_path, _config(tmp_path, Running("http://127.0.0.1:9/v1", "")))
    job = _unread(_command(path))
    _, err = job.communicate(timeout=120)
    assert job.returncode == 3, err
    assert err.splitlines()[-1] == "no backend graded a case: nothing was measured (exit status 3)"


def test_a_sigterm_exits_143_when_the_reader_went_away(tmp_path: Path) -> None:
    """A stopped round's lines could not be written either: exit 0 (found in re-review)."""
    with simulator(profile="vllm", model="local-model") as sim:
        path = _written(tmp_path, _config(tmp_path, sim, hung=True, timeout_s=60))
        runs = RecentRows(tmp_path / "ledger", "canary_runs")
        job = _unread(_command(path))
        try:
            local_written = wait_until(
                lambda: any(r["backend"] == "local" for r in runs.read("2000-01-01")), 60
            )
            assert local_written and job.poll() is None  # hung still waits for its first reply
            job.send_signal(signal.SIGTERM)
            _, err = job.communicate(timeout=60)
        finally:
            job.kill()
    assert job.returncode == 143, err
    assert "stopped by SIGTERM: unfinished cases are errors" in err


@pytest.mark.parametrize("command", ["canary run", "config check"])
def test_suites_that_do_not_load_are_one_line_and_exit_2(tmp_path: Path, command: str) -> None:
    """`canary run` printed a traceback, after starting the ledger's writer; `config check`
    passed the file, as only an enabled canary loaded its suites, though the CronJob runs
    them with `canary.enabled: false` (found in review)."""
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "noid.yaml").write_text("prompt: hi\nevaluator: text_match\nexpected: hi\n")
    data = _config(tmp_path, Running("http://127.0.0.1:9/v1", ""))
    data["canary"]["suites"] = str(suites)
    path = _written(tmp_path, data)
    argv = (
        _command(path)
        if command == "canary run"
        else [str(VENV_BIN / "smf-router"), "config", "check", "--config", str(path)]
    )
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("error: canary.suites: ") and "has no 'id'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "ledger").exists()


def test_a_restarted_router_goes_on_where_its_canary_left_off(tmp_path: Path) -> None:
    """A router's canary kept its place in memory only: each restart ran the first cases
    of each suite again. The first run is made older than `interval_s` before the restart:
    a restart within it waits it out (`router.canary_schedule`)."""
    canary = {"enabled": True, "interval_s": 3600, "suites": MATH, "sample_per_suite": 3}
    with simulator(profile="vllm", model="local-model") as sim:
        config = config_for({"local": sim}, tmp_path, canary=canary)
        for runs in (1, 2):  # the ledger is flushed as each router stops
            with router(config) as r:  # and the next counts the runs it recalls from it
                must_reach(lambda n=runs: status_extra(r)["canary"]["runs"] == n, "a round", 60)
            if runs == 1:
                aged(tmp_path / "ledger", 2 * 3600)
    rows = Ledger(tmp_path / "ledger").sql(
        "select list(case_id) from canary_results group by run_id order by min(ts)"
    )
    first = [case.id for case in load(SHIPPED / "math")]
    assert [sorted(ids) for (ids,) in rows] == [sorted(first[:3]), sorted(first[3:6])]


def test_the_cronjob_ends_its_round_before_kubernetes_stops_it() -> None:
    """The job ran rounds of up to 21 x 120 s / 2 under an activeDeadlineSeconds of 600:
    a hung backend was never recorded (found in review). Its `--deadline-s` must end the
    round with time to spare, and leave a hung backend its two timeouts."""
    path = Path(__file__).resolve().parents[2] / "deploy/k8s/canary-cronjob.yaml"
    job = next(d for d in yaml.safe_load_all(path.read_text()) if "canary" in d["metadata"]["name"])
    spec = job["spec"]["jobTemplate"]["spec"]
    (container,) = spec["template"]["spec"]["containers"]
    command = container["command"]
    deadline = float(command[command.index("--deadline-s") + 1])
    defaults = CanarySettings()  # the ConfigMap's canary section sets none of these
    hung = math.ceil(UNANSWERED / defaults.concurrency) * defaults.timeout_s
    assert hung < deadline <= spec["activeDeadlineSeconds"] - 60


def test_canary_run_shows_each_backend_its_own_errors_when_two_share_an_endpoint(
    tmp_path: Path,
) -> None:
    """Error details were kept per endpoint (URL, model, headers, extras): two backends
    with the same one each showed both backends' errors, 4 for their 2 (found in review)."""
    refused = {"tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    backends = [{"name": "a", **refused}, {"name": "b", **refused}]
    data = {
        "backends": backends,
        "routes": {intent: ["a", "b"] for intent in INTENTS},
        "ledger": {"path": str(tmp_path / "ledger"), "flush_interval_s": 0.1},
        "resilience": {"enabled": False},
        "canary": {"suites": MATH, "sample_per_suite": 2, "concurrency": 1, "timeout_s": 10},
    }
    done = subprocess.run(
        _command(_written(tmp_path, data)), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 3, done.stderr  # nothing graded
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines if not line.startswith(" ")] == ["a", "b"]
    details = [line for line in lines if line.startswith("  ")]
    assert len(details) == 2 and all(line.startswith("  2 × ") for line in details), lines
