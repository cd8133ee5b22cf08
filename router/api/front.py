"""The model APIs (chat, completions, Responses, Messages) served as raw ASGI, before FastAPI.

py-spy showed Starlette's per-request layers (ServerErrorMiddleware, ExceptionMiddleware,
AsyncExitStackMiddleware, the body-limit and telemetry middlewares, routing, `Request` and
`Response` objects, and an anyio task group per stream) costing more CPU than the router's
own work on a plain request. Here a POST to a hot path reads its body, answers and streams
with plain ASGI messages; every other request goes on to the FastAPI app unchanged.

Every request here goes the same way: the caller's key, the body limit, classification
and plan, dispatch with fallback, decision headers, the record finished exactly once; one
refused before the gateway took it (its body or model) has a record too
(`router.api.refusal`), except one whose key was refused or that a web page sent: those are
only counted. Errors leave in the API's envelope (OpenAI's; Anthropic's for
Messages), with the record's `x-request-id`; a Codex stream's context-length refusal or 429
leaves in-band, the form Codex acts on (`router.translate.responses_refusal`).
A bug never reaches uvicorn as a traceback: it is logged and answered with a 500 envelope
(or, once a stream has begun, with an in-band error event in the API's shape). Nor does
the end of the shutdown drain: what still runs then is answered with a 503 the client may
retry, or ends in-band. A client that hangs up stops its request's work
(`router.api.hangup`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, MutableMapping
from typing import Any, cast

from router import request as req
from router.api.body import receive_sized
from router.api.errors import error_headers
from router.api.hangup import Reply, watch
from router.api.headers import request_headers
from router.api.refusal import Arrival
from router.attempt_errors import UpstreamError
from router.call import Call, Committed
from router.errors import RouterError, cancellation, internal_error
from router.gateway import Gateway
from router.record import Api
from router.relay import Tally, error_event, relay
from router.translate import events
from router.translate.responses_refusal import is_codex, refusal_stream, told_in_band

log = logging.getLogger("smf_router")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

# Exact paths only: anything else (a trailing slash, another method) takes the FastAPI route.
HOT_PATHS: dict[str, Api] = {
    "/v1/chat/completions": "chat",
    "/v1/completions": "completions",
    "/v1/responses": "responses",  # Codex CLI
    "/v1/messages": "messages",  # Claude Code
}

_JSON = (b"content-type", b"application/json")
_SSE = (b"content-type", b"text/event-stream; charset=utf-8")  # what StreamingResponse sent


class HotRoute:
    """The endpoint of a hot path in the route table, for requests that reach FastAPI anyway
    (the app's own `__call__` serves them first). With it the table keeps the hot paths, so
    other methods get 405 and near-miss paths their redirect, and the front stays the one
    place these APIs are answered."""

    def __init__(self, api: Api) -> None:
        self.api = api

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await serve(scope["app"].state, self.api, scope, receive, send)


def hot_api(scope: Scope) -> Api | None:
    """The API a request is for when the front serves it, else None."""
    if scope["type"] != "http" or scope["method"] != "POST":
        return None
    return HOT_PATHS.get(scope["path"])


async def serve(state: Any, api: Api, scope: Scope, receive: Receive, send: Send) -> None:
    """Answer one hot request; `state` is the app's state (gateway and auth, swapped on reload)."""
    try:
        await _serve(state, api, scope, receive, send)
    except asyncio.CancelledError:  # one `_serve` did not take (a refusal's send)
        await _answer_stopped(send, api, _own_id(scope))
    except Exception:  # a bug outside what `_serve` answers: the line names the reply's id
        said = _own_id(scope)
        log.exception("internal error on %s (request %s)", scope["path"], said["x-request-id"])
        with contextlib.suppress(Exception):  # uvicorn refuses it if the answer began already
            await _send_error(send, api, internal_error(), said)


def _own_id(scope: Scope) -> dict[str, str]:
    """The id of an answer no record names (the client's own when valid, else a new one),
    as on every other: the user quotes it, the operator finds the log line by it."""
    return {"x-request-id": req.request_id(request_headers(scope))}


async def refuse(
    state: Any, api: Api, scope: Scope, send: Send, error: RouterError, recorded: bool = True
) -> None:
    """Refuse a hot request before reading it (`router.app`). A compressed body's refusal
    (an API client's) is recorded as `_serve` records one: the caller's name if its key is a
    router key. A web page's (`recorded=False`, `router.api.browsers`) is only counted, as a
    refused key is: on a keyless router every caller is `anonymous`, so any page the user
    opened could write a ledger row, a log line and an error count per request (a flood of
    20,000 wrote all three for each, ~29 GB of log a day at its rate; found in review)."""
    arrival = Arrival(api, headers=request_headers(scope))
    if recorded:
        with contextlib.suppress(RouterError):
            arrival.caller = state.auth.caller(arrival.headers)
    state.components.metrics.rejected_request(api, error.status)
    await _refused(state.gateway, send, arrival, error)


async def _serve(state: Any, api: Api, scope: Scope, receive: Receive, send: Send) -> None:
    gateway: Gateway = state.gateway
    arrival = Arrival(api)  # until the gateway's record exists, what the refusal's holds
    try:
        headers = arrival.headers = req.identified(request_headers(scope))
        caller = arrival.caller = state.auth.caller(headers)
        limit = gateway.config.server.max_body_bytes
        received = await receive_sized(receive, headers.get("content-length"), limit)
        if received is None:
            return  # the client left before its body ended: a request never made
        body = arrival.body = received[0]
        call = gateway.prepare(api, body, caller, headers)
        # The bytes as received go on only to a shadow that picked the call; else let go now
        call.raw_body = received[1] if call.sampled else None
        received = None
    except RouterError as error:
        state.components.metrics.rejected_request(api, error.status)
        await _refused(gateway, send, arrival, error)
        return
    except asyncio.CancelledError:  # the drain ran out while the body was read
        _uncancel()
        with contextlib.suppress(Exception):
            await _refused(gateway, send, arrival, cancellation(client_left=False))
        return
    except Exception:
        log.exception("internal error on %s", scope["path"])
        await _refused(gateway, send, arrival, internal_error())
        return
    reply = Reply()
    watcher = watch(receive, reply, call)
    try:
        await _answer(gateway, call, send, reply, is_codex(headers))
    except asyncio.CancelledError:  # the record is finished already, whoever cancelled
        if call.client_left:
            _uncancel()  # our own cancellation: nothing is wrong, and nobody to tell
        else:
            await _answer_stopped(send, api, decision_headers(call))
    except Exception:  # a bug: `_answer` finished the record; the 500 names it
        reply.finished = True  # nothing left to cancel
        log.exception("internal error on %s", scope["path"])
        gateway.fail(call, internal_error(), "router_error")  # if not, now
        with contextlib.suppress(Exception):  # uvicorn refuses it if the answer began already
            await _send_error(send, api, internal_error(), decision_headers(call))
    finally:
        reply.finished = True
        watcher.cancel()


async def _refused(gateway: Gateway, send: Send, arrival: Arrival, error: RouterError) -> None:
    """Record a request answered before the gateway took it, then answer it with the
    record's `x-request-id`: the record first, so a send that fails loses no row. One whose
    key was refused (or never read, as a web page's) is only counted
    (`rejected_requests_total`): a row for each would let anyone without a key fill the
    ledger's disk (a flood of 401s wrote ~2 GB a day, kept for the retention's two years;
    found in review)."""
    if arrival.caller is None:
        request_id = req.request_id(arrival.headers)
        await _send_error(send, arrival.api, error, {"x-request-id": request_id})
        return
    record = arrival.record(error, arrival.caller)
    gateway.refused(record)
    await _send_error(send, arrival.api, error, {"x-request-id": record.request_id})


async def _answer(gateway: Gateway, call: Call, send: Send, reply: Reply, codex: bool) -> None:
    """`codex`: the client is Codex (`is_codex`), told some refusals in-band."""
    try:
        committed = await gateway.dispatch(call)
    except RouterError as error:  # the record is finished: it keeps the error's status
        if told_in_band(call.api, call.stream, error, codex):
            reply.finished = True  # the answer is whole: a hang-up from now on cancels nothing
            await _send_stream(
                send, decision_headers(call, error), refusal_stream(error, call.asked())
            )
        else:
            await _send_error(send, call.api, error, decision_headers(call, error))
        return
    try:
        if call.stream:
            await _stream(gateway, call, committed, send, reply)
        else:
            await _whole(gateway, call, committed, send, reply)
    except Exception:
        await gateway.abandon(call, committed)  # a bug loses no record, leaks no attempt
        raise


async def _answer_stopped(send: Send, api: Api, headers: dict[str, str] | None = None) -> None:
    """uvicorn cancels the requests still running once its drain (`server.drain_s`) is over.
    Before any answer went out, the client gets a 503 it may retry, not uvicorn's text/plain
    500 and a traceback in the log (a stream that began ends in-band, in `_stream`)."""
    _uncancel()
    with contextlib.suppress(Exception):  # uvicorn refuses it if the answer began already
        await _send_error(send, api, cancellation(client_left=False), headers)


async def _whole(
    gateway: Gateway, call: Call, committed: Committed, send: Send, reply: Reply
) -> None:
    body = committed.reply.body
    assert body is not None
    raw = _raw(decision_headers(call))
    raw.append((b"content-length", str(len(body)).encode()))
    raw.append(_JSON)
    # read before it is sent: a Responses answer is kept for the turn continuing it before
    # its client can send that turn (`router.responses_kept`); a bug here is `abandon`'s
    tally = Tally(keep_text=gateway.keep_text(call), api=call.api)
    if committed.parsed is not None:
        tally.see(committed.parsed)
    gateway.remember(call, tally)
    reply.finished = True  # the answer is whole: a hang-up from now on cancels nothing
    try:
        reply.started = True
        await send({"type": "http.response.start", "status": 200, "headers": raw})
        await send({"type": "http.response.body", "body": body})
    finally:
        gateway.finish_whole(call, committed, tally)  # the record, even if the client went away


async def _stream(
    gateway: Gateway, call: Call, committed: Committed, send: Send, reply: Reply
) -> None:
    """Relay the stream; a client that hangs up cancels it (the relay records `cancelled`)."""
    headers = decision_headers(call)
    headers["cache-control"] = "no-cache"
    raw = _raw(headers)
    raw.append(_SSE)
    tally = Tally(keep_text=gateway.keep_text(call), api=call.api)
    # `relay` is an async generator function: closing it runs its `finally` (the record).
    stream = cast(
        AsyncGenerator[bytes, None],
        relay(call, committed, gateway.dispatcher, gateway.finish, tally, gateway.remember),
    )
    try:
        # The start goes out with the first chunk (the relay has it at hand, read before the
        # commit), so a failing start still runs the relay's `finally` and finishes the record.
        async for chunk in stream:
            first = not reply.started
            if first:
                reply.started = True
                await send({"type": "http.response.start", "status": 200, "headers": raw})
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if first:
                # Writes leave at the end of a loop turn (`router.api.corking`): end this one
                # so the first chunk is not held back while a burst behind it is relayed.
                await asyncio.sleep(0)
        if not reply.started:
            reply.started = True
            await send({"type": "http.response.start", "status": 200, "headers": raw})
        reply.finished = True
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except asyncio.CancelledError:
        if call.client_left or not reply.started:
            raise
        # The router is stopping (`_answer_stopped`): the record first, then the in-band end.
        _uncancel()
        await stream.aclose()
        with contextlib.suppress(Exception):
            await _end_broken(send, raw, reply, cancellation(client_left=False), tally)
    except Exception:
        log.exception("internal error while streaming %s", call.api)
        with contextlib.suppress(Exception):
            await _end_broken(send, raw, reply, internal_error(), tally)
    finally:
        reply.finished = True
        await stream.aclose()


def _uncancel() -> None:
    task = asyncio.current_task()
    assert task is not None
    task.uncancel()


async def _end_broken(
    send: Send, raw: list[tuple[bytes, bytes]], reply: Reply, error: RouterError, tally: Tally
) -> None:
    """End a stream the front broke off (a bug outside the relay, or the router stopping)
    honestly: an in-band error event in the API's shape, with the ids the tally saw, never
    a quiet end. (The relay ends a stream that broke inside it itself.)"""
    if reply.finished:
        return
    if not reply.started:
        reply.started = True
        await send({"type": "http.response.start", "status": 200, "headers": raw})
    reply.finished = True
    event = error_event(tally.api, error, tally)
    await send({"type": "http.response.body", "body": event, "more_body": False})


def decision_headers(call: Call, error: RouterError | None = None) -> dict[str, str]:
    """What the router decided, on every answer that went through the gateway. The backend
    is the one that answered; on an error answer, the one whose error it is (`error`'s, the
    plan's most meaningful: `router.plan_error`), so that a backend's own 4xx passed through
    says whose it is: the last one tried named the cloud beside the local backend's
    context-length refusal, when both refused (found in review). Else the last one tried
    (the record's `backend` stays empty: nothing was served). Left out when none was tried
    (the router's own refusal), as `count_tokens` leaves it out of an estimate: it went out
    empty (found in review). (A Messages answer names its id as `request-id` too:
    `router.api.anthropic_paths`.)"""
    record = call.record
    tried = [a.backend for a in record.attempts if a.outcome != "skipped"]
    whose = error.backend if isinstance(error, UpstreamError) else ""
    backend = record.backend or whose or (tried[-1] if tried else "")
    return {
        "x-smf-intent": record.intent,
        "x-smf-confidence": f"{record.confidence:.3f}",
        **({"x-smf-backend": backend} if backend else {}),
        "x-smf-attempts": str(len(tried)),
        "x-smf-route": record.route,
        "x-request-id": record.request_id,
    }


async def _send_error(
    send: Send, api: Api, error: RouterError, headers: dict[str, str] | None = None
) -> None:
    body = error.json()
    if api == "messages":  # Anthropic's envelope and words
        body = events.anthropic_error_body(error)
    raw = _raw(error_headers(error, headers))
    raw.append((b"content-length", str(len(body)).encode()))
    raw.append(_JSON)
    await send({"type": "http.response.start", "status": error.status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


async def _send_stream(send: Send, headers: dict[str, str], events: bytes) -> None:
    """A whole stream at once: a refusal told in-band (`router.translate.responses_refusal`)."""
    raw = _raw({**headers, "cache-control": "no-cache"})
    raw.append(_SSE)
    await send({"type": "http.response.start", "status": 200, "headers": raw})
    await send({"type": "http.response.body", "body": events})


def _raw(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
