"""A canary round beside a backend that asks for a wait (a 429, or an overloaded 503,
whose `Retry-After` is longer than the backend's `retry_after_max_s`): the round passes it
by from then on and says so (`skipped_reason`), as a router's canary skips the round of a
backend its live traffic saw ask, instead of asking it every case and counting each
refusal an error. `smf-router canary run`, the CronJob, runs in a process of its own and
sees no router's waits: it asked a provider that had said "not for 10 minutes" every case
of every round, and its rows counted the refusals as errors (SmfCanaryBlind's, once it had
gone on for an hour). Real processes and simulators on 127.0.0.1, the ledger's own files."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from evals.endpoint import Endpoint, TransportProblem
from evals.results import CaseResult
from evals.runner import run_cases
from evals.suite import SHIPPED, load
from router.canary_cli import summary_line
from router.canary_rows import run_row
from router.canary_wait import UntilWait
from router.config import Backend
from router.ledger import Ledger
from tests.canary.servers import simulator
from tests.harness import INTENTS, VENV_BIN, Running


def _config(tmp: Path, local: Running, cloud: Running, fault: str) -> Path:
    """`local`, and `cloud` answering every case with `fault` (the simulator's per-model
    fault) past its `retry_after_max_s` of 2 s; three math cases each, one at a time."""
    backends = [
        {"name": "local", "tier": "local", "base_url": local.url, "model": "local-model"},
        {"name": "cloud", "tier": "cloud", "base_url": cloud.url, "model": f"cloud-model+{fault}"},
    ]
    data = {
        "backends": backends,
        "routes": {intent: ["local", "cloud"] for intent in INTENTS},
        "ledger": {"path": str(tmp / "ledger"), "flush_interval_s": 0.1},
        "resilience": {"enabled": False},
        "canary": {"suites": str(SHIPPED / "math"), "sample_per_suite": 3, "concurrency": 1},
    }
    path = tmp / "router.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _rows(tmp: Path, sql: str) -> list[tuple[Any, ...]]:
    with Ledger(tmp / "ledger") as ledger:
        return list(ledger.sql(sql))


@pytest.mark.parametrize(
    ("fault", "reason"), [("rate_limit:600", "rate_limited"), ("overloaded:600", "overloaded")]
)
def test_the_cronjobs_round_passes_a_backend_that_asks_for_a_wait_by_and_says_so(
    tmp_path: Path, fault: str, reason: str
) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        path = _config(tmp_path, local, cloud, fault)
        command = [str(VENV_BIN / "smf-router"), "canary", "run", "--config", str(path)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=180)
        asked = cloud.completions()
    assert done.returncode == 0, done.stderr  # local graded its cases: a round, no failure
    lines = {line.split(":")[0]: line for line in done.stdout.splitlines() if ": " in line}
    assert lines["local"].startswith("local: 3/3 passed"), done.stdout
    assert lines["cloud"].startswith(f"cloud: skipped ({reason})"), done.stdout
    assert "error" not in lines["cloud"] and "×" not in done.stdout
    assert asked == 1  # the case that met the wait; the others were not sent
    runs = _rows(
        tmp_path,
        "SELECT backend, cases, errors, skipped_reason FROM canary_runs ORDER BY backend",
    )
    assert runs == [("cloud", 0, 0, reason), ("local", 3, 0, None)]
    results = _rows(tmp_path, "SELECT backend, status FROM canary_results")
    assert sorted(results) == [("local", "pass")] * 3  # no error row for the cloud's refusals


BACKEND = Backend(name="cloud", tier="cloud", base_url="http://127.0.0.1:9/v1", model="m")
ANSWER = {"choices": [{"message": {"role": "assistant", "content": "0"}, "finish_reason": "stop"}]}


def _refusal(status: int, retry_after: str) -> TransportProblem:
    """The error reply `evals.endpoint.ask` raises for: its status, body and headers."""
    body = b'{"error": {"message": "not now", "type": "requests"}}'
    said = f"HTTP {status}: not now"
    return TransportProblem(said, status=status, reply=body, headers={"retry-after": retry_after})


def _round(refusal: TransportProblem, after: int) -> tuple[UntilWait, list[CaseResult], int]:
    """Five math cases, one at a time, on a backend that answers `after` of them and then
    refuses every case with `refusal`; its `retry_after_max_s` is 2 s."""
    asked: list[dict[str, Any]] = []

    async def send(body: dict[str, Any]) -> Any:
        asked.append(body)
        if len(asked) > after:
            raise refusal
        return ANSWER

    waits = UntilWait("cloud", 2.0)
    cases = load(SHIPPED / "math")[:5]
    endpoint = Endpoint("http://127.0.0.1:9/v1", "cloud-model")
    run = run_cases(cases, endpoint, 1, 10.0, thinking=None, ask_one=waits.wrap(send))
    return waits, asyncio.run(run), len(asked)


def test_a_wait_met_mid_round_keeps_the_verdicts_graded_before_it() -> None:
    waits, results, asked = _round(_refusal(503, "600"), after=2)
    assert (waits.asked, asked) == ("overloaded", 3)  # the two answered, the one that met it
    kept = waits.kept(results)
    assert len(results) == 5 and [r.status for r in kept] == ["fail", "fail"]  # "0" is wrong
    summary = run_row(BACKEND, "run", 0.0, 1.0, kept, waits.asked)
    assert summary_line(summary).startswith(
        "cloud: 0/2 passed, 2 failed, 0 errors; then skipped (overloaded); suites: math"
    )


@pytest.mark.parametrize("refusal", [_refusal(429, "1"), _refusal(500, "600")])
def test_a_short_wait_or_another_error_asks_every_case_and_counts_it_an_error(
    refusal: TransportProblem,
) -> None:
    """A `Retry-After` within `retry_after_max_s` (dispatch sleeps it out, and tries the
    backend again), or one on an error that asks for no wait (a 500): as before."""
    waits, results, asked = _round(refusal, after=0)
    assert (waits.asked, asked) == (None, 5)
    assert [r.status for r in waits.kept(results)] == ["error"] * 5
