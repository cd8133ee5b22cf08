"""The error a plan answers with when every attempt failed (`Dispatcher.execute`): the most
meaningful of its attempts' errors, carrying the soonest wait any backend named. A plan
whose every backend was skipped, nothing tried, is refused as `router.refusals` says.
"""

from __future__ import annotations

import math
from typing import TypeVar

from router.attempt_errors import (
    Overloaded,
    RateLimited,
    RouterFault,
    Timeout,
    Unreachable,
    UpstreamError,
)
from router.backend_refused import BackendRefused
from router.policy import SHORT_WAIT_S, Plan
from router.refusals import passed_over

# How much of another backend's error a failed plan's 5xx repeats
BRIEF_CHARS = 160


def most_meaningful(errors: list[UpstreamError]) -> UpstreamError:
    """The error the client is told (`_chosen`), a backend's 5xx naming that backend
    (`named`) and, briefly, how each other backend tried failed (`with_others`), marked
    `deadline_met` when a deadline ended any of the attempts, whichever error is told: a
    backend that hung, then another's 500, is still a hang the client's retry would wait
    out again (`router.api.errors.error_headers`)."""
    error = with_others(named(_chosen(errors)), errors)
    error.deadline_met = any(isinstance(e, Timeout) for e in errors)
    return error


def with_passed_over(error: UpstreamError, plan: Plan) -> UpstreamError:
    """`error`, a failure the plan would have moved on after (a 5xx, a 429), saying which
    backends it passed over for vLLM's own field and why (`refusals.passed_over`): with
    local down, a `structured_outputs` request was told local's 502 alone, and the cloud's
    absence read as a bug of the router's. A verdict of the backend's own (a 4xx: the
    constraint malformed, the prompt too long) keeps its words."""
    said = passed_over(plan)
    if said and error.retryable and (error.status >= 500 or error.status == 429):
        error.message += said
        error.args = (error.message,)
    return error


def named(error: UpstreamError) -> UpstreamError:
    """`error`, its message starting with its backend's name when it is a backend's 5xx, as
    the router's own words for one do ("local: stream broke ..."): a 500 from local after a
    503 from the cloud told the client "Internal Server Error", which named neither (found
    in review). Once: a message that names the backend so already keeps its words. Not a
    refusal of the router (`BackendRefused` names its backend in its own words) nor a bug
    of ours (`RouterFault`), nor a 4xx, passed through in the backend's words; the
    `x-smf-backend` header names the backend of any (`router.api.front.decision_headers`)."""
    name = error.backend
    if error.status < 500 or not name or isinstance(error, BackendRefused | RouterFault):
        return error
    if not error.message.startswith(f"{name}: "):
        error.message = f"{name}: {error.message}"
        error.args = (error.message,)
    return error


def with_others(error: UpstreamError, errors: list[UpstreamError]) -> UpstreamError:
    """`error`, a backend's 5xx that `named` named, followed by each other backend's last
    failure, named and cut to `BRIEF_CHARS` ("local: Internal Server Error; cloud: Internal
    Server Error"): both backends answering 500 told the client "local: Internal Server
    Error" alone, and the cloud's failure read as a cloud never tried (found in a live
    review with grok-cli). Each message was cleaned of secrets when its error was made
    (`router.attempt_errors.UpstreamError`). Its `code` and `type` stay the chosen one's;
    a 4xx or a 429 keeps its own words, as `named` leaves them."""
    chosen = error.backend
    if error.status < 500 or not chosen or isinstance(error, BackendRefused | RouterFault):
        return error
    others = {e.backend: e for e in errors if e.backend and e.backend != chosen}
    if others:
        error.message += "".join(f"; {_brief(e)}" for e in others.values())
        error.args = (error.message,)
    return error


def _brief(error: UpstreamError) -> str:
    """`error`'s message, starting with its backend's name once, at most `BRIEF_CHARS`."""
    name = error.backend
    said = error.message if error.message.startswith(f"{name}: ") else f"{name}: {error.message}"
    return said if len(said) <= BRIEF_CHARS else said[: BRIEF_CHARS - 3] + "..."


def _chosen(errors: list[UpstreamError]) -> UpstreamError:
    """A rate limit if any backend asked to wait (retrying later may well succeed), else
    the first error that carries an upstream verdict, else the first error.

    A rate limit or an overload carries the soonest time any rate-limited or overloaded
    backend said it would take a request again, so the client's SDK waits that long before
    its own retry (`router.api.errors.error_headers`): a rate limit chosen over a backend
    overloaded for 3 s told the client the other's 600 s (or no wait at all), though it may
    come back when either may take it. A long wait only when no such backend
    named none (`_soonest`), whichever came first."""
    limited = [e for e in errors if isinstance(e, RateLimited)]
    if limited:
        return _soonest(limited[0], errors)
    for error in errors:
        if isinstance(error, Overloaded):
            return _soonest(error, errors)
        if not isinstance(error, Unreachable | Timeout):
            return error
    return errors[0]


_Waiting = TypeVar("_Waiting", RateLimited, Overloaded)


def _soonest(chosen: _Waiting, errors: list[UpstreamError]) -> _Waiting:
    """`chosen`, with the soonest wait any rate limit or overload of `errors` named.

    Decided on the set, never on which error came first: when one of them named no wait
    (it may take a request any moment), another's wait is told only if short (whole
    seconds under `SHORT_WAIT_S`, the SDKs' `SDK_WAIT_S`, as `retry-after` would show it),
    as `router.policy` does for skipped backends; else none is. A 429 naming none, beside a
    backend overloaded for 90 s, went out with retry-after 90 and `x-should-retry: false`,
    and the SDKs gave up where they had retried with their own backoff (found in review);
    and the same two backends in the other order told the client different things (a 429
    with no wait, or "wait 90 s, do not retry": found in re-review). An overload told no
    wait says `x-should-retry: false`; told another's short wait, that wait and `true`.

    Only each backend's latest such answer counts: after a short 429 the same backend is
    retried, and a first 0.5 s then a second 90 s told the client 0.5 s, though the backend
    had since said 90 (found in re-review)."""
    latest = {
        e.backend or id(e): e for e in errors if isinstance(e, RateLimited | Overloaded)
    }  # the last per backend; one unnamed (never from `execute`) stands alone
    waiting = list(latest.values())
    waits = [e.retry_after for e in waiting if e.retry_after is not None]
    soonest = min(waits, default=None)
    if soonest is not None and len(waits) < len(waiting) and math.ceil(soonest) >= SHORT_WAIT_S:
        soonest = None  # one may take a request any moment: no long wait is told
    chosen.retry_after = soonest
    return chosen
