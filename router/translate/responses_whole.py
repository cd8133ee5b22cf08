"""A whole chat completion as a whole OpenAI Responses reply (a stream's events:
`router.translate.responses_reply`, whose docstring says what the items and their statuses
mean, the same either way)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from router.translate.responses_items import (
    CUT,
    call_item,
    envelope,
    finish,
    parses,
    reasoning_id,
    reasoning_item,
    response_id,
    text_item,
)
from router.translate.tool_ids import ToolIds
from router.translate.wire import arguments_text, content_text, first_choice, reasoning_text


def from_chat(
    chat: dict[str, Any],
    request: dict[str, Any],
    custom: frozenset[str] = frozenset(),
    namespaced: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """A whole chat completion → a whole Response. Its call ids are unique in the session:
    `request`'s input items hold the ids of earlier turns (`router.translate.tool_ids`).
    `custom`: the chat names of the freeform tools; `namespaced`: the namespace and name of
    each namespaced tool, by its chat name (`router.translate.namespaces`)."""
    namespaced = namespaced or {}
    choice = first_choice(chat)
    message = choice.get("message") or {}
    ids = ToolIds(request=request, prefix="call")
    base = ids.part  # the reply's own, not the backend's id: `responses_items.response_id`
    out = envelope(response_id(base), chat.get("model"), request, "completed", int(time.time()))
    cut = choice.get("finish_reason") in CUT
    thought = reasoning_text(message)
    if thought:  # before the answer, as vLLM's Responses server puts it
        out["output"].append(reasoning_item(reasoning_id(base), thought))
    text = content_text(message.get("content"))
    if text:
        out["output"].append(text_item(f"msg_{base}", text))
    if isinstance(message.get("refusal"), str) and message["refusal"]:
        out["output"].append(text_item(f"msg_{base}_r", message["refusal"], refusal=True))
    for index, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function") or {}
        name = str(function.get("name") or "")
        arguments = arguments_text(function.get("arguments"))
        namespace, own = namespaced.get(name, (None, name))
        out["output"].append(
            call_item(
                f"fc_{base}_{index}",
                ids.id(call.get("id"), index),
                own,
                arguments,
                name in custom,
                "incomplete" if cut and not parses(arguments) else "completed",
                namespace,
            )
        )
    if cut and out["output"]:  # the last item is the one the model was writing
        out["output"][-1]["status"] = "incomplete"
    return finish(out, choice.get("finish_reason"), chat.get("usage"), chat.get("service_tier"))
