"""The canary's calls as trace spans: one root client span per case asked.

Each span is a trace of its own (`Tracing.start_call`), `smf.traffic` "canary", naming the
backend as an attempt span does and the case by its suite and id (`smf.canary.suite`,
`smf.canary.case_id`), never by its prompt: a Tempo query tells the canary's load on a
backend from live traffic, and finds the call of a case that failed. A failed call's
`error.type` is the kind a live attempt's span would say (`rate_limited`, `overloaded`,
`unreachable`, `cut`, ...: `problem_kind`); all of them said "transport". So is a 200 the
engine stopped or that has no readable answer (`stopped_kind`), which the ledger counts as
an error too. The reply's finish reasons are `gen_ai.response.finish_reasons`, as on a live
attempt's span (they said none: a `length` answer looked like any other). With tracing off
the send is handed back as it is: no cost per case.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from evals.asked import ASKED
from evals.endpoint import Ask, TransportProblem, parse_answer
from router.attempt_errors import Cut, Malformed, Timeout, Unreachable, UpstreamError
from router.config import Backend as BackendSettings
from router.ledger.usage import usage_of
from router.reply_checks import misshapen, unfinished
from router.span_attributes import finish_attributes, usage_attributes
from router.tracing import Tracing
from router.translate.wire import finish_reasons
from router.upstream_errors import classify_error


def traced(tracing: Tracing, backend: BackendSettings, send: Ask) -> Ask:
    """`send` with a span around each call; the case comes from the runner (`ASKED`)."""
    if not tracing.enabled:
        return send

    async def sending(body: dict[str, Any]) -> Any:
        asked = ASKED.get()
        named = (
            {}
            if asked is None
            else {"smf.canary.suite": asked.case.suite, "smf.canary.case_id": asked.case.id}
        )
        span = tracing.start_call("canary", backend, named)
        error: str | None = "cancelled"  # the round's end, a stop (or a bug's BaseException)
        payload: Any = None
        try:
            payload = await send(body)
            error = stopped_kind(payload, backend.name)
        except TransportProblem as problem:
            error = problem_kind(problem, backend.name)
            raise
        except TimeoutError:
            error = "timeout"
            raise
        except asyncio.CancelledError:
            # the case's own timeout cancels the send too: "timeout", as its ledger row says
            error = "timeout" if asked is not None and asked.timed_out() else "cancelled"
            raise
        except Exception as exc:
            error = type(exc).__name__
            raise
        finally:
            usage = usage_of("chat", payload.get("usage")) if isinstance(payload, dict) else None
            said = finish_attributes(finish_reasons(payload))  # "abort" beside its `cut`
            tracing.end(span, {**usage_attributes(usage), **said}, error)
        return payload

    return sending


def stopped_kind(payload: Any, backend: str) -> str | None:
    """The kind of a 200 reply no answer can be read from, as a live attempt names it (an
    engine's `abort`: `cut`; choices that are not objects: `malformed`), else None. The
    runner counts such a reply an error once the send has returned (`parse_answer`): the
    span ended OK beside a ledger row that says error. What the runner cannot read (no
    `message`, content that is not text, and no `choices`, which the live path fails as
    `malformed` too: `reply_checks.no_answer`) is `malformed` (found in re-review)."""
    if isinstance(payload, dict):
        stopped = misshapen(payload, backend, "message") or unfinished(payload, backend)
        if stopped is not None:
            return stopped.kind
    try:
        parse_answer(payload)
    except TransportProblem:
        return Malformed.kind
    return None


def problem_kind(problem: TransportProblem, backend: str) -> str:
    """What failed, as a live attempt's span names it: the adapter's own kind (a litellm
    backend's), else the HTTP error status's as the router classifies a backend's (a 429
    `rate_limited`, a 503 `overloaded`, another 5xx `server_error`), else the transport's
    (no reply in time, no connection, a reply broken off after its headers, a reply that is
    not JSON)."""
    cause = problem.__cause__
    if isinstance(cause, UpstreamError):
        return cause.kind
    if problem.status is not None:
        return classify_error(problem.status, problem.reply, {}, backend).kind
    if problem.timed_out:
        return Timeout.kind
    if isinstance(cause, httpx.TransportError):  # refused, reset or closed before a reply,
        return Cut.kind if problem.began else Unreachable.kind  # or broken off after it began
    if isinstance(cause, ValueError):  # a 200 whose body is not JSON
        return Malformed.kind
    return "transport"
