"""A Responses request on its way to a backend that speaks Responses itself. Pure.

Such a backend gets the client's body as sent (pass-through), but for the reasoning items the
router made itself, translating a chat backend's reasoning (`responses_items.reasoning_id`),
whole or by reference (`item_reference`, which `router.stored_items` leaves out first).
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

A custom tool with a grammar (Codex's `apply_patch`: `format: {"type": "grammar", "syntax":
"lark", ...}`) goes as sent only to OpenAI's own API (`evals.urls.openai_hosted`), which
enforces it. vLLM's Responses server refuses the whole request for one ("Custom tools with
a grammar format are not supported; only free-form text custom tools are accepted."), so
Codex on a vLLM backend that declares `responses` got a 400 every turn (found in review).
Any other backend gets it as a free-form custom tool whose description carries the grammar,
as a chat backend gets it (`custom_format`): vLLM shows a custom tool to its model as a
function of one string argument, `input`, the form those words describe.
"""

from __future__ import annotations

from typing import Any

from router.translate.custom_format import described
from router.translate.responses_items import OWN_REASONING
from router.translate.responses_request import is_reference


def for_native(body: dict[str, Any], openai: bool) -> dict[str, Any]:
    """`body` without the router's own reasoning items in its `input` and, unless the backend
    is OpenAI's own API (`openai`), with its grammar tools free-form (itself when there is
    nothing to change: the body is copied only to change something)."""
    out = body
    items = body.get("input")
    if isinstance(items, list) and any(map(own_reasoning, items)):
        out = {**out, "input": [item for item in items if not own_reasoning(item)]}
    tools = body.get("tools")
    if not openai and isinstance(tools, list) and any(map(_grammar_tool, tools)):
        out = {**out, "tools": [_free_form(t) if _grammar_tool(t) else t for t in tools]}
    return out


def _grammar_tool(tool: Any) -> bool:
    """A custom tool with a grammar format: what vLLM's request model refuses, by its test."""
    if not isinstance(tool, dict) or tool.get("type") != "custom":
        return False
    fmt = tool.get("format")
    return isinstance(fmt, dict) and fmt.get("type") == "grammar"


def _free_form(tool: dict[str, Any]) -> dict[str, Any]:
    """A grammar tool as a free-form one (no `format`), its grammar told in its description."""
    out = {key: value for key, value in tool.items() if key != "format"}
    told = described(tool.get("description"), tool["format"])
    if told is not None:
        out["description"] = told
    return out


def only_own_reasoning(items: list[Any]) -> bool:
    """Whether `items` (a non-empty `input`) holds nothing but the router's own reasoning
    items: no backend would be sent anything."""
    return all(map(own_reasoning, items))


def own_reasoning(item: Any) -> bool:
    """A reasoning item the router made, or a reference to one (`router.stored_items`: the
    Vercel AI SDK sends it so): neither names anything a backend holds."""
    if not isinstance(item, dict) or not (item.get("type") == "reasoning" or is_reference(item)):
        return False
    given = item.get("id")
    return isinstance(given, str) and given.startswith(OWN_REASONING)
