"""The answer's tool calls as the relay keeps them, for shadow comparison, and their names
counted as generated output: read from the Messages and Responses events (`events`), native
and translated alike; a chat stream's calls are keyed and counted in `router.relay.Tally`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from router.translate.namespaces import joined
from router.translate.so_far import Text

_CALL_ITEMS = ("function_call", "custom_tool_call")  # whose `name` the model generated


@dataclass(slots=True)
class KeptCall:
    """A tool call of the answer, kept for shadow comparison. Its arguments are kept as they
    streamed in, joined as they come (`so_far.Text`), and whole when read: adding each piece
    to one string copied it every time, quadratic in the call's length (an agent writing a
    large file sends 80,000), and a list of one str per piece held 15 times the arguments
    (found in re-review). A chat call's are its `CallKeys`' own, kept there once (`Tally`); a
    custom call's (Codex's `apply_patch`) are its input as it came, read as the one argument
    `input` (`keep_item_call`): encoded when kept, they were a second copy of the input its
    done item holds."""

    name: str = ""
    pieces: Text = field(default_factory=Text)
    custom: bool = False  # `pieces` are a custom call's input: read as `{"input": ...}`

    @property
    def arguments(self) -> str:
        text = str(self.pieces)
        return orjson.dumps({"input": text}).decode() if self.custom else text


class Keeping(Protocol):
    """What of the relay's tally the calls go to (`events.Watched`)."""

    output_chars: int
    keep_text: bool
    tool_calls: dict[int, KeptCall]  # by position; kept with the text


def count_name(tally: Keeping, name: Any) -> None:
    """A tool call's name: generated output, as its arguments are (the estimate counted
    the arguments alone; a chat stream's counts both, `generated_call_chars`)."""
    if isinstance(name, str):
        tally.output_chars += len(name)


def keep_call(
    tally: Keeping, position: Any, name: Any, arguments: str = "", custom: bool = False
) -> None:
    if tally.keep_text and isinstance(position, int) and isinstance(name, str):
        tally.tool_calls[position] = KeptCall(name, Text([arguments]), custom)


def count_call_name(tally: Keeping, item: Any) -> None:
    """The name of a Responses function (or custom tool) call item: generated output."""
    if isinstance(item, dict) and item.get("type") in _CALL_ITEMS:
        count_name(tally, item.get("name"))


def keep_item_call(tally: Keeping, position: Any, item: dict[str, Any]) -> None:
    """A Responses function (or custom tool) call, kept whole as its item is done. A custom
    call (Codex's `apply_patch`) is read as a function of one argument `input`: the shape
    the shadow, asked in chat, gets the tool in (`responses_request.CUSTOM_PARAMETERS`) and
    answers in. Read as its bare text, it never equalled the shadow's `{"input": ...}`, and
    every apply_patch comparison disagreed, the same patch on both sides too. Either is kept
    as the item's own string (a stream's `SoFar` holds its done item too), not a copy. A
    namespaced tool's call is kept under its joined name, the one the shadow, asked in chat,
    knows it by (`router.translate.namespaces`; where chat's is hashed, the shadow's calls
    are read back to it: `router.shadow_names`)."""
    kind = item.get("type")
    name, namespace = item.get("name"), item.get("namespace")
    if isinstance(name, str) and isinstance(namespace, str) and namespace:
        name = joined(namespace, name)
    if kind == "function_call":
        keep_call(tally, position, name, str(item.get("arguments") or ""))
    elif kind == "custom_tool_call":
        text = item.get("input")
        keep_call(tally, position, name, text if isinstance(text, str) else "", True)
