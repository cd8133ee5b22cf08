"""The chat-shaped view of any API's request: what the classifier and the conversation key read.

The classifier reads chat requests (messages with text, tools, tool_choice). A Messages or
Responses body is translated for it, bounded like the classifier's own reading: the first
few and the last `_TAIL` turns only, so a 200k-token conversation costs what a short one does.
"""

from __future__ import annotations

from typing import Any

from router.record import Api
from router.translate import anthropic_request, responses_request

_HEAD = 2
_TAIL = 62


def chat_view(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    if api == "chat":
        return body
    if api == "completions":
        return {"messages": [{"role": "user", "content": str(body.get("prompt", ""))}]}
    if api == "messages":
        view = anthropic_request.to_chat(_bounded(body, "messages"))
    else:
        items = body.get("input")
        bounded = _bounded(body, "input") if isinstance(items, list) else body
        view = responses_request.to_chat({**bounded, "previous_response_id": None})
    if body.get("prompt_cache_key"):
        view["prompt_cache_key"] = body["prompt_cache_key"]
    return view


def _bounded(body: dict[str, Any], key: str) -> dict[str, Any]:
    turns = body.get(key)
    if not isinstance(turns, list) or len(turns) <= _HEAD + _TAIL:
        return body
    return {**body, key: turns[:_HEAD] + turns[-_TAIL:]}
