"""The error a plan answers with when every attempt failed (`Dispatcher.execute`): the most
meaningful of its attempts' errors, carrying the soonest wait any backend named. A plan
whose every backend was skipped, nothing tried, is refused as `router.refusals` says.
"""

from __future__ import annotations

import math
from typing import TypeVar

from router.attempt_errors import (
    Cut,
    Malformed,
    Overloaded,
    RateLimited,
    RouterFault,
    ServerError,
    Timeout,
    Uncarried,
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
    `all_failed_fast` from every attempt, whichever error is told
    (`router.api.errors.error_headers`). A chat backend's refusal of a type it cannot be
    sent (`Uncarried`) is told only when every attempt was one: a native backend that failed
    otherwise could have served the request, and its failure is what the client may retry."""
    judged = [e for e in errors if not isinstance(e, Uncarried)] or errors
    error = with_others(named(_chosen(judged)), errors)
    error.all_failed_fast = all_failed_fast(judged)
    return error


def all_failed_fast(errors: list[UpstreamError]) -> bool:
    """Whether the plan's error is left to the client SDK's own 5xx rule (no
    `x-should-retry`: retry twice with backoff, as against OpenAI's or vLLM's own 500 or
    503): only when every attempt failed fast.

    Decided on the set, never on the error told, as `_soonest` is: local's 500 and the
    cloud's refusal said nothing (the SDK retried) in one order and `false` in the other
    (found in review). `x-should-retry: false` ended the client's call after one transient
    500 from a route's only backend, where against the backend itself the SDK would have
    retried (ragas 0.4.3 scored NaN after one request, found live). A failure that came
    fast is worth a retry a moment later: a backend's 5xx answer (`server_error`: a 504
    from its own proxy too), a connection refused or reset (`unreachable`), a reply cut or
    unreadable before anything reached the client (`cut`, `malformed`). A dead backend
    costs little: the SDK retries twice, and the breaker opens after `failure_threshold`
    failures, the client then told the router's 503 with `retry-after`.

    So is an overload (`overloaded`: a busy backend's 503 or 529, answered at once): one
    naming no wait (vLLM's queue-full 503) said `false`, "nothing to wait for", and the
    SDK gave up after one request where against vLLM itself it retried twice with backoff
    and got past the blip (found live, openai 3.63 and Genkit over openai 4.104). The
    router holds nothing away for it (`router.attempt_errors.asked_wait`: no wait named)
    nor retries a 503 itself, so the SDK's retry reaches the backend, one request per
    backend each, as many as it would send the backend directly; the breaker counts no
    overload (a working backend said "not now"), the SDK's own count bounds them. A wait
    told goes out in its own headers before this is read (`router.api.errors`); one not
    told (a long one beside a backend naming none, `_soonest`) holds its backend away when
    past `retry_after_max_s`, so the retry meets the others.

    Any other attempt makes it `false`: a deadline (`Timeout`: connect, first token, idle,
    stall or total; the router's own, never a backend's), which the retry waits out again,
    minutes of a hung backend per try; a backend refusing the router's key, billing or
    model (`backend_refused`) and a bug of ours (`router_error`), which the same request
    meets again; a 4xx (in-band too). (A rate limit is always the error told, in headers
    of its own.)"""
    return all(e.status >= 500 and isinstance(e, _FAST) for e in errors)


_FAST = (ServerError, Unreachable, Cut, Malformed, Overloaded)


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
    if not _a_backends_5xx(error) or isinstance(error, BackendRefused | RouterFault):
        return error
    if not error.message.startswith(f"{name}: "):
        error.message = f"{name}: {error.message}"
        error.args = (error.message,)
    return error


def with_others(error: UpstreamError, errors: list[UpstreamError]) -> UpstreamError:
    """`error`, a backend's 5xx (named by `named`, or a refusal or a bug of ours in its own
    words), followed by each other backend's last failure, named and cut to `BRIEF_CHARS`
    ("local: Internal Server Error; cloud: Internal Server Error"): both backends answering
    500 told the client "local: Internal Server Error" alone, and the cloud's failure read
    as a cloud never tried (found in a live review with grok-cli); the cloud refusing the
    router's key told its refusal alone, hiding local's 500 (found in re-review). A bug of
    ours keeps `INTERNAL_ERROR` and no exception, the others' failures being the backends'
    own. Each message was cleaned of secrets when its error was made
    (`router.attempt_errors.UpstreamError`). Its `code` and `type` stay the chosen one's;
    a 4xx or a 429 keeps its own words, as `named` leaves them."""
    chosen = error.backend
    if not _a_backends_5xx(error):
        return error
    others = {e.backend: e for e in errors if e.backend and e.backend != chosen}
    if others:
        error.message += "".join(f"; {_brief(e)}" for e in others.values())
        error.args = (error.message,)
    return error


def _a_backends_5xx(error: UpstreamError) -> bool:
    """Whether `error` is a 5xx of a named backend, what `named` and `with_others` add
    words to: a 4xx or a 429 is told in the backend's words alone."""
    return error.status >= 500 and bool(error.backend)


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
    wait is left to the SDK's own 5xx rule when every attempt failed fast
    (`all_failed_fast`), else says `x-should-retry: false`; told another's short wait, that
    wait and `true`.

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
