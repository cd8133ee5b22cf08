"""One place that renders every error in OpenAI's envelope, with the right status."""

from __future__ import annotations

import logging
import math

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException

from router import request as req
from router.api import unserved
from router.api.anthropic_paths import anthropic_path
from router.api.headers import request_headers
from router.attempt_errors import (
    Overloaded,
    RateLimited,
    UpstreamError,
)
from router.errors import (
    BadRequest,
    BodyTimeout,
    RouterError,
    ShuttingDown,
    UnsupportedEncoding,
    internal_error,
)
from router.policy import SHORT_WAIT_S
from router.translate.events import anthropic_error_body

log = logging.getLogger("smf_router")


# The longest `Retry-After` an SDK is told to sleep through on its own. A longer wait is not
# for a client library to spend silently, with the agent and its user none the wiser: the
# Anthropic SDKs and the OpenAI TypeScript SDK (6.x) sleep whatever it says (a canary's 15
# minutes, twice), and the OpenAI Python SDK refuses one over 2 minutes. (That TypeScript
# SDKs ignore one of 60 s or more and retry at once holds for older releases: openai-node 4.)
SDK_WAIT_S = SHORT_WAIT_S  # `router.policy` tells a short wait beside unknown ones too


def error_response(error: RouterError, headers: dict[str, str] | None = None) -> Response:
    return Response(
        error.json(),
        status_code=error.status,
        media_type="application/json",
        headers=error_headers(error, headers),
    )


def error_headers(error: RouterError, headers: dict[str, str] | None = None) -> dict[str, str]:
    """The headers an error answer carries besides its content type and length.

    The router already tried every fallback, so an SDK retrying at once is futile when the
    same failure would come again: a deadline waited out, a refusal
    (`router.plan_error.all_failed_fast`: a plan whose every attempt failed fast, a 5xx
    answer, a reset or an overload naming no wait, is left to the SDK's own 5xx rule)
    — except after a rate limit, where waiting is the cure: the client's SDK retries 429s on its own
    and honours `retry-after-ms`/`retry-after`, the soonest any rate-limited or overloaded
    backend named (`router.dispatch`: the client may come back when any backend may take
    it); after an overload whose backend named a wait (providers and proxies that send
    `Retry-After` with their 503; vLLM's queue-full 503 names none, and is left to the
    SDK's 5xx rule as above), told the same way (the soonest; dropped, the client was told
    never to retry); when the router is stopping,
    where another replica (or this one restarted) is the cure; and when every backend was
    skipped for a while (a circuit open, a quality gate; a 429's wait alone answers a 429,
    `RateLimitedBackends`) and the router knows when one may serve again (no
    `retry-after-ms`: a circuit that has just half-opened still waits for its trial), as
    for any refusal of its own that says when (`RouterError.retry_after`: the report
    endpoint's slots all taken). One rule for the three (`_should_retry`): a
    wait whose whole seconds, as `retry-after` says it, are under `SDK_WAIT_S` is the SDK's
    to wait out, a longer one is the agent's or its user's to wait for, or not — a 429's
    too, which the SDKs would otherwise sleep through silently (below it a 429 gets no
    `x-should-retry`: the SDK retries it anyway).

    An overload's wait is at least 1 s (`Overloaded`), as the router's own 503 says: with
    it comes `x-should-retry: true`, the router's word that retrying an exhausted plan is
    worth it, and a backend's `Retry-After: 0` (or a date past) told that an exhausted plan
    may be retried at once. A 429's is passed on as named, under a second too (a backend's
    limit may well refill in 600 ms): the SDKs retry a 429 whatever it says, and wait their
    own backoff for a wait of 0, as for none.

    A refusal of the router's own that a retry cannot change (`FINAL`: a wrong key, a body
    or model it refuses) says `x-should-retry: false` too."""
    out = dict(headers or {})
    if isinstance(error, BodyTimeout):
        out["connection"] = "close"  # the rest of the body must not be read as a request
    elif isinstance(error, UnsupportedEncoding):
        out["accept-encoding"] = "identity"  # RFC 9110 15.5.16: the codings it would take
    if isinstance(error, RateLimited | Overloaded) and error.retry_after is not None:
        seconds = math.ceil(error.retry_after)  # 59.4 goes out as 60: not for the SDK
        out["retry-after-ms"] = str(round(error.retry_after * 1000))
        out["retry-after"] = str(seconds)
        if isinstance(error, Overloaded) or seconds >= SDK_WAIT_S:
            out["x-should-retry"] = _should_retry(seconds)
    elif isinstance(error, RateLimited):
        pass  # the SDK retries a 429 on its own
    elif isinstance(error, UpstreamError):
        if not error.all_failed_fast:  # some attempt of the plan did not fail fast
            out["x-should-retry"] = "false"
    elif isinstance(error, ShuttingDown):
        out["x-should-retry"] = "true"  # nothing was wrong with the request
    elif error.retry_after is not None:  # `NoBackendAvailable`, the reports' slots taken
        seconds = math.ceil(error.retry_after)
        out["retry-after"] = str(seconds)
        if error.status != 429 or seconds >= SDK_WAIT_S:
            out["x-should-retry"] = _should_retry(seconds)
    elif error.status in FINAL:
        out["x-should-retry"] = "false"
    return out


# The router's own refusals that the same request, sent again, always gets again: a body,
# model or path it refuses, a key it does not hold or that may not do this. The SDKs honour
# `x-should-retry` before their status rules (openai-python, anthropic-sdk-python and their
# TypeScript twins alike); Claude Code's own rule then retries a 401, thinking its key may
# be refreshed: a wrong router key kept it retrying for minutes before it told its user
# (found in review, Claude Code 2.1.197). Not 408 (a body that stopped arriving may arrive
# whole next time), 409, 429 or a 5xx: the SDKs rightly retry those.
FINAL = frozenset({400, 401, 403, 404, 405, 413, 415, 422, 431})


def _should_retry(seconds: int) -> str:
    """`x-should-retry` for a wait told as `retry-after: seconds`: the SDK's own to wait out
    only under `SDK_WAIT_S`."""
    return "true" if seconds < SDK_WAIT_S else "false"


def shaped_response(request: Request, error: RouterError) -> Response:
    """`error_response`, in Anthropic's envelope on its API's paths (Claude Code reads it).
    Every such answer is the router's own refusal, so it is counted, as `other`: the model
    APIs' own refusals are answered (and recorded) in the front, `router.api.front`. Its
    `x-request-id` is the client's own when valid, else a new one, as on every error reply
    (no record holds it: these paths record no request); on Anthropic's paths it goes out
    as `request-id` too (`router.api.anthropic_paths`)."""
    components = getattr(request.app.state, "components", None)
    if components is not None:
        components.metrics.rejected_request("other", error.status)
    headers = {"x-request-id": req.request_id(request_headers(request.scope))}
    response = error_response(error, headers)
    if anthropic_path(request.url.path):
        response.body = anthropic_error_body(error)
        response.headers["content-length"] = str(len(response.body))
    return response


POSTED = (
    "/v1/chat/completions",
    "/v1/completions",
    "/v1/responses",
    "/v1/responses/input_tokens",
    "/v1/messages",
    "/v1/messages/count_tokens",
)
SERVED = f"POST {', '.join(POSTED)}; GET /v1/models, /v1/models/{{name}}"
_PATHS = frozenset((*POSTED, "/v1/models"))


def no_such_endpoint(request: Request) -> str:
    """A 404 that says what is served, and when the path is a served one with `/v1` missing
    or doubled, that the base URL is wrong: an agent configured with one base URL for all
    its APIs (Continue's embeddings, say) got "Not Found", which says neither."""
    path = request.url.path
    meant = "/v1" + path.removeprefix("/v1/v1") if path.startswith("/v1/v1/") else "/v1" + path
    if path.startswith("/v1/v1/messages"):  # an Anthropic SDK adds /v1 to its base URL itself
        return (
            f"smf-router does not serve {request.method} {path}: an Anthropic client's base"
            " URL must not end in /v1 (ANTHROPIC_BASE_URL=http://host:port; this request"
            f" would then be {meant})."
        )
    if meant in _PATHS or meant.startswith("/v1/models/"):
        return (
            f"smf-router does not serve {request.method} {path}: check the client's base URL,"
            f" which should end in /v1 (this request would then be {meant})."
        )
    if path.startswith("/v1/responses/"):  # not another API: the rest of this one
        return (
            f"smf-router does not serve {request.method} {path}: of the Responses API it"
            " serves POST /v1/responses and POST /v1/responses/input_tokens only. A stored"
            " response is not retrieved, cancelled, deleted or compacted through the router;"
            " continue one with previous_response_id, or send the whole input again."
        )
    return (
        f"smf-router does not serve {request.method} {path}; it routes {SERVED}."
        " Point clients of other APIs (embeddings, audio, images) at a backend directly."
    )


def wrong_method(request: Request, allowed: str) -> str:
    """A 405 that names the method, the path and the methods the path takes (`allowed`, the
    route's `Allow`): Starlette's "Method Not Allowed" said none of them. A WebSocket
    upgrade of `/v1/responses` (the `openai` SDK's `responses.connect()`, the OpenAI Agents
    SDK's `set_default_openai_responses_transport("websocket")`) is told that the router
    serves Responses over HTTP only: the client's transport is the thing to change, not
    its base URL (found in a live run of openai 3.63 and openai-agents 0.24)."""
    path, method = request.url.path, request.method
    if responses_websocket(request):
        return (
            "smf-router serves the Responses API over HTTP only (POST /v1/responses), not over"
            " a WebSocket: use the client's default HTTP transport (not the openai SDK's"
            " responses.connect(), nor the OpenAI Agents SDK's websocket transport)."
        )
    return f"smf-router does not serve {method} {path}: it takes {allowed or 'no method'} there."


def responses_websocket(request: Request) -> bool:
    """Whether `request` is a WebSocket upgrade of `/v1/responses` (`wrong_method`)."""
    upgrade = request.headers.get("upgrade", "").lower()
    return request.url.path == "/v1/responses" and "websocket" in upgrade


# The operator's line for it (`unserved.Unserved.seen`): not "another base URL", as for any
# other unserved request, where the 405's body says its transport is the thing to change
WEBSOCKET_ADVICE = "it serves Responses over HTTP only; the client must use its HTTP transport"


def install(app: FastAPI) -> None:
    async def router_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RouterError)
        return shaped_response(request, exc)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        unrouted = exc.status_code == 404 and exc.detail == "Not Found"
        if unrouted or exc.status_code == 405:  # the operator hears of it, sparingly
            caller = unserved.caller_name(request.app.state.auth, request_headers(request.scope))
            advice = WEBSOCKET_ADVICE if responses_websocket(request) else None
            unserved.LINES.seen(request.method, request.url.path, exc.status_code, caller, advice)
        allowed = (exc.headers or {}).get("Allow", "")
        if unrouted:
            message = no_such_endpoint(request)
        elif exc.status_code == 405:
            message = wrong_method(request, allowed)
        else:
            message = str(exc.detail)
        error = RouterError(message)
        error.status, error.type = exc.status_code, "invalid_request_error"
        error.code = "not_found" if exc.status_code == 404 else None
        response = shaped_response(request, error)
        if exc.status_code == 405 and allowed:  # RFC 9110 15.5.6: a 405 says what is allowed
            response.headers["allow"] = allowed
        return response

    async def validation_error(request: Request, exc: Exception) -> Response:
        return shaped_response(request, BadRequest(f"invalid request: {exc}"))

    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s", request.url.path)
        return shaped_response(request, internal_error())

    app.add_exception_handler(RouterError, router_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(Exception, unexpected)
