"""The ids of the tool calls a chat reply becomes, on Messages (tool_use blocks) and on
Responses (function and custom tool calls): present, and unique in the session.

Claude Code and Codex answer each call by its id and send every call of the session back
with each turn. A chat backend that names no call gave `toolu_0` (`call_0` on Responses) on
every turn, pairing a later output with an earlier call, and one that numbers its calls per
reply (`call_0`, as some vLLM tool parsers and Ollama do) repeats an id of the history: Codex
then sent two calls and two outputs under one call_id, which the chat backend got as
duplicate tool_call ids, an output paired with the wrong call. So a call without an id gets
one made unique by a random part per reply (`toolu_<part>_<n>`, `call_<part>_<n>`), and an
id this reply or the history (`history_ids`) holds already gets the part too: the same
mapping for a whole reply and a stream, on both APIs.
Any other id reaches the client as the upstream gave it, characters and all: Kimi-K2 on
vLLM names its calls `functions.get_weather:0`, its chat template prints the history's ids
back into the prompt and vLLM's parser expects new calls of that form, so a cleaned
`functions_get_weather_0`, which the model may copy, would stop its calls parsing (found in
review). What goes back to a chat backend is the id the client was given, in its tool_use
and its tool_result alike: a chat backend pairs a call with its result within one request
only, so no mapping back is needed. Anthropic's API refuses ids outside `^[a-zA-Z0-9_-]+$`
and repeated ones: a request to a backend that speaks Messages itself has its history's ids
made so there, for that request only (`router.translate.native_messages`).
"""

from __future__ import annotations

import secrets
from typing import Any


def reply_part() -> str:
    """A random part for one reply's made-up ids: 64 bits, no two replies alike. A Responses
    reply's items and the response itself are named by it as well (`ToolIds.part`)."""
    return secrets.token_hex(8)


def history_ids(request: dict[str, Any]) -> frozenset[str]:
    """The call ids a request's history holds already, as they go to a chat backend: a
    Messages request's tool_use ids; a Responses request's function and custom tool calls'
    (`call_id`, else `id`, as `responses_request` maps them) and their outputs': an output
    whose call the input no longer holds still pairs, on the chat backend, with any call of
    its id."""
    found: set[str] = set()
    for turn in _listed(request.get("messages")):
        for block in _listed(turn.get("content")):
            if block.get("type") == "tool_use":
                found.add(str(block.get("id")))
    for item in _listed(request.get("input")):  # a string input holds no call
        kind = item.get("type")
        if kind in _CALLS:
            found.add(str(item.get("call_id") or item.get("id") or ""))
        elif kind in _OUTPUTS:
            found.add(str(item.get("call_id", "")))
    return frozenset(found)


_CALLS = ("function_call", "custom_tool_call")  # the Responses items chat gets as tool_calls
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def _listed(value: Any) -> list[dict[str, Any]]:
    """The dicts of a list, [] for anything else (a string content or input)."""
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


class ToolIds:
    """The ids of one reply's tool calls, given in the order its calls come. `prefix`: the
    made-up ids' (`toolu` on Messages, `call` on Responses, as each API names its calls).
    `request`: the Messages or Responses request it answers, whose history's ids
    (`history_ids`) are read at the first call only: a reply without one walks no history."""

    def __init__(
        self,
        part: str | None = None,
        request: dict[str, Any] | None = None,
        prefix: str = "toolu",
    ) -> None:
        self._part = part or reply_part()
        self._prefix = prefix
        self._request = request
        self._held: set[str] | None = None

    @property
    def part(self) -> str:
        """This reply's random part: its Responses items and response are named by it too
        (`responses_items.response_id`), unique whatever id the backend gave."""
        return self._part

    @property
    def _taken(self) -> set[str]:
        if self._held is None:
            self._held = set(history_ids(self._request)) if self._request else set()
        return self._held

    def id(self, chat_id: Any, position: Any) -> str:
        """The upstream's call id as it gave it, else `<prefix>_<part>_<position>`. One taken
        already, in the history (a backend that numbers its calls per reply: `call_0` every
        turn) or in this reply, gets this reply's part and its place added: Claude Code and
        Codex answer each call by its id."""
        given = str(chat_id) if chat_id else f"{self._prefix}_{self._part}_{position}"
        if given in self._taken:
            given = f"{given}_{self._part}_{position}"
        self._taken.add(given)
        return given
