"""A router's shutdown while its canary grades a code case (`router.canary_schedule`): the
stop waits out the sandbox's wall clock, starts no other program, and a round cancelled
past that wait still writes what it graded before the job ends."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from classifier import INTENTS
from evals.endpoint import Endpoint
from evals.grading import Grader
from evals.runner import run_case, run_cases
from evals.sandbox import Limits, RunOutcome, SandboxUnavailable
from evals.suite import SHIPPED, Case, load
from router import canary_schedule
from router.canary import Canary, load_cases
from router.canary_bound import RunEnd, Unstarted
from router.canary_schedule import STOP_WAIT_S, Schedule
from router.config import parse
from router.gating import GateBook
from tests.canary.recorded_rows import Rows

PASSED = RunOutcome(0, False, True, "", "", 0.0, isolated_network=True)
ANSWER = {"choices": [{"message": {"content": "```python\nx = 1\n```"}, "finish_reason": "stop"}]}


def slow_sandbox(
    seconds: Sequence[float], started: threading.Event, ran: list[float]
) -> Callable[[str], RunOutcome]:
    """A sandbox whose n-th program takes `seconds[n]` and passes, each noted in `ran`;
    `started` is set once a program takes long (a second or more)."""
    calls = iter(seconds)

    def execute(program: str) -> RunOutcome:
        took = next(calls)
        ran.append(took)
        if took >= 1:
            started.set()
        time.sleep(took)
        return RunOutcome(0, False, True, "", "", took, isolated_network=True)

    return execute


async def stopped_while_grading(
    tmp_path: Path,
    seconds: Sequence[float],
    concurrency: int = 1,
    ran: list[float] | None = None,
    details: list[str] | None = None,
) -> Rows:
    """A router's canary on the coding suite, one case per grading in `seconds`, shut down
    (its job cancelled, as `Components.stop` does) while a slow one is graded. The rows are
    those written when the job ended: `Components.stop` closes the ledger then. `details`
    gets its errors' details, as `smf-router canary run` prints them (the ledger has none)."""
    canary_section = {"enabled": True, "suites": str(SHIPPED / "coding")}
    canary_section |= {"sample_per_suite": len(seconds), "concurrency": concurrency}
    local = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    routes = {intent: ["local"] for intent in INTENTS}
    config = parse({"backends": [local], "routes": routes, "canary": canary_section})
    started = threading.Event()
    execute = slow_sandbox(seconds, started, [] if ran is None else ran)

    async def answered(body: dict[str, Any]) -> Any:
        return ANSWER

    async def runner(cases: Sequence[Case], endpoint: Endpoint, *a: Any, **k: Any) -> Any:
        k["ask_one"] = answered  # every case answered at once: the time goes on grading
        return await run_cases(cases, endpoint, *a, **k)

    rows = Rows()
    canary = Canary(config, load_cases(config), GateBook({}), rows, runner=runner, execute=execute)
    job = asyncio.ensure_future(Schedule(canary, lambda: config, tmp_path).run())
    assert await asyncio.to_thread(started.wait, 30)
    job.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await job
    ended = Rows()
    ended.rows = list(rows.rows)
    if details is not None:
        details += [r.detail for r in canary.last_results["local"] if r.status == "error"]
    await canary.aclose()
    return ended


def results_of(rows: Rows) -> list[dict[str, Any]]:
    return [row for table, row in rows.rows if table == "canary_results"]


def test_a_shutdown_waits_for_the_code_case_being_graded(tmp_path: Path) -> None:
    """The stop waited 5 s, while a code case's program may run the sandbox's 10 s: cut
    short, the round wrote no row at all (found in review). The wait now covers the limit."""
    rows = asyncio.run(stopped_while_grading(tmp_path, [6.0]))  # past the old 5 s
    (run,) = [row for table, row in rows.rows if table == "canary_runs"]
    assert (run["backend"], run["cases"], run["passed"], run["errors"]) == ("local", 1, 1, 0)
    assert [r["status"] for r in results_of(rows)] == ["pass"]
    assert Limits().wall_s < STOP_WAIT_S  # any program's run, not only a 6 s one
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert f"waiting {STOP_WAIT_S:g} s at most" in " ".join(readme.split())


def test_a_round_cancelled_past_the_wait_writes_what_it_graded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that outlasts the wait (one stuck past its sandbox's limit); cancelled, a
    round lost every row, its graded cases' too. It writes them now, the rest as errors,
    and before the job ends: written some loop turns later, they came after the ledger had
    closed, and were lost (found in re-review)."""
    monkeypatch.setattr(canary_schedule, "STOP_WAIT_S", 0.3)
    began = time.monotonic()
    rows = asyncio.run(stopped_while_grading(tmp_path, [0.0, 2.0]))
    assert time.monotonic() - began < 5
    (run,) = [row for table, row in rows.rows if table == "canary_runs"]
    assert (run["cases"], run["passed"], run["errors"]) == (2, 1, 1)
    graded, cancelled = results_of(rows)
    assert graded["status"] == "pass"
    assert (cancelled["status"], cancelled["failure_kind"]) == ("error", "canary")


def test_no_program_starts_after_the_stop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cases answered before a stop went on taking the sandbox's slots one after the other,
    each program up to its wall clock: the shutdown waited for programs started after it,
    past `STOP_WAIT_S` with enough of them, and a program cancelled then ran on its thread,
    holding up the exit (found in re-review). Now only the program running at the stop
    runs out; the others are errors, not run: they said "the sandbox could not start", which
    never tried (found in review)."""
    monkeypatch.setattr("evals.runner.SANDBOX_SLOTS", 1)  # one program at a time
    ran: list[float] = []
    details: list[str] = []
    began = time.monotonic()
    seconds = [1.0, 1.0, 1.0]
    rows = asyncio.run(stopped_while_grading(tmp_path, seconds, 3, ran, details))
    assert ran == [1.0] and time.monotonic() - began < 2.5
    (run,) = [row for table, row in rows.rows if table == "canary_runs"]
    assert (run["cases"], run["passed"], run["errors"]) == (3, 1, 2)
    errors = [r for r in results_of(rows) if r["status"] == "error"]
    assert [r["failure_kind"] for r in errors] == ["sandbox", "sandbox"]
    assert details == ["not run: the canary round had ended (shutdown)"] * 2


def test_a_round_ended_runs_no_program() -> None:
    """The guard as the runner's worker thread calls it: a program runs while the round
    lasts, none after its stop, and the case says why (the ledger keeps only its kind),
    once: it read "the sandbox could not start: not run: the round had ended" (found in
    round-2 re-review), then "the sandbox could not start: ...", which never tried (found
    in review)."""
    case = load(SHIPPED / "coding")[0]  # a code case: graded in the sandbox

    async def answered(body: dict[str, Any]) -> Any:
        return ANSWER

    async def programs() -> tuple[list[str], str, str]:
        end, ran = RunEnd(), list[str]()

        def execute(program: str) -> RunOutcome:
            ran.append(program)
            return PASSED

        guarded = Unstarted(execute, end)
        assert await asyncio.to_thread(guarded, "first") is PASSED
        end.stop("SIGTERM")
        with pytest.raises(SandboxUnavailable) as refused:
            await asyncio.to_thread(guarded, "second")
        endpoint = Endpoint("http://127.0.0.1:9/v1", "m")
        async with Grader() as grader:  # not started: a code case runs in the sandbox
            graded = await run_case(answered, case, endpoint, 5.0, grader, execute=guarded)
        assert (graded.status, graded.failure_kind) == ("error", "sandbox")
        return ran, str(refused.value), graded.detail

    ran, why, detail = asyncio.run(programs())
    assert ran == ["first"] and why == "the canary round had ended (SIGTERM)"
    assert detail == "not run: the canary round had ended (SIGTERM)"


def test_the_sandbox_guard_never_reads_the_loops_clock_from_its_thread() -> None:
    """`Unstarted` read the event loop's clock on the runner's worker thread: under uvloop
    (`serve`), `loop.time()` updates libuv's loop time, which is not thread-safe (found in
    round-2 re-review). The guard reads a state of its own: a stop, or a deadline on
    `time.monotonic`, and agrees with the loop's side (`passed`)."""
    threads: set[int] = set()

    def execute(program: str) -> RunOutcome:
        return PASSED

    async def guarded() -> None:
        loop, ours = asyncio.get_running_loop(), threading.get_ident()
        clock = loop.time

        def noted() -> float:
            if threading.get_ident() != ours:  # the loop's own thread may read it
                threads.add(threading.get_ident())
            return clock()

        loop.time = noted  # type: ignore[method-assign]
        until_stopped, short = RunEnd(), RunEnd(deadline_s=0.2)
        first, second = Unstarted(execute, until_stopped), Unstarted(execute, short)
        assert await asyncio.to_thread(first, "x") is PASSED
        assert await asyncio.to_thread(second, "x") is PASSED
        assert not (until_stopped.passed() or short.passed())
        await asyncio.sleep(0.25)
        assert short.passed()
        with pytest.raises(SandboxUnavailable, match=r"had ended \(deadline 0.2 s\)"):
            await asyncio.to_thread(second, "x")
        until_stopped.stop("SIGTERM")
        assert until_stopped.passed()
        with pytest.raises(SandboxUnavailable, match=r"had ended \(SIGTERM\)"):
            await asyncio.to_thread(first, "x")

    asyncio.run(guarded())
    assert threads == set()
