"""A Responses request on its way to a backend that speaks Responses itself. Pure.

Such a backend gets the client's body as sent (pass-through), but for the reasoning items the
router made itself, translating a chat backend's reasoning (`responses_items.reasoning_id`).
A client that appends each turn's `output` to the next one's `input`, as OpenAI documents
and the `openai` SDK's users do, sends them back; when that next turn went to OpenAI, which
holds no item by that id, it answered `404 Item with id 'rs_…' not found` and the turn
failed, because the one before had come from a chat backend (found in re-review). Such an
item holds no `encrypted_content` and no state any server keeps: it only shows the reasoning
to the client, and dropping it loses the backend nothing. Every other reasoning item (OpenAI's
own, with or without `encrypted_content`) goes as sent. An `input` of nothing but such items
is refused before any attempt (`router.request`, with `only_own_reasoning`), for every
backend: sent empty, a native backend answered "input: Field required", which named no
cause the client could see, and a chat one got `{"messages": []}` (found in re-review).
"""

from __future__ import annotations

from typing import Any

from router.translate.responses_items import OWN_REASONING


def for_native(body: dict[str, Any]) -> dict[str, Any]:
    """`body` without the router's own reasoning items in its `input` (itself when it has
    none: the body is copied only to drop one)."""
    items = body.get("input")
    if not isinstance(items, list) or not any(map(_own_reasoning, items)):
        return body
    return {**body, "input": [item for item in items if not _own_reasoning(item)]}


def only_own_reasoning(items: list[Any]) -> bool:
    """Whether `items` (a non-empty `input`) holds nothing but the router's own reasoning
    items: no backend would be sent anything."""
    return all(map(_own_reasoning, items))


def _own_reasoning(item: Any) -> bool:
    if not isinstance(item, dict) or item.get("type") != "reasoning":
        return False
    given = item.get("id")
    return isinstance(given, str) and given.startswith(OWN_REASONING)
