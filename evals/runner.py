"""The runner: asks an OpenAI-compatible endpoint every case, with bounded concurrency.

``run_cases`` is what the router's canary scheduler calls. Transport problems (connection
refused, HTTP errors, timeouts, unparsable replies) are ``error``, never ``fail``: a down
backend is not a quality signal. Unit-test grading runs in the sandbox on a worker thread,
at most one program per CPU at once (``SANDBOX_SLOTS``), whatever the request concurrency;
every other answer is graded in a grading process (``evals.grading``), never on the event
loop: a suite's regex that backtracks for minutes held every live request of the router.
Not graded within its limit, a case is an ``error`` of kind ``grader``.
Cases go over HTTP (``evals.endpoint.ask``) unless the caller passes its own ``ask`` (the
canary does for backends the router reaches through litellm).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Literal

import httpx

from evals.applicability import Capabilities, answer_budget, not_applicable
from evals.asked import ASKED, Asked
from evals.endpoint import (
    Ask,
    Endpoint,
    TransportProblem,
    ask,
    parse_answer,
    request_body,
)
from evals.graders import SUPPORTED, CaseProblem, Executor, evaluator_of, grade
from evals.grading import Grader, GradingFailed, GradingTimedOut
from evals.results import CaseResult
from evals.sandbox import NotRun, SandboxUnavailable, run_python
from evals.suite import Case

ANSWER_CHARS = 4000
"""Answers are stored clipped: enough to read a failure, not a full transcript."""


log = logging.getLogger("smf_router.evals")


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


SANDBOX_SLOTS = usable_cpus()
"""Sandboxed programs run at once, at most: one per CPU we may use. Each has a 10 s wall
clock; more at once than CPUs would spend it waiting for the runner's own other programs,
and a correct program would time out, more often the higher ``concurrency``."""

_SLOTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def sandbox_slots() -> asyncio.Semaphore:
    """The running loop's bound on sandboxed programs, shared by every ``run_cases`` on it
    (the canary runs its backends at once)."""
    loop = asyncio.get_running_loop()
    slots = _SLOTS.get(loop)
    if slots is None:
        slots = _SLOTS[loop] = asyncio.Semaphore(SANDBOX_SLOTS)
    return slots


def _skip(case: Case, reason: str) -> CaseResult:
    return CaseResult(
        case.id, case.suite, case.difficulty, "n/a", None, reason, evaluator=case.evaluator
    )


ErrorKind = Literal["timeout", "transport", "sandbox", "case", "grader"]
"""Why a case was not graded: no reply in time, no usable reply, no sandbox, a case that
cannot be graded as written, a grader that raised or ran past its time limit
(``evals.grading``). Reports count them apart from failures."""


def _error(case: Case, kind: ErrorKind, detail: str) -> CaseResult:
    return CaseResult(
        case.id, case.suite, case.difficulty, "error", kind, detail, evaluator=case.evaluator
    )


async def run_case(
    ask_one: Ask,
    case: Case,
    endpoint: Endpoint,
    timeout_s: float,
    grader: Grader,
    thinking: bool | None = False,
    execute: Executor = run_python,
    max_tokens: int | None = None,
) -> CaseResult:
    """Ask, then grade one case (the caller decided it is applicable); ``grader`` grades
    its answer unless it is a unit test (the run's: ``run_cases``)."""
    started = time.monotonic()
    deadline = asyncio.timeout(timeout_s)
    asking = ASKED.set(Asked(case, deadline))
    try:
        async with deadline:
            payload = await ask_one(request_body(case, endpoint, thinking, max_tokens))
        answer, tokens = parse_answer(payload)
    except TimeoutError:
        return _error(case, "timeout", f"no reply within {timeout_s:g}s")
    except TransportProblem as exc:
        return _error(case, "transport", str(exc))
    finally:
        ASKED.reset(asking)
    latency = round(time.monotonic() - started, 4)
    try:
        if evaluator_of(case) == "unit_test":
            async with sandbox_slots():
                verdict = await asyncio.to_thread(grade, case, answer, execute)
        else:
            verdict = await grader.grade(case, answer)
    except GradingTimedOut as exc:
        log.warning("case %s: %s; its grading process was killed", case.id, exc)
        return _error(case, "grader", f"{exc} (a regex that backtracks?): stopped")
    except GradingFailed as exc:
        log.error("grading %s failed: %s\n%s", case.id, exc.name, exc.details)
        return _error(case, "grader", f"grading failed: {exc.name}")
    except NotRun as exc:  # before SandboxUnavailable, which it is
        return _error(case, "sandbox", f"not run: {exc}")
    except SandboxUnavailable as exc:
        return _error(case, "sandbox", f"the sandbox could not start: {exc}")
    except CaseProblem as exc:  # the suite's mistake: neither a pass nor the model's failure
        return _error(case, "case", f"the case cannot be graded: {exc}")
    except Exception as exc:  # a grader bug must cost this case, not the whole run
        log.exception("grading %s failed", case.id)
        return _error(case, "grader", f"grading failed: {type(exc).__name__}")
    detail = verdict.reason
    if max_tokens is not None and max_tokens < case.max_tokens and not verdict.passed:
        detail += f" (max_tokens cut from {case.max_tokens} to {max_tokens} by the context window)"
    return CaseResult(
        id=case.id,
        suite=case.suite,
        difficulty=case.difficulty,
        status="pass" if verdict.passed else "fail",
        failure_kind=verdict.failure_kind,
        detail=detail,
        latency_s=latency,
        answer=answer.text[:ANSWER_CHARS],
        evaluator=case.evaluator,
        tool_calls=answer.tool_calls,
        completion_tokens=tokens,
    )


def gate(case: Case, caps: Capabilities) -> str | None:
    """Why a case is N/A here: a missing capability or a grader we do not have."""
    reason = not_applicable(case, caps)
    if reason is None and evaluator_of(case) not in SUPPORTED:
        reason = f"unsupported evaluator {evaluator_of(case)!r}"
    return reason


async def run_cases(
    cases: Sequence[Case],
    endpoint: Endpoint,
    concurrency: int = 8,
    timeout_s: float = 120.0,
    *,
    thinking: bool | None = False,
    capabilities: Capabilities | None = None,
    execute: Executor = run_python,
    on_result: Callable[[CaseResult], None] | None = None,
    client: httpx.AsyncClient | None = None,
    ask_one: Ask | None = None,
    grader: Grader | None = None,
) -> list[CaseResult]:
    """Run ``cases`` against ``endpoint``, at most ``concurrency`` requests in flight.

    Results come back in the order of ``cases``. ``on_result`` is called as each finishes
    (progress bars, live metrics). Pass ``client`` to reuse a pooled ``httpx.AsyncClient``,
    ``ask_one`` to send each body some other way, ``grader`` to grade in a grading process
    that outlives the run (the canary's; without one, the run starts its own and kills it
    as it ends).
    """
    caps = capabilities or Capabilities()
    results: list[CaseResult | None] = [None] * len(cases)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(len(cases)):
        queue.put_nowait(index)
    owned: httpx.AsyncClient | None = None  # a client made here, closed here
    grading = grader or Grader()
    own_grader = None if grading is grader else grading  # likewise
    send: Ask
    if ask_one is not None:
        send = ask_one
    else:
        if client is None:
            limits = httpx.Limits(
                max_connections=concurrency, max_keepalive_connections=concurrency
            )
            client = owned = httpx.AsyncClient(
                timeout=httpx.Timeout(timeout_s), limits=limits, trust_env=not endpoint.direct
            )
        send = functools.partial(ask, client, endpoint)

    async def worker() -> None:
        while not queue.empty():
            index = queue.get_nowait()
            case = cases[index]
            reason = gate(case, caps)
            if reason is not None:
                result = _skip(case, reason)
            else:
                budget = answer_budget(case, caps)
                result = await run_case(
                    send, case, endpoint, timeout_s, grading, thinking, execute, budget
                )
            results[index] = result
            if on_result is not None:
                on_result(result)

    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(max(1, min(concurrency, len(cases)))):
                group.create_task(worker())
    finally:
        if owned is not None:
            await owned.aclose()
        if own_grader is not None:
            await own_grader.aclose()
    return [r for r in results if r is not None]
