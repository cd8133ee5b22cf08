"""The runner: asks an OpenAI-compatible endpoint every case, with bounded concurrency.

``run_cases`` is what the router's canary scheduler calls. Transport problems (connection
refused, HTTP errors, timeouts, unparsable replies) are ``error``, never ``fail``: a down
backend is not a quality signal. Unit-test grading runs in the sandbox on a worker thread,
at most one program per CPU at once (``SANDBOX_SLOTS``), whatever the request concurrency.
Cases go over HTTP unless the caller passes its own ``ask`` (the canary does for backends
the router reaches through litellm).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from evals.applicability import Capabilities, answer_budget, not_applicable
from evals.asked import ASKED, Asked
from evals.graders import SUPPORTED, Answer, CaseProblem, Executor, evaluator_of, grade
from evals.results import CaseResult
from evals.sandbox import SandboxUnavailable, run_python
from evals.suite import Case
from evals.urls import joined, openai_hosted

ANSWER_CHARS = 4000
"""Answers are stored clipped: enough to read a failure, not a full transcript."""

Ask = Callable[[dict[str, Any]], Awaitable[Any]]
"""One chat-completions body in, the parsed completion out; raises ``TransportProblem``."""


@dataclass(frozen=True)
class Endpoint:
    """Where to send cases. ``extra_body`` is merged into every request body."""

    base_url: str
    model: str
    api_key: str | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)


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


class TransportProblem(Exception):
    """The endpoint did not give a usable reply (the case counts as ``error``).

    ``timed_out``: it gave none in time, whoever noticed (a client's own timeout, a proxy's
    504, a 408): not a quick failure such as a refused connection (the canary tells them
    apart, `router.canary_bound`). ``status`` and ``reply``: the HTTP error status and body
    it answered with, if it did, which the canary's spans name the error by as the router
    names a live attempt's (`router.canary_spans`): with the message alone, "transport".
    ``began``: the 200 and its headers came and the body then broke off (the router's
    ``cut``, not ``unreachable``: the backend was reached and started answering)."""

    def __init__(
        self,
        message: str,
        *,
        timed_out: bool = False,
        status: int | None = None,
        reply: bytes = b"",
        began: bool = False,
    ) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        self.status = status
        self.reply = reply
        self.began = began


NO_REPLY_IN_TIME = frozenset({408, 504})
"""HTTP statuses that say the reply did not come in time (a proxy's or the server's own)."""


def request_body(
    case: Case,
    endpoint: Endpoint,
    thinking: bool | None = False,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """The chat-completions body for one case; ``thinking=None`` sends no template switch,
    ``max_tokens`` replaces the case's own (cut to fit a context window).

    The endpoint's ``extra_body`` is a set of defaults, as for live traffic: the case's own
    settings win (a backend default of ``max_tokens: 4096`` must not undo the cut to fit a
    window, nor a default temperature change what the case is graded at)."""
    body: dict[str, Any] = dict(endpoint.extra_body)
    limit = "max_completion_tokens" if openai_hosted(endpoint.base_url) else "max_tokens"
    for name in ("max_tokens", "max_completion_tokens"):  # the backend's defaults: the case's
        body.pop(name, None)  # own limit wins (vLLM reads `max_completion_tokens` first)
    body.update(
        model=endpoint.model,
        messages=[{"role": "user", "content": case.prompt}],
        temperature=case.temperature,
        stream=False,
    )
    body[limit] = max_tokens or case.max_tokens
    if case.tools:
        body["tools"] = case.tools
    if thinking is not None:
        kwargs = dict(body.get("chat_template_kwargs") or {})
        kwargs["enable_thinking"] = thinking
        body["chat_template_kwargs"] = kwargs
    return body


UNFINISHED = frozenset({"abort", "error", "insufficient_system_resource"})
"""Finish reasons that say the server stopped the answer, not the model: vLLM's and SGLang's
"abort" (the engine dropped the request: shutdown, sleep mode, scale-down), vLLM's "error",
DeepSeek's "insufficient_system_resource". The router's ``upstream_errors.UNFINISHED``."""


def parse_answer(payload: Any) -> tuple[Answer, int | None]:
    """Content, reasoning and tool calls from a chat completion; raises on a malformed one,
    and on one the server stopped (``UNFINISHED``): graded, an engine abort's cut answer was
    the model's failure, and the canary closed a route's gate on a backend restarting. A
    ``finish_reason`` other than text or null is a malformed completion.

    Content given as a list of parts (some servers do) is their text joined."""
    try:
        choice = payload["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise TransportProblem(f"malformed completion: {exc!r}") from exc
    if not isinstance(message, dict):
        raise TransportProblem(f"malformed completion: message is {type(message).__name__}")
    reason = choice.get("finish_reason")
    if not isinstance(reason, str | None):  # a list raised TypeError at `in`: the run ended
        raise TransportProblem(f"malformed completion: finish_reason is {type(reason).__name__}")
    if reason in UNFINISHED:
        raise TransportProblem(f"the answer was stopped (finish_reason {reason!r})")
    calls = well_formed(message.get("tool_calls") or [])
    if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
        raise TransportProblem("malformed completion: tool_calls is not a list of objects")
    usage = payload.get("usage")
    tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
    answer = Answer(
        content=_text(message.get("content"), "content"),
        reasoning=_text(message.get("reasoning") or message.get("reasoning_content"), "reasoning"),
        tool_calls=calls,
    )
    return answer, tokens if isinstance(tokens, int) else None


def _text(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return well_formed_text(value)
    if isinstance(value, list):
        texts = [p.get("text") for p in value if isinstance(p, dict)]
        return well_formed_text("".join(t for t in texts if isinstance(t, str)))
    raise TransportProblem(f"malformed completion: {name} is {type(value).__name__}")


def well_formed_text(text: str) -> str:
    """``text`` with every unpaired surrogate replaced by U+FFFD. JSON may escape half a
    pair (``"\\ud83d"``, a model cut mid-emoji) and Python's parser keeps it: such text
    cannot be encoded as UTF-8, so printing or saving the answer failed."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def well_formed(value: Any) -> Any:
    """Parsed JSON with ``well_formed_text`` applied to every string in it."""
    if isinstance(value, str):
        return well_formed_text(value)
    if isinstance(value, list):
        return [well_formed(v) for v in value]
    if isinstance(value, dict):
        return {well_formed(k): well_formed(v) for k, v in value.items()}
    return value


async def ask(client: httpx.AsyncClient, endpoint: Endpoint, body: dict[str, Any]) -> Any:
    """POST one completion; any failure to get a 200 JSON reply is a ``TransportProblem``.

    The status and headers are awaited apart from the body, so a body that breaks off after
    them says so (``began``): read in one step, it looked like a refused connection."""
    headers = dict(endpoint.headers)
    if endpoint.api_key:
        headers["authorization"] = f"Bearer {endpoint.api_key}"
    url = joined(endpoint.base_url, "/chat/completions")
    began = False
    try:
        async with client.stream("POST", url, json=body, headers=headers) as response:
            began = True
            await response.aread()
    except httpx.HTTPError as exc:
        late = isinstance(exc, httpx.TimeoutException)
        said = f"{type(exc).__name__}: {exc}"[:300]
        raise TransportProblem(said, timed_out=late, began=began) from exc
    if response.status_code != 200:
        late = response.status_code in NO_REPLY_IN_TIME
        raise TransportProblem(
            f"HTTP {response.status_code}: {response.text[:200]}",
            timed_out=late,
            status=response.status_code,
            reply=response.content,
        )
    try:
        return response.json()
    except ValueError as exc:
        raise TransportProblem("reply is not JSON") from exc


def served_context_window(endpoint: Endpoint, timeout_s: float = 10.0) -> int | None:
    """``max_model_len`` from the endpoint's ``/v1/models`` card for its model (vLLM gives
    one; most clouds do not): None when the endpoint does not say."""
    url = joined(endpoint.base_url, "/models")
    headers = {"authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    try:
        response = httpx.get(url, headers=headers, timeout=timeout_s)
        cards = response.json().get("data") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return window_of(cards, endpoint.model)


def window_of(cards: Any, model: str) -> int | None:
    """The card for `model` (or the only card) in a `/v1/models` list, and its
    `max_model_len`. The router learns its backends' windows with it too."""
    if not isinstance(cards, list):
        return None
    cards = [c for c in cards if isinstance(c, dict)]
    chosen = [c for c in cards if c.get("id") == model] or (cards if len(cards) == 1 else [])
    value = chosen[0].get("max_model_len") if chosen else None
    return value if isinstance(value, int) and value > 0 else None


def _skip(case: Case, reason: str) -> CaseResult:
    return CaseResult(
        case.id, case.suite, case.difficulty, "n/a", None, reason, evaluator=case.evaluator
    )


ErrorKind = Literal["timeout", "transport", "sandbox", "case", "grader"]
"""Why a case was not graded: no reply in time, no usable reply, no sandbox, a case that
cannot be graded as written, a grader that raised. Reports count them apart from failures."""


def _error(case: Case, kind: ErrorKind, detail: str) -> CaseResult:
    return CaseResult(
        case.id, case.suite, case.difficulty, "error", kind, detail, evaluator=case.evaluator
    )


async def run_case(
    ask_one: Ask,
    case: Case,
    endpoint: Endpoint,
    timeout_s: float,
    thinking: bool | None = False,
    execute: Executor = run_python,
    max_tokens: int | None = None,
) -> CaseResult:
    """Ask, then grade one case (the caller decided it is applicable)."""
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
            verdict = grade(case, answer)
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
) -> list[CaseResult]:
    """Run ``cases`` against ``endpoint``, at most ``concurrency`` requests in flight.

    Results come back in the order of ``cases``. ``on_result`` is called as each finishes
    (progress bars, live metrics). Pass ``client`` to reuse a pooled ``httpx.AsyncClient``,
    or ``ask_one`` to send each body some other way.
    """
    caps = capabilities or Capabilities()
    results: list[CaseResult | None] = [None] * len(cases)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(len(cases)):
        queue.put_nowait(index)
    owned: httpx.AsyncClient | None = None  # a client made here, closed here
    send: Ask
    if ask_one is not None:
        send = ask_one
    else:
        if client is None:
            limits = httpx.Limits(
                max_connections=concurrency, max_keepalive_connections=concurrency
            )
            client = owned = httpx.AsyncClient(timeout=httpx.Timeout(timeout_s), limits=limits)
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
                result = await run_case(send, case, endpoint, timeout_s, thinking, execute, budget)
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
    return [r for r in results if r is not None]
