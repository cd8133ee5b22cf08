"""Token counting for the Anthropic Messages API (`/v1/messages/count_tokens`): Claude Code.

`POST /v1/messages` itself is served by the front (`router.api.front`) like chat. Errors
here leave in Anthropic's shape `{"type": "error", "error": {"type", "message"}}`, as
there. Counting asks a backend that serves Messages natively (vLLM has
`/v1/messages/count_tokens`) and estimates locally when none can answer.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

import classifier
from router import request as req
from router.api.body import read_json
from router.api.errors import shaped_response
from router.api.headers import request_headers
from router.attempt_errors import UpstreamError
from router.backends.openai_compatible import OpenAICompatibleBackend
from router.errors import RouterError, internal_error
from router.gateway import Gateway
from router.policy import Demand, plan
from router.request import validate_token_count
from router.request_size import estimate_prompt_tokens
from router.routing_headers import is_private, target_of
from router.translate.pairing import native

endpoints = APIRouter()
log = logging.getLogger("smf_router")
_COUNT_TIMEOUT_S = 10.0


@endpoints.post("/v1/messages/count_tokens")
async def count_tokens(request: Request) -> Response:
    try:
        gateway: Gateway = request.app.state.gateway
        headers = request_headers(request.scope)
        caller = request.app.state.auth.caller(headers)
        body = await read_json(request, gateway.config.server.max_body_bytes)
        validate_token_count(body)
        counted, source = await _count(gateway, body, headers, is_private(caller, headers))
    except RouterError as error:
        return shaped_response(request, error)
    except Exception:  # a bug of ours: still an answer in this API's shape, never a traceback
        log.exception("count_tokens failed")
        return shaped_response(request, internal_error())
    payload = orjson.dumps({"input_tokens": counted})
    # its request id as every answer names it (as Anthropic's too: `anthropic_paths`): a
    # count named none, where its refusals named it (found in review)
    said = {"x-request-id": req.request_id(headers), "x-smf-estimated": str(source == "").lower()}
    if source:  # an estimate has no backend: no empty header
        said["x-smf-backend"] = source
    return Response(payload, media_type="application/json", headers=said)


async def _count(
    gateway: Gateway, body: dict[str, Any], headers: dict[str, str], private: bool
) -> tuple[int, str]:
    """Exact tokens from the first native Messages backend of the plan, else an estimate.
    The plan is the one a request would get, privacy and target included (`x-smf-route`, an
    unknown `model` a 404 as on `/v1/messages`): counting sends the whole conversation to
    the backend asked."""
    target = target_of(gateway.config, body, headers)
    intent = classifier.classify(req.readable_view("messages", body))
    demand = Demand(
        api="messages",
        prompt_tokens=estimate_prompt_tokens("messages", body),
        private=private,
    )
    the_plan = plan(intent, target, demand, gateway.state_source.states(), gateway.config)
    for step in the_plan.steps:
        settings = gateway.config.backend(step.backend)
        backend = gateway.backends.get(settings.name)
        if native("messages", settings) and isinstance(backend, OpenAICompatibleBackend):
            counted = await _ask(backend, body, headers)
            if counted is not None:
                return counted, settings.name
    return estimate_prompt_tokens("messages", body), ""


async def _ask(
    backend: OpenAICompatibleBackend, body: dict[str, Any], headers: dict[str, str]
) -> int | None:
    """One POST to the backend's count_tokens; any failure means "estimate instead"."""
    settings = backend.settings
    forwarded = {k: v for k in ("anthropic-version", "anthropic-beta") if (v := headers.get(k))}
    payload = orjson.dumps({**body, "model": settings.model})
    try:
        status, raw = await backend.post(
            "/messages/count_tokens", payload, forwarded, _COUNT_TIMEOUT_S
        )
        counted = orjson.loads(raw).get("input_tokens") if status == 200 else None
    except (UpstreamError, orjson.JSONDecodeError, AttributeError) as exc:
        log.info("count_tokens on %s failed (%s); estimating", settings.name, type(exc).__name__)
        return None
    return counted if isinstance(counted, int) else None
