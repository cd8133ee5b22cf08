"""Answers are graded in a grading process (`evals.grading`), off the caller's event loop,
each within a time limit: a suite's regex that backtracks without end held the router's
loop, and every live request with it (found in review)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from evals import grading
from evals.endpoint import Endpoint, ask
from evals.graders import Answer, CaseProblem
from evals.grading import Grader
from evals.runner import run_cases
from evals.suite import Case, case_from_dict
from tests.evals.backtracking import BACKTRACKS, SENTENCE
from tests.harness import Running
from tests.processes import grading_workers, process_state


def regex_case(name: str, expected: str) -> Case:
    prompt = f"Say where the park is ({name})."
    return case_from_dict(
        {"id": name, "prompt": prompt, "evaluator": "regex_match", "expected": expected}
    )


def address_space(pid: int) -> list[str]:
    """A process's address-space limits, as `/proc` shows them."""
    limits = Path(f"/proc/{pid}/limits").read_text().splitlines()
    (line,) = [line for line in limits if line.startswith("Max address space")]
    return line.split()[3:5]


@pytest.mark.timeout(60)  # graded on the loop, the case never ended, nor did the test
async def test_a_regex_that_backtracks_is_graded_off_the_loop_then_stopped(
    sim: Running, monkeypatch: Any
) -> None:
    """While the case's answer is graded, a request made on the same loop is answered; the
    grading is stopped at its (shortened) limit as an error of kind `grader`, not a fail,
    and the next case is graded by a new grading process."""
    monkeypatch.setattr(grading, "LIMIT_S", 2.0)
    stuck, fine = regex_case("stuck", BACKTRACKS), regex_case("fine", r"\bpark\b")
    sim.control("replies", {stuck.prompt: SENTENCE, fine.prompt: SENTENCE})
    answered, order = asyncio.Event(), []
    async with httpx.AsyncClient(timeout=30, trust_env=False) as client:
        here = Endpoint(sim.url, "fake-model")

        async def asked(body: dict[str, Any]) -> Any:
            reply = await ask(client, here, body)
            answered.set()  # the first case's answer: grading starts now
            return reply

        async def heartbeat() -> None:
            await answered.wait()
            assert (await client.get(f"{sim.root}/sim/stats")).status_code == 200
            order.append("heartbeat")

        beat = asyncio.create_task(heartbeat())
        out = await run_cases([stuck, fine], here, concurrency=1, ask_one=asked)
        order.append("graded")
        await beat
    assert order == ["heartbeat", "graded"]
    assert [(r.status, r.failure_kind) for r in out] == [("error", "grader"), ("pass", None)]
    assert out[0].detail == "grading took longer than 2s (a regex that backtracks?): stopped"
    assert grading_workers(os.getpid()) == []  # the run's own grader ended with the run


async def test_the_worker_is_limited_and_gone_once_closed() -> None:
    """`aclose` kills the worker and waits for it: a router's shutdown leaves no process
    behind. Its address space is limited, so a pattern that allocates as it backtracks
    ends in a MemoryError, not in the host's memory."""
    grader = Grader()
    verdict = await grader.grade(regex_case("fine", r"\bpark\b"), Answer(content=SENTENCE))
    assert verdict.passed
    pid = grader.pid
    assert pid is not None and grading_workers(os.getpid()) == [pid]
    assert address_space(pid) == [str(1 << 30)] * 2  # soft, hard: the sandbox's 1 GiB
    await grader.aclose()
    assert process_state(pid) is None
    assert grader.pid is None


async def test_a_case_problem_and_a_grader_bug_come_back_as_raised() -> None:
    """What the grader raises in the worker is raised here: the suite's `CaseProblem`
    (an `error` of kind `case`), anything else a `GradingFailed` naming its type; the
    worker goes on."""
    # built as no suite file loads them: `case_from_dict` refuses both
    no_count = Case("c", "c", "instruction", "easy", "p", "structural_count", expected="ten")
    unknown = Case("u", "u", "instruction", "easy", "p", "no_such_grader")
    async with Grader() as grader:
        with pytest.raises(CaseProblem, match="is not a count"):
            await grader.grade(no_count, Answer(content=SENTENCE))
        with pytest.raises(grading.GradingFailed) as failed:
            await grader.grade(unknown, Answer(content=SENTENCE))
        assert failed.value.name == "ValueError"
        assert "unknown evaluator" in failed.value.details
        pid = grader.pid
        assert (await grader.grade(regex_case("ok", "park"), Answer(content=SENTENCE))).passed
        assert grader.pid == pid
