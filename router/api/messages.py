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

from router.api import counting
from router.api.counting import Counted
from router.auth import Caller
from router.backends.openai_compatible import OpenAICompatibleBackend
from router.call import Call
from router.gateway import Gateway
from router.request_size import estimate_prompt_tokens
from router.translate.pairing import native
from router.vllm_fields import reads_every_tool

endpoints = APIRouter()


@endpoints.post("/v1/messages/count_tokens")
async def count_tokens(request: Request) -> Response:
    return await counting.answer(request, _count, lambda counted: {"input_tokens": counted})


async def _count(
    gateway: Gateway, body: dict[str, Any], caller: Caller, headers: dict[str, str]
) -> Counted:
    """Exact tokens from the backend that would serve the turn when it speaks Messages
    natively, else an estimate. The turn is read and planned as `/v1/messages` reads it
    (`Gateway.planned`, a count's body taking no `max_tokens`): the same 400s and 404 for
    an unknown `model`, privacy, `x-smf-route`, and the conversation's sticky pin, so a
    conversation served locally is counted there, never by the cloud its latest message
    alone would go to (found in review)."""
    call = gateway.planned("messages", body, caller, headers, counting=True)
    return await counting.by_first_step(
        gateway,
        call,
        lambda settings: native("messages", settings),
        lambda backend: _ask(backend, call.body, headers),
        lambda: _estimate(gateway, call),
    )


def _estimate(gateway: Gateway, call: Call) -> int:
    """The prompt the turn is judged by, where no backend counts it: the one its refusal
    names when every backend was skipped (`Plan.prompt_tokens`), else the first step's, with
    every deferred tool where that backend reads them (`vllm_fields.reads_every_tool`). The
    offered tools alone counted 49 tokens of a turn refused as 40,271 long (found in review)."""
    if not call.plan.steps:
        return call.plan.prompt_tokens
    first = gateway.config.backend(call.plan.steps[0].backend)
    every = reads_every_tool("messages", first)
    return estimate_prompt_tokens("messages", call.body, every_tool=every)


async def _ask(
    backend: OpenAICompatibleBackend, body: dict[str, Any], headers: dict[str, str]
) -> int | None:
    """The backend's count_tokens, of the body with its model and Anthropic's headers."""
    forwarded = {k: v for k in ("anthropic-version", "anthropic-beta") if (v := headers.get(k))}
    sent = {**body, "model": backend.settings.model}
    return await counting.asked(backend, "/messages/count_tokens", sent, forwarded)
