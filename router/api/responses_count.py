"""Token counting for the Responses API (`POST /v1/responses/input_tokens`).

The `openai` SDK's `responses.input_tokens.count`: a client may ask how long a turn's input
is before it sends the turn (kani asks before every Responses request, and a 404 here failed
every one). The body is a Responses create's (`model`, `input`, `instructions`, `tools`,
`previous_response_id`, `conversation`, ...), every field optional as OpenAI's count takes
it (openai-python's `InputTokenCountParams` is `total=False`): a missing `model` is `auto`, a
missing `input` none (`[]`), and a field of the wrong kind is still a 400 naming it. The
answer is OpenAI's `{"object": "response.input_tokens", "input_tokens": n}`, with the
headers of `router.api.counting`.

The turn is read as `/v1/responses` reads it (`Gateway.planned`): the same checks and 400s
naming the field, the same 404 for an unknown `model`, the same privacy and `x-smf-route`,
another caller's `previous_response_id` refused alike, and so a `previous_response_id` or
`conversation` no backend of the target speaks Responses to look up (`counting.refused`);
and a response the router made over a chat backend is told whole, so the count includes
the conversation that turn continues, as the turn itself would send it
(`router.stored_responses.StoredResponses.whole`). Nothing is recorded: a count is not a
generation, as `count_tokens` records none.

Exact only from OpenAI's own API (`evals.urls.openai_hosted`), which serves this endpoint,
when it is the backend that would serve the turn and speaks Responses for the router; it
counts the history of a `previous_response_id` or `conversation` it stores, too. It is sent
only the fields its count takes (`COUNTED_FIELDS`): it refuses any other, as an unknown
parameter. vLLM's Responses server has no such endpoint (it answers 405), nor do the other
servers that speak the API, so they are not asked. Otherwise, or when OpenAI's answer fails,
the router's estimate (`router.request_size.estimate_prompt_tokens`) of the input as sent to
a backend: a turn continuing a response or conversation that a backend stores counts its
own new input only, as the router holds none of that history.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from evals.urls import openai_hosted
from router.api import counting
from router.api.counting import Counted
from router.auth import Caller
from router.backends.openai_compatible import OpenAICompatibleBackend
from router.config_backend import Backend as BackendSettings
from router.gateway import Gateway
from router.request_size import estimate_prompt_tokens
from router.translate.native_responses import for_native
from router.translate.pairing import native

endpoints = APIRouter()
PATH = "/v1/responses/input_tokens"
# The body OpenAI's count takes: its API reference's, and openai-python's
# `InputTokenCountParams` (3.57, which adds `personality`); any other field it refuses. The
# simulator standing for OpenAI keeps its own copy (`router.simulator.unknown_arguments.
# COUNT_ARGUMENTS`), on purpose: one read from here would check the router against itself.
# Each is tested against the SDK's.
COUNTED_FIELDS = frozenset(
    {
        *("conversation", "input", "instructions", "model", "parallel_tool_calls"),
        *("personality", "previous_response_id", "reasoning", "text", "tool_choice"),
        *("tools", "truncation"),
    }
)


@endpoints.post(PATH)
async def input_tokens(request: Request) -> Response:
    return await counting.answer(request, _count, _reply)


def _reply(counted: int) -> dict[str, Any]:
    return {"object": "response.input_tokens", "input_tokens": counted}


def counts_natively(settings: BackendSettings) -> bool:
    """Whether a backend serves `/responses/input_tokens` itself: OpenAI's own API, when
    the router sends it Responses."""
    return native("responses", settings) and openai_hosted(settings.base_url)


def defaulted(body: dict[str, Any]) -> dict[str, Any]:
    """`body` with what OpenAI's count leaves optional and `/v1/responses` needs: `model`
    (`auto`) and `input` (none), when absent or null."""
    out = dict(body)
    for name, default in (("model", "auto"), ("input", [])):
        if out.get(name) is None:
            out[name] = default
    return out


async def _count(
    gateway: Gateway, body: dict[str, Any], caller: Caller, headers: dict[str, str]
) -> Counted:
    """Exact tokens from the backend that would serve the turn when it counts them, else an
    estimate. The plan is the one the turn would get."""
    call = gateway.planned("responses", defaulted(body), caller, headers, counting=True)
    return await counting.by_first_step(
        gateway,
        call,
        counts_natively,
        lambda backend: _ask(backend, call.body),
        lambda: estimate_prompt_tokens("responses", call.body),
    )


async def _ask(backend: OpenAICompatibleBackend, body: dict[str, Any]) -> int | None:
    """OpenAI's count of the body as a turn sends it there (its model, none of the router's
    own reasoning items), only the fields the count takes; no `input` when there is none."""
    sent = for_native({**body, "model": backend.settings.model}, openai=True)
    taken = {k: v for k, v in sent.items() if k in COUNTED_FIELDS}
    if taken.get("input") == []:
        del taken["input"]
    return await counting.asked(backend, "/responses/input_tokens", taken, {})
