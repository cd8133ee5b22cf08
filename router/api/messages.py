"""Token counting for the Anthropic Messages API (`/v1/messages/count_tokens`): Claude Code.

`POST /v1/messages` itself is served by the front (`router.api.front`) like chat. Errors
here leave in Anthropic's shape `{"type": "error", "error": {"type", "message"}}`, as
there. Counting asks the backend that would serve the turn when it serves Messages natively
(vLLM has `/v1/messages/count_tokens`, as Anthropic's API has), and estimates locally
otherwise or when it cannot answer (`router.api.counting`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

import classifier
from router import request as req
from router.api import counting
from router.api.counting import Counted
from router.auth import Caller
from router.backends.openai_compatible import OpenAICompatibleBackend
from router.gateway import Gateway
from router.policy import Demand, plan
from router.request import validate_token_count
from router.request_size import estimate_prompt_tokens
from router.routing_headers import is_private, target_of
from router.translate.pairing import native

endpoints = APIRouter()


@endpoints.post("/v1/messages/count_tokens")
async def count_tokens(request: Request) -> Response:
    return await counting.answer(request, _count, lambda counted: {"input_tokens": counted})


async def _count(
    gateway: Gateway, body: dict[str, Any], caller: Caller, headers: dict[str, str]
) -> Counted:
    """Exact tokens from the backend that would serve the turn when it speaks Messages
    natively, else an estimate. The plan is the one a request would get, privacy and target
    included (`x-smf-route`, an unknown `model` a 404 as on `/v1/messages`)."""
    validate_token_count(body)
    target = target_of(gateway.config, body, headers)
    intent = classifier.classify(req.readable_view("messages", body))
    demand = Demand(
        api="messages",
        prompt_tokens=estimate_prompt_tokens("messages", body),
        private=is_private(caller, headers),
    )
    the_plan = plan(intent, target, demand, gateway.state_source.states(), gateway.config)
    return await counting.by_first_step(
        gateway,
        the_plan,
        lambda settings: native("messages", settings),
        lambda backend: _ask(backend, body, headers),
        lambda: estimate_prompt_tokens("messages", body),
    )


async def _ask(
    backend: OpenAICompatibleBackend, body: dict[str, Any], headers: dict[str, str]
) -> int | None:
    """The backend's count_tokens, of the body with its model and Anthropic's headers."""
    forwarded = {k: v for k in ("anthropic-version", "anthropic-beta") if (v := headers.get(k))}
    sent = {**body, "model": backend.settings.model}
    return await counting.asked(backend, "/messages/count_tokens", sent, forwarded)
