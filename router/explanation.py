"""The explain document: where a request would go and why, nothing sent. One function makes
it for `POST /v1/router/explain` and for `smf-router classify --json`, so the two agree.

The body names its API in an `api` field (default chat). A Messages or Responses body read
as chat is classified otherwise than when served (its `tool_choice`, system blocks and tool
results misread; found in review), and one sent without `api` was read as chat in silence
(a Claude Code body: 0.7715 where serving said 0.7409): such a body now gets a `warning`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from router.auth import Caller
from router.errors import BadRequest
from router.gateway import Gateway
from router.record import Api

EXPLAINED_APIS: tuple[Api, ...] = ("chat", "completions", "messages", "responses")
# Content blocks that only the Messages API has: a chat message carries a tool's call and
# result in `tool_calls` and a `tool` message instead
_MESSAGES_BLOCKS = frozenset({"tool_use", "tool_result"})


def explain(
    gateway: Gateway, body: dict[str, Any], caller: Caller, headers: Mapping[str, str]
) -> dict[str, Any]:
    """The explain document of `body`, its `api` field taken out of it: the gateway's plan,
    and a `warning` (else null) when no `api` was named and the body looks like another
    API's. Never a refusal of its own for that (a client that sent such bodies got a 200,
    and still does); a body the chat reading refuses anyway gets the warning in its 400."""
    lookalike = None if "api" in body else looks_like(body)
    api = requested_api(body)
    warning = None if lookalike is None else unnamed_api_warning(*lookalike)
    try:
        explained = gateway.explain(api, body, caller, headers)
    except BadRequest as exc:  # `messages` missing, when it is `input` or `prompt` the body has
        if warning is not None:
            exc.message = f"{exc.message}; {warning}"
        raise
    explained["warning"] = warning
    return explained


def requested_api(body: dict[str, Any]) -> Api:
    """The API `body` names in its `api` field, taken out of it; chat when there is none. A
    400 naming `api` for one that is not an API explain reads: `{"api": 5}` was explained as
    chat (found in review)."""
    api = body.pop("api", "chat")
    if not isinstance(api, str) or api not in EXPLAINED_APIS:
        raise BadRequest(f"'api' must be one of {', '.join(EXPLAINED_APIS)}", param="api")
    return api


def looks_like(body: dict[str, Any]) -> tuple[Api, str] | None:
    """The API other than chat a body looks like, and the fields that say so; None for a
    chat body. Messages: a top-level `system` (chat has none) or `tool_use` / `tool_result`
    content blocks; Responses: `input` without `messages`; completions: `prompt` without
    `messages`."""
    messages = body.get("messages")
    if messages is None:
        if "input" in body:
            return "responses", '"input" without "messages"'
        if "prompt" in body:
            return "completions", '"prompt" without "messages"'
        return None
    if "system" in body:
        return "messages", 'a top-level "system"'
    if _has_messages_blocks(messages):
        return "messages", '"tool_use" or "tool_result" content blocks'
    return None


def unnamed_api_warning(api: Api, why: str) -> str:
    """What a body that looks like `api`'s (`looks_like`) but named none is told."""
    return (
        f'the body names no "api" and has {why}, as a {api} body does: it was read as chat, '
        f'which may classify it otherwise than serving it does; add "api": "{api}" '
        f"(smf-router classify: --api {api})"
    )


def _has_messages_blocks(messages: object) -> bool:
    if not isinstance(messages, list):
        return False  # the chat reading refuses it, naming `messages`
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(_messages_block(block) for block in content):
            return True
    return False


def _messages_block(block: object) -> bool:
    """A `tool_use` or `tool_result` block; not one typed with a list (unhashable), which
    chat reading skips (`test_explain_skips_an_odd_content_part_instead_of_failing`)."""
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    return isinstance(kind, str) and kind in _MESSAGES_BLOCKS
