"""vLLM's own output constraints in a request: what only the local tier's vLLM honours.

`structured_outputs` (`{"json": schema}`, `{"regex": ...}`, `{"choice": [...]}`,
`{"grammar": ...}`, `{"json_object": true}`, `{"structural_tag": ...}`) is the field
vLLM's chat, completions and Responses requests take (vllm/entrypoints/openai/
chat_completion/protocol.py, completion/protocol.py, responses/protocol.py), and what
outlines' `from_vllm` sends; a `response_format` of type `structural_tag` is vLLM's too
(chat and completions). No cloud API has either: OpenAI refuses an unknown argument with a
400, other OpenAI-compatible clouds ignore it, and a litellm backend drops it
(`router.backends.litellm_fields`), so a cloud answer was unconstrained: outlines'
`Regex("(yes|no)")` got "Latency to in and the", a JSON model failed validation (found in
review, outlines 1.3.3 in demo mode). The plan sends such a request to the local tier only,
as a private one (`router.policy._unfit`: `vllm_fields`).

Not the older top-level names (`guided_json`, `guided_regex`, `guided_choice`,
`guided_grammar`, `guided_whitespace_pattern`, `guided_decoding_backend`, `structural_tag`):
vLLM 0.12 removed them, and the vLLM this router serves (0.32 and later) ignores them as
unknown fields, the text free (tests/vllm/captures/guided_json_ignored.json). Kept local,
they would be unconstrained there too. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals.urls import openai_hosted
from router.config_backend import Backend as BackendSettings
from router.record import Api
from router.translate.pairing import anthropic_own, native

FIELD = "structured_outputs"
SKIP = "vllm_fields"  # the plan's reason for a backend that would lose the constraint
# The APIs whose vLLM request takes `structured_outputs`, and those taking the
# `structural_tag` response format (Responses' `text.format` has no such type)
_APIS: frozenset[Api] = frozenset({"chat", "completions", "responses"})
_FORMAT_APIS: frozenset[Api] = frozenset({"chat", "completions"})


# A Messages request has no such field (Anthropic refuses it as an extra input), and its
# translation to chat drops what Messages has not: sent to `/v1/messages`, even on `local`,
# it was answered unconstrained without a word (found in review)
NOT_ON_MESSAGES = (
    f"{FIELD}: the Messages API has no such field (Anthropic refuses it as an extra input); "
    "it is vLLM's own output constraint, taken by vLLM's chat, completions and Responses "
    "requests: send it in one of those, to a model with a local backend not through "
    "litellm, or leave it out"
)


def vllm_field(api: Api, body: Mapping[str, Any]) -> str | None:
    """The field of `body` that holds an output constraint of vLLM's own, if any:
    `structured_outputs` (null is vLLM's "none"), or `response_format` when its type is
    `structural_tag`."""
    if api in _APIS and body.get(FIELD) is not None:
        return FIELD
    fmt = body.get("response_format") if api in _FORMAT_APIS else None
    if isinstance(fmt, dict) and fmt.get("type") == "structural_tag":
        return "response_format"
    return None


def is_vllm(backend: BackendSettings) -> bool:
    """Whether the router takes `backend` for vLLM (DESIGN.md: the local tier is vLLM), the
    one answer for every vLLM-only thing a request may carry: its output constraints (the
    plan keeps them to such a backend), its sampling and template extras
    (`router.backends.vllm_own` leaves them out elsewhere) and a Messages prefill's
    `continue_final_message` (`router.translate.exchange`). A `kind: openai` backend on the
    local tier, unless it is OpenAI's own API, which refuses an argument it does not know;
    litellm hands on only the fields of OpenAI's chat request. Three copies of this
    disagreed for a local backend at `https://api.openai.com/v1`: it kept
    `structured_outputs` (refused there) and dropped `top_k` (found in review)."""
    return (
        backend.kind == "openai" and backend.tier == "local" and not openai_hosted(backend.base_url)
    )


def named(field: str) -> str:
    """The constraint as the client sent it, for a message."""
    return f"{field} of type structural_tag" if field == "response_format" else field


_CLOUD = "a cloud backend refuses it or answers unconstrained"


def why(field: str, *, cloud: bool = True, litellm: bool = False) -> str:
    """Why a backend was passed over for `field`, in words a client's error can carry: for
    a cloud backend (`cloud`), a local one through litellm (`litellm`), or both. Told "a
    cloud backend refuses it" of `model: ollama`, a local backend, a client read a router
    that mistook its tier (found in review)."""
    whose = [
        *([_CLOUD] if cloud else []),
        *(["litellm drops it, and the local server answers unconstrained"] if litellm else []),
    ]
    return (
        f"{named(field)} is vLLM's own output constraint, which only a local backend (not "
        f"through litellm) honours: {', and '.join(whose or [_CLOUD])}"
    )


def reads_every_tool(api: Api, backend: BackendSettings) -> bool:
    """Whether `backend` reads a Messages body's deferred tools that no search loaded: it
    speaks Messages itself and renders every tool it is sent (vLLM's `/v1/messages`), unlike
    Anthropic's own API and the chat translation, which leave them out
    (`request_size.window_tokens`). A vLLM declared `apis: [messages]` alone looks
    like Anthropic's own (`pairing.anthropic_own`) but is still vLLM: judged by the offered
    tools, it was sent a prompt past its window (found in review)."""
    own = anthropic_own(backend) and not is_vllm(backend)
    return api == "messages" and native(api, backend) and not own
