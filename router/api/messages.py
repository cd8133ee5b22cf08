"""The Anthropic Messages endpoints (`/v1/messages`, `/v1/messages/count_tokens`): Claude Code.

Messages requests are served like chat completions; every error leaves in Anthropic's
shape `{"type": "error", "error": {"type", "message"}}`, an upstream Anthropic error
unmodified. Token counting asks a backend that serves Messages natively (vLLM has
`/v1/messages/count_tokens`) and estimates locally when none can answer.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

import classifier
from router.api.body import read_json
from router.api.errors import error_response
from router.api.openai import gateway_caller, serve
from router.errors import BadRequest, RouterError
from router.gateway import Gateway
from router.policy import Demand, Target, plan, resolve_target
from router.request import estimate_prompt_tokens
from router.translate.events import anthropic_type
from router.translate.pairing import native
from router.translate.view import chat_view

endpoints = APIRouter()
log = logging.getLogger("smf_router")
_COUNT_TIMEOUT_S = 10.0


@endpoints.post("/v1/messages")
async def messages(request: Request) -> Response:
    try:
        response = await serve(request, "messages")
    except RouterError as error:
        response = error_response(error)
    return anthropic_shaped(response)


@endpoints.post("/v1/messages/count_tokens")
async def count_tokens(request: Request) -> Response:
    try:
        gateway: Gateway = request.app.state.gateway
        gateway_caller(request)
        body = await read_json(request, gateway.config.server.max_body_bytes)
        if not isinstance(body.get("messages"), list) or not isinstance(body.get("model"), str):
            raise BadRequest("'model' and 'messages' are required", param="messages")
        counted, source = await _count(gateway, body, dict(request.headers))
    except RouterError as error:
        return anthropic_shaped(error_response(error))
    payload = orjson.dumps({"input_tokens": counted})
    headers = {"x-smf-backend": source, "x-smf-estimated": str(source == "").lower()}
    return Response(payload, media_type="application/json", headers=headers)


def anthropic_shaped(response: Response) -> Response:
    """An error response re-rendered in Anthropic's envelope (an Anthropic body stays as is)."""
    if response.status_code < 400:
        return response
    try:
        body: Any = orjson.loads(bytes(response.body))
    except orjson.JSONDecodeError:
        body = {}
    if isinstance(body, dict) and body.get("type") == "error":
        return response
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else str(error or "error")
    shaped = {
        "type": "error",
        "error": {"type": anthropic_type(response.status_code), "message": str(message)},
    }
    headers = {k: v for k, v in response.headers.items() if k not in ("content-length",)}
    return Response(
        orjson.dumps(shaped),
        status_code=response.status_code,
        media_type="application/json",
        headers=headers,
    )


async def _count(
    gateway: Gateway, body: dict[str, Any], headers: dict[str, str]
) -> tuple[int, str]:
    """Exact tokens from the first native Messages backend of the plan, else an estimate."""
    target = resolve_target(str(body["model"]), gateway.config) or Target("auto")
    intent = classifier.classify(chat_view("messages", body))
    demand = Demand(api="messages", prompt_tokens=estimate_prompt_tokens("messages", body))
    the_plan = plan(intent, target, demand, gateway.state_source.states(), gateway.config)
    for step in the_plan.steps:
        settings = gateway.config.backend(step.backend)
        if native("messages", settings):
            counted = await _ask(settings, body, headers)
            if counted is not None:
                return counted, settings.name
    return estimate_prompt_tokens("messages", body), ""


async def _ask(settings: Any, body: dict[str, Any], headers: dict[str, str]) -> int | None:
    """One POST to the backend's count_tokens; any failure means "estimate instead"."""
    out = {"content-type": "application/json", **settings.headers}
    out.update({k: v for k in ("anthropic-version", "anthropic-beta") if (v := headers.get(k))})
    if settings.api_key:
        out["authorization"] = f"Bearer {settings.api_key}"
    url = settings.base_url.rstrip("/") + "/messages/count_tokens"
    try:
        async with httpx.AsyncClient(timeout=_COUNT_TIMEOUT_S) as client:
            reply = await client.post(
                url, content=orjson.dumps({**body, "model": settings.model}), headers=out
            )
        counted = reply.json().get("input_tokens") if reply.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        log.info("count_tokens on %s failed (%s); estimating", settings.name, type(exc).__name__)
        return None
    return counted if isinstance(counted, int) else None
