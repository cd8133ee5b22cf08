"""A Messages request on its way to a backend that speaks Messages itself. Pure.

Such a backend gets the client's body as sent (pass-through), but for the tool_use ids of
its history. Anthropic's API refuses a `tool_use.id` outside `^[a-zA-Z0-9_-]+$` and a
history whose tool_use ids repeat ("tool_use ids must be unique"). Turns a chat backend
served earlier in the session carry that backend's ids as it gave them
(`router.translate.tool_ids`): Kimi-K2 on vLLM names its calls `functions.get_weather:0`,
and it needs that form back in its own prompt, so the ids are made Anthropic's here, where
the session moves to a native backend, not in the reply to the client (found in review).

One mapping per request rewrites every tool_use `id` and every tool_result `tool_use_id`
of `messages`: an id of Anthropic's pattern stays itself, another becomes its cleaned form
(every other character `_`), with a suffix when that form is another id of the request,
so distinct ids stay distinct and equal ones equal. Then a tool_use whose id an earlier
tool_use holds already gets a suffix too, and so do the tool_results that answer it: a
tool_result answers the tool_use of its id in the nearest assistant message before it.
The backend's reply needs no mapping back: its ids are its own, new ones. The client's
history keeps its ids; the next request is mapped afresh, to the same ids.

Server tools (`web_search_20250305`, `bash_20250124`, …: a versioned `type`, no
`input_schema`) run only at Anthropic (`pairing.anthropic_own`). vLLM's `/v1/messages`
refused a request offering one ("body.tools.N.input_schema: Field required"), and Claude
Code offers them; every other backend gets the request without them, as a chat backend does
(`anthropic_request.is_server_tool`), and without a `tool_choice` naming one of them (vLLM:
"The tool with name 'web_search' is not found in the tools list.").
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any

from router.translate.anthropic_request import is_server_tool

ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
"""Anthropic's own check of `tool_use.id` (and of a tool_result's `tool_use_id`)."""

_OUTSIDE = re.compile(r"[^A-Za-z0-9_-]")


def for_native(body: dict[str, Any], anthropic: bool) -> dict[str, Any]:
    """`body` with the tool ids of its `messages` valid and unique for Anthropic and, unless
    the backend is Anthropic's (`anthropic`), without server tools (itself when there is
    nothing to change: the body is copied only to change something)."""
    out = body if anthropic else _client_tools_only(body)
    messages = body.get("messages")
    if not isinstance(messages, list):
        return out
    given = [block for turn in messages for block in _tool_blocks(turn)]
    ids = [block[_KEY[block["type"]]] for block in given]
    uses = [block["id"] for block in given if block["type"] == "tool_use"]
    if all(map(ANTHROPIC_ID.match, ids)) and len(uses) == len(set(uses)):
        return out
    return {**out, "messages": _renamed(messages, _mapping(ids))}


def _client_tools_only(body: dict[str, Any]) -> dict[str, Any]:
    """`body` without its server tools (no `tools` when none is left), and without a named
    `tool_choice` of one of them."""
    tools = body.get("tools")
    if not isinstance(tools, list) or not any(map(is_server_tool, tools)):
        return body
    kept = [tool for tool in tools if not is_server_tool(tool)]
    out = {key: value for key, value in body.items() if key != "tools"}
    if kept:
        out["tools"] = kept
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "tool":
        dropped = [tool.get("name") for tool in tools if is_server_tool(tool)]
        if choice.get("name") in dropped:
            del out["tool_choice"]
    return out


_KEY = {"tool_use": "id", "tool_result": "tool_use_id"}


def _tool_blocks(turn: Any) -> list[dict[str, Any]]:
    """The tool_use and tool_result blocks of one message whose id is a string."""
    content = turn.get("content") if isinstance(turn, dict) else None
    return [
        block
        for block in (content if isinstance(content, list) else ())
        if isinstance(block, dict)
        and isinstance(block.get("type"), str)  # a list's `in _KEY` raised TypeError: a 500
        and block["type"] in _KEY
        and isinstance(block.get(_KEY[block["type"]]), str)
    ]


def _mapping(ids: list[str]) -> dict[str, str]:
    """Each distinct id of the request → the id of Anthropic's pattern it becomes: itself
    when it is one, else its cleaned form, suffixed past every id of the request."""
    mapped = {given: given for given in ids if ANTHROPIC_ID.match(given)}
    taken = set(mapped)
    for given in ids:
        if given not in mapped:
            mapped[given] = _free(_OUTSIDE.sub("_", given) or "toolu", taken)
    return mapped


def _free(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, `base_3`…: the first not taken, which it then is."""
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}_{n}"
    taken.add(candidate)
    return candidate


def _renamed(messages: list[Any], mapped: dict[str, str]) -> list[Any]:
    """`messages` with their tool ids mapped, a repeated tool_use's (and its results') made
    unique. `answers`: per id of the nearest assistant message, the ids its tool_uses got,
    in order, which its tool_results take in turn (the last one for any more)."""
    taken = set(mapped.values())
    seen: set[str] = set()
    answers: dict[str, deque[str]] = {}
    out: list[Any] = []
    for turn in messages:
        if not _tool_blocks(turn):
            out.append(turn)
            continue
        assistant = turn.get("role") == "assistant"
        if assistant:
            answers = {}
        content: list[Any] = []
        for block in turn["content"]:
            kind = block.get("type") if isinstance(block, dict) else None
            key = _KEY.get(kind) if isinstance(kind, str) else None
            if key is None or not isinstance(block.get(key), str):
                content.append(block)
                continue
            given = block[key]
            new = mapped[given]
            if kind == "tool_use":
                if new in seen:
                    new = _free(new, taken)
                seen.add(new)
                if assistant:
                    answers.setdefault(given, deque()).append(new)
            elif given in answers:
                waiting = answers[given]
                new = waiting.popleft() if len(waiting) > 1 else waiting[0]
            content.append({**block, key: new})
        out.append({**turn, "content": content})
    return out
