"""A router's canary grades answers in a grading process (`evals.grading`): a suite's regex
that backtracks without end no longer holds the router's event loop (`/healthz` took 16 s,
chat requests 13 s, while the canary graded such a case: found in review), is stopped at
its limit as an error of kind `grader`, and its process never outlives the router.
`smf-router serve` as a process, the official SDK as its client."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from router.ledger import Ledger
from tests.canary.servers import served, simulator
from tests.evals.backtracking import BACKTRACKS, SENTENCE
from tests.harness import Running, config_for, sdk
from tests.processes import cpu_seconds, grading_workers, process_state
from tests.resilience.conftest import status, until

PROMPT = "Where is the park? Answer in one sentence."
PLAIN = "Where is the park? Name it in a sentence."


def backtracking_canary(tmp: Path) -> dict[str, Any]:
    """A canary section of one suite: a case whose regex backtracks on `SENTENCE`, and one
    an answer of `SENTENCE` passes."""
    common = {"category": "reasoning", "evaluator": "regex_match"}
    stuck = {"id": "user.reasoning.01", "prompt": PROMPT, "expected": BACKTRACKS, **common}
    plain = {"id": "user.reasoning.02", "prompt": PLAIN, "expected": r"\bpark\b", **common}
    suite = tmp / "suites" / "reasoning.yaml"
    suite.parent.mkdir()
    suite.write_text(yaml.safe_dump_all([stuck, plain]))
    canary = {"enabled": True, "interval_s": 600, "timeout_s": 30, "sample_per_suite": 2}
    return canary | {"concurrency": 1, "suites": str(suite.parent)}


def grading_now(router: int) -> int | None:
    """The router's grading process while it grades: running, and past its start (its
    imports take about 0.1 s of CPU), so in the regex."""
    workers = grading_workers(router)
    busy = len(workers) == 1 and process_state(workers[0]) == "R"
    return workers[0] if busy and cpu_seconds(workers[0]) >= 0.5 else None


@pytest.mark.slow
def test_live_requests_are_served_while_the_canary_grades(tmp_path: Path) -> None:
    with simulator(profile="vllm", model="local-model") as local:
        local.control("replies", {PROMPT: SENTENCE, PLAIN: SENTENCE})
        config = config_for({"local": local}, tmp_path, canary=backtracking_canary(tmp_path))
        with served(config, tmp_path) as (root, serve):
            until(lambda: local.completions() >= 1, 30, what="the canary's case answered")
            # graded on the loop, this waited for the regex: for ever
            assert httpx.get(f"{root}/healthz", timeout=10, trust_env=False).status_code == 200
            until(lambda: grading_now(serve.pid) is not None, 30, what="the grading at work")
            (worker,) = grading_workers(serve.pid)
            client = sdk(Running(f"{root}/v1", root), timeout=10)
            said = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
            reply = client.chat.completions.create(model="local", messages=said)  # type: ignore[arg-type]
            assert reply.choices[0].message.content
            canary = status(root)["extra"]["canary"]
            assert canary["running_since"] is not None  # served before the grading ended
            until(
                lambda: "local" in status(root)["extra"]["canary"]["last_run"],
                30,
                what="the round's end, its case stopped at the grading's limit",
            )
            round_ = status(root)["extra"]["canary"]["last_run"]["local"]
            assert (round_["passed"], round_["errors"]) == (1, 1)
            left = grading_workers(serve.pid)  # the one that graded the plain case, if last
            assert worker not in left  # killed at its limit
            serve.send_signal(signal.SIGTERM)
            assert serve.wait(timeout=30) == 0
        assert [pid for pid in [worker, *left] if process_state(pid) is not None] == []
    with Ledger(tmp_path / "ledger") as read:
        rows = read.sql("SELECT case_id, status, failure_kind FROM canary_results ORDER BY 1")
    assert rows == [("user.reasoning.01", "error", "grader"), ("user.reasoning.02", "pass", None)]


@pytest.mark.slow
def test_the_grading_process_dies_with_a_killed_router(tmp_path: Path) -> None:
    """A router killed with SIGKILL closes nothing: its grading process, in a regex that
    never ends, would have run on for ever, an orphan. It is killed with its parent."""
    with simulator(profile="vllm", model="local-model") as local:
        local.control("replies", {PROMPT: SENTENCE})
        config = config_for({"local": local}, tmp_path, canary=backtracking_canary(tmp_path))
        with served(config, tmp_path) as (_, serve):
            until(lambda: grading_now(serve.pid) is not None, 30, what="the grading at work")
            (worker,) = grading_workers(serve.pid)
            try:
                serve.kill()
                serve.wait(timeout=10)
                until(lambda: process_state(worker) is None, 10, what="the grading process gone")
            finally:
                if process_state(worker) is not None:  # not left behind by a failed check
                    os.kill(worker, signal.SIGKILL)
