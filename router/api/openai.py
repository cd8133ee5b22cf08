"""The OpenAI-compatible endpoints: chat completions, completions, models."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from starlette.background import BackgroundTask

from router.api.body import read_json
from router.api.errors import error_response
from router.dispatch import Call, Committed
from router.errors import RouterError
from router.gateway import Gateway
from router.record import Api
from router.relay import relay

endpoints = APIRouter()


def decision_headers(call: Call) -> dict[str, str]:
    record = call.record
    return {
        "x-smf-intent": record.intent,
        "x-smf-confidence": f"{record.confidence:.3f}",
        "x-smf-backend": record.backend or "",
        "x-smf-attempts": str(len([a for a in record.attempts if a.outcome != "skipped"])),
        "x-smf-route": record.route,
        "x-request-id": record.request_id,
    }


async def serve(request: Request, api: Api) -> Response:
    gateway: Gateway = request.app.state.gateway
    caller = gateway_caller(request)
    body = await read_json(request, gateway.config.server.max_body_bytes)
    call = gateway.prepare(api, body, caller, request.headers)
    try:
        committed = await gateway.dispatch(call)
    except RouterError as error:
        return error_response(error, decision_headers(call))
    try:
        return _reply(gateway, call, committed)
    except Exception:
        await gateway.abandon(call, committed)  # a bug loses no record, leaks no attempt
        raise


def _reply(gateway: Gateway, call: Call, committed: Committed) -> Response:
    headers = decision_headers(call)
    if not call.stream:
        assert committed.reply.body is not None
        return Response(
            committed.reply.body,
            media_type="application/json",
            headers=headers,
            background=BackgroundTask(_finish_whole, gateway, call, committed),
        )
    stream = relay(call, committed, gateway.dispatcher, gateway.finish, gateway.keep_text(call))
    headers["cache-control"] = "no-cache"
    return StreamingResponse(stream, media_type="text/event-stream", headers=headers)


async def _finish_whole(gateway: Gateway, call: Call, committed: Committed) -> None:
    # async on purpose: Starlette would run a plain function in its thread pool, which cost
    # more than the finishing itself (a thread hop per request, seen with py-spy).
    gateway.finish_whole(call, committed)


def gateway_caller(request: Request) -> Any:
    return request.app.state.auth.caller(request.headers)


@endpoints.get("/v1/models")
async def models(request: Request) -> dict[str, Any]:
    gateway_caller(request)
    config = request.app.state.gateway.config
    names = ["auto", *config.aliases, *config.routes, *(b.name for b in config.backends)]
    unique = list(dict.fromkeys(names))
    return {
        "object": "list",
        "data": [
            {"id": n, "object": "model", "created": 0, "owned_by": "smf-router"} for n in unique
        ],
    }
