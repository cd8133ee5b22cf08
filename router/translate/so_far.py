"""What a Responses stream has sent so far, for the `response.failed` that ends it.

OpenAI's `response.failed` carries the output streamed before the failure; the router's
carried `output: []`, and the `openai` SDK's `responses.stream`, which rebuilds the items
only when `output` is absent, took the stream for one without output and lost what had been
streamed (found in review). The relay's tally feeds a `SoFar` the stream's item and delta
events (`router.translate.events`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_NOWHERE = object()  # equal to no output_index: no item open
_LOOSE = 256  # the deltas of a part kept as they came before they are joined into one

# The part events `SoFar.see` opens a part on, and the field of the deltas that names it:
# vLLM streams its reasoning text as `reasoning_part`s (OpenAI as content parts), OpenAI its
# reasoning summary as `reasoning_summary_part`s, counted apart by `summary_index`.
_PART_KEYS = {
    "response.content_part.added": "content_index",
    "response.reasoning_part.added": "content_index",
    "response.reasoning_summary_part.added": "summary_index",
}

_Parts = list[tuple[dict[str, Any], list[str]]]


@dataclass(slots=True)
class _Open:
    """An output item begun (`output_item.added`) and not yet done: its pieces so far."""

    item: dict[str, Any]
    parts: _Parts = field(default_factory=list)  # content: text, refusal, reasoning text
    summary: _Parts = field(default_factory=list)  # a reasoning item's summary
    pieces: list[str] = field(default_factory=list)  # a call's arguments or input

    def cut(self) -> dict[str, Any]:
        """The item `incomplete`, with the text of its parts, as OpenAI and vLLM write a
        done one: a reasoning item's text in `content` (`reasoning_text` parts), its
        summary in `summary` (`summary_text` parts)."""
        item = {**self.item, "status": "incomplete"}
        if self.parts:
            item["content"] = [_filled(part, "".join(text)) for part, text in self.parts]
        if self.summary:
            item["summary"] = [_filled(part, "".join(text)) for part, text in self.summary]
        if item.get("type") == "function_call":
            item["arguments"] = "".join(self.pieces)
        elif item.get("type") == "custom_tool_call":
            item["input"] = "".join(self.pieces)
        return item


def _filled(part: dict[str, Any], text: str) -> dict[str, Any]:
    return {**part, "refusal" if part.get("type") == "refusal" else "text": text}


@dataclass(slots=True)
class SoFar:
    """The output items a Responses stream sent, for the `response.failed` that ends it
    when it breaks: each done item as it was sent, the open one `incomplete` with its text
    so far. With `output: []` there the `openai` SDK's `responses.stream` took the stream
    for one without output (it rebuilds the items only when `output` is absent) and lost
    what had been streamed (found in review).

    A delta is nearly every event of a stream, so `grow` only checks that it is for the
    part (or call) begun last, the one OpenAI, vLLM and the translators write into: items
    and parts come one after another. Every `_LOOSE` deltas it joins into one piece: a
    delta is a few characters, and each kept as its own `str` cost some 60 bytes, 15 times
    the text (16 MB for 1 MB streamed, found in review). Joining only those since the last
    join, not all the text again, keeps the work linear."""

    done: dict[int, dict[str, Any]] = field(default_factory=dict)
    open: dict[int, _Open] = field(default_factory=dict)
    _index: object = _NOWHERE  # the output_index and part the deltas are for:
    _key: str = "content_index"  # the field that names the part in a delta,
    _part: object = None  # and its value (None: a call's, which have no content_index)
    _pieces: list[str] = field(default_factory=list)  # what they go into,
    _full: int = _LOOSE  # and how many pieces it holds when its loose deltas are joined

    def grow(self, obj: dict[str, Any], delta: Any) -> None:
        """A text, refusal, reasoning, summary, arguments or input delta."""
        at = obj.get("output_index") == self._index and obj.get(self._key) == self._part
        if at and isinstance(delta, str):
            pieces = self._pieces
            pieces.append(delta)
            if len(pieces) == self._full:
                self._join(pieces)

    def _join(self, pieces: list[str]) -> None:
        """The last `_LOOSE` deltas into one piece (the pieces before are joined ones)."""
        joined = self._full - _LOOSE
        pieces[joined:] = ["".join(pieces[joined:])]
        self._full = joined + 1 + _LOOSE

    def see(self, kind: str, obj: dict[str, Any]) -> None:
        """An item added or done, a part added, or a delta `grow` takes."""
        index, given = obj.get("output_index"), obj.get("item")
        if not isinstance(index, int):
            return
        if kind == "response.output_item.added" and isinstance(given, dict):
            self.open[index] = _Open(given)
            self._index, self._key, self._part = index, "content_index", None
            self._pieces, self._full = self.open[index].pieces, _LOOSE
        elif kind == "response.output_item.done" and isinstance(given, dict):
            self.open.pop(index, None)
            self.done[index] = given
            if index == self._index:
                self._index = _NOWHERE
        elif kind in _PART_KEYS and isinstance(obj.get("part"), dict):
            item = self.open.get(index)
            if item is not None and index == self._index:
                key = _PART_KEYS[kind]
                pieces: list[str] = []
                into = item.summary if key == "summary_index" else item.parts
                into.append((obj["part"], pieces))
                self._key, self._part = key, obj.get(key)
                self._pieces, self._full = pieces, _LOOSE
        elif kind.endswith(".delta"):
            self.grow(obj, obj.get("delta"))

    def output(self) -> list[dict[str, Any]]:
        indexes = sorted(self.done.keys() | self.open.keys())
        return [self.done[i] if i in self.done else self.open[i].cut() for i in indexes]
