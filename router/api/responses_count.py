"""Token counting for the Responses API (`POST /v1/responses/input_tokens`).

The `openai` SDK's `responses.input_tokens.count`: a client may ask how long a turn's input
is before it sends the turn (kani asks before every Responses request, and a 404 here failed
every one). The body is a Responses create's (`model`, `input`, `instructions`, `tools`,
`previous_response_id`, `conversation`, ...); the answer OpenAI's
`{"object": "response.input_tokens", "input_tokens": n}`, with `x-smf-estimated` and, when a
backend counted, `x-smf-backend`, as `/v1/messages/count_tokens` says them
(`router.api.messages`).

The turn is read as `/v1/responses` reads it (`Gateway.planned`): the same checks and 400s
naming the field, the same 404 for an unknown `model`, the same privacy and `x-smf-route`,
another caller's `previous_response_id` refused alike; and a response the router made over
a chat backend is told whole, so the count includes the conversation that turn continues,
as the turn itself would send it (`router.stored_responses.StoredResponses.whole`). Nothing
is recorded: a count is not a generation, as `count_tokens` records none.

Exact only from OpenAI's own API (`evals.urls.openai_hosted`), which serves this endpoint,
when it speaks Responses for the router and is in the plan; it counts the history of a
`previous_response_id` or `conversation` it stores, too. vLLM's Responses server has no such
endpoint (it answers 405), nor do the other servers that speak the API, so they are not
asked. Otherwise, or when OpenAI's answer fails, the router's estimate
(`router.request_size.estimate_prompt_tokens`) of the input as sent to a backend: a turn
continuing a response or conversation that a backend stores counts its own new input only,
as the router holds none of that history.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from evals.urls import openai_hosted
from router import request as req
from router.api.body import read_json
from router.api.errors import shaped_response
from router.api.headers import request_headers
from router.attempt_errors import UpstreamError
from router.backends.openai_compatible import OpenAICompatibleBackend
from router.call import Call
from router.config_backend import Backend as BackendSettings
from router.errors import RouterError, internal_error
from router.gateway import Gateway
from router.request_size import estimate_prompt_tokens
from router.translate.native_responses import for_native
from router.translate.pairing import native

endpoints = APIRouter()
log = logging.getLogger("smf_router")
PATH = "/v1/responses/input_tokens"
_COUNT_TIMEOUT_S = 10.0


@endpoints.post(PATH)
async def input_tokens(request: Request) -> Response:
    headers = req.identified(request_headers(request.scope))  # one id: the reply's
    try:
        gateway: Gateway = request.app.state.gateway
        caller = request.app.state.auth.caller(headers)
        body = await read_json(request, gateway.config.server.max_body_bytes)
        call = gateway.planned("responses", body, caller, headers)
        counted, source = await _count(gateway, call)
    except RouterError as error:
        return shaped_response(request, error)
    except Exception:  # a bug of ours: still an answer in OpenAI's shape, never a traceback
        log.exception("responses input_tokens failed")
        return shaped_response(request, internal_error())
    payload = orjson.dumps({"object": "response.input_tokens", "input_tokens": counted})
    said = {"x-request-id": headers["x-request-id"], "x-smf-estimated": str(source == "").lower()}
    if source:  # an estimate has no backend: no empty header
        said["x-smf-backend"] = source
    return Response(payload, media_type="application/json", headers=said)


def counts_natively(settings: BackendSettings) -> bool:
    """Whether a backend serves `/responses/input_tokens` itself: OpenAI's own API, when
    the router sends it Responses."""
    return native("responses", settings) and openai_hosted(settings.base_url)


async def _count(gateway: Gateway, call: Call) -> tuple[int, str]:
    """Exact tokens from the first backend of the plan that counts them, else an estimate.
    The plan is the one the turn would get: counting sends the conversation to the
    backend asked, so a private turn's count never leaves for the cloud."""
    for step in call.plan.steps:
        settings = gateway.config.backend(step.backend)
        backend = gateway.backends.get(settings.name)
        if counts_natively(settings) and isinstance(backend, OpenAICompatibleBackend):
            counted = await _ask(backend, call.body)
            if counted is not None:
                return counted, settings.name
    return estimate_prompt_tokens("responses", call.body), ""


async def _ask(backend: OpenAICompatibleBackend, body: dict[str, Any]) -> int | None:
    """One POST to the backend's count, the body as a turn sends it there (its model, none
    of the router's own reasoning items); any failure means "estimate instead"."""
    settings = backend.settings
    sent = for_native({**body, "model": settings.model}, openai=True)
    try:
        status, raw = await backend.post(
            "/responses/input_tokens", orjson.dumps(sent), {}, _COUNT_TIMEOUT_S
        )
        counted = orjson.loads(raw).get("input_tokens") if status == 200 else None
    except (UpstreamError, orjson.JSONDecodeError, AttributeError) as exc:
        log.info("input_tokens on %s failed (%s); estimating", settings.name, type(exc).__name__)
        return None
    if status != 200:
        log.info("input_tokens on %s answered %d; estimating", settings.name, status)
    return counted if isinstance(counted, int) and not isinstance(counted, bool) else None
