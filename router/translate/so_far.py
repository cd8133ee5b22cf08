"""What a Responses stream has sent so far, for the `response.failed` that ends it.

OpenAI's `response.failed` carries the output streamed before the failure; the router's
carried `output: []`, and the `openai` SDK's `responses.stream`, which rebuilds the items
only when `output` is absent, took the stream for one without output and lost what had been
streamed (found in review). The relay's tally feeds a `SoFar` the stream's item and delta
events (`router.translate.events`); a translated custom tool call's input, which no event
carried until its call closed, comes from the translator (`Translation.held_input`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

_NOWHERE = object()  # equal to no output_index: no item open
_LOOSE = 256  # the deltas of a part kept as they came before they are joined into one

# The part events `SoFar.see` opens a part on, and the field of the deltas that names it:
# OpenAI (and the router's translation) stream reasoning text as content parts of type
# `reasoning_text`, vLLM as `reasoning_part`s (its stopgap, no event of OpenAI's spec), OpenAI
# its reasoning summary as `reasoning_summary_part`s, counted apart by `summary_index`.
_PART_KEYS = {
    "response.content_part.added": "content_index",
    "response.reasoning_part.added": "content_index",
    "response.reasoning_summary_part.added": "summary_index",
}


@dataclass(slots=True)
class Text:
    """The deltas of a part (or a call) so far. Every `_LOOSE` deltas are joined into one
    piece: a delta is a few characters, and each kept as its own `str` cost some 60 bytes,
    15 times the text (16 MB for 1 MB streamed, found in review). Joining only those since
    the last join, not all the text again, keeps the work linear. (The Responses translator
    holds a reasoning's first pieces in one too: `router.translate.held_reasoning`.)"""

    pieces: list[str] = field(default_factory=list)
    full: int = _LOOSE  # how many pieces it holds when its loose deltas are joined

    def add(self, delta: str) -> None:
        pieces = self.pieces
        pieces.append(delta)
        if len(pieces) == self.full:
            self.join()

    def join(self) -> None:
        """The last `_LOOSE` deltas into one piece (the pieces before are joined ones)."""
        joined = self.full - _LOOSE
        self.pieces[joined:] = ["".join(self.pieces[joined:])]
        self.full = joined + 1 + _LOOSE

    def __str__(self) -> str:
        return "".join(self.pieces)


_Parts = list[tuple[Any, dict[str, Any], Text]]  # each part's index, the part, its text


@dataclass(slots=True)
class _Open:
    """An output item begun (`output_item.added`) and not yet done: its pieces so far."""

    item: dict[str, Any]
    parts: _Parts = field(default_factory=list)  # content: text, refusal, reasoning text
    summary: _Parts = field(default_factory=list)  # a reasoning item's summary
    pieces: Text = field(default_factory=Text)  # a call's arguments or input

    def cut(self, held: str = "") -> dict[str, Any]:
        """The item `incomplete`, with the text of its parts, as OpenAI and vLLM write a
        done one: a reasoning item's text in `content` (`reasoning_text` parts), its
        summary in `summary` (`summary_text` parts); a custom call's input is the one sent,
        then the one `held` (the translator's, which sent only empty deltas)."""
        item = {**self.item, "status": "incomplete"}
        if self.parts:
            item["content"] = [_filled(part, str(text)) for _, part, text in self.parts]
        if self.summary:
            item["summary"] = [_filled(part, str(text)) for _, part, text in self.summary]
        if item.get("type") == "function_call":
            item["arguments"] = str(self.pieces)
        elif item.get("type") == "custom_tool_call":
            item["input"] = str(self.pieces) + held
        return item

    def text_of(self, obj: dict[str, Any]) -> Text | None:
        """The text a delta names by its `summary_index` or `content_index` (the last part
        with that index), or a call's arguments when it names no part."""
        for key, parts in (("summary_index", self.summary), ("content_index", self.parts)):
            if key in obj:
                at = obj[key]
                return next((text for index, _, text in reversed(parts) if index == at), None)
        return self.pieces


def _filled(part: dict[str, Any], text: str) -> dict[str, Any]:
    return {**part, "refusal" if part.get("type") == "refusal" else "text": text}


@dataclass(slots=True)
class SoFar:
    """The output items a Responses stream sent, for the `response.failed` that ends it
    when it breaks: each done item as it was sent, the open one `incomplete` with its text
    so far. With `output: []` there the `openai` SDK's `responses.stream` took the stream
    for one without output (it rebuilds the items only when `output` is absent) and lost
    what had been streamed (found in review).

    A delta is nearly every event of a stream, so `grow` first checks only that it is for
    the part (or call) begun last, the one OpenAI, vLLM and the translators write into:
    items and parts come one after another. A delta for another open part (by its
    `content_index` or `summary_index`) is looked up: the `openai` SDK appends it to that
    part, and dropping it made the output here disagree with the SDK's (found in review)."""

    done: dict[int, dict[str, Any]] = field(default_factory=dict)
    open: dict[int, _Open] = field(default_factory=dict)
    _index: object = _NOWHERE  # the output_index and part the deltas are for:
    _key: str = "content_index"  # the field that names the part in a delta,
    _part: object = None  # and its value (None: a call's, which have no content_index)
    _text: Text = field(default_factory=Text)  # what they go into

    def grow(self, obj: dict[str, Any], delta: Any) -> None:
        """A text, refusal, reasoning, summary, arguments or input delta."""
        if obj.get("output_index") == self._index and obj.get(self._key) == self._part:
            if isinstance(delta, str):
                text = self._text
                pieces = text.pieces
                pieces.append(delta)
                if len(pieces) == text.full:
                    text.join()
        elif isinstance(delta, str):
            self._late(obj, delta)

    def _late(self, obj: dict[str, Any], delta: str) -> None:
        """A delta for an open part (or call) begun before the last one."""
        index = obj.get("output_index")
        item = self.open.get(index) if isinstance(index, int) else None
        text = item.text_of(obj) if item is not None else None
        if text is not None:
            text.add(delta)

    def see(self, kind: str, obj: dict[str, Any]) -> None:
        """An item added or done, a part added, or a delta `grow` takes."""
        index, given = obj.get("output_index"), obj.get("item")
        if not isinstance(index, int):
            return
        if kind == "response.output_item.added" and isinstance(given, dict):
            self.open[index] = _Open(given)
            self._index, self._key, self._part = index, "content_index", None
            self._text = self.open[index].pieces
        elif kind == "response.output_item.done" and isinstance(given, dict):
            self.open.pop(index, None)
            self.done[index] = given
            if index == self._index:  # its text let go: the done item has it whole (the
                # `_Open`'s was held on here, a second copy of it, found in re-review)
                self._index, self._text = _NOWHERE, Text()
        elif kind in _PART_KEYS and isinstance(obj.get("part"), dict):
            item = self.open.get(index)
            if item is not None:
                key = _PART_KEYS[kind]
                text = Text()
                into = item.summary if key == "summary_index" else item.parts
                into.append((obj.get(key), obj["part"], text))
                self._index, self._key, self._part, self._text = index, key, obj.get(key), text
        elif kind.endswith(".delta"):
            self.grow(obj, obj.get("delta"))

    def output(self, held: Mapping[int, str] | None = None) -> list[dict[str, Any]]:
        """The items so far; `held`: an open call's input no event carried, by output index
        (a cut custom call showed an empty input, though the router held what came)."""
        held = held or {}
        indexes = sorted(self.done.keys() | self.open.keys())
        return [
            self.done[i] if i in self.done else self.open[i].cut(held.get(i, "")) for i in indexes
        ]
