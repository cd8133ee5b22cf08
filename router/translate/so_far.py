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


@dataclass(slots=True)
class _Open:
    """An output item begun (`output_item.added`) and not yet done: its pieces so far."""

    item: dict[str, Any]
    parts: list[tuple[dict[str, Any], list[str]]] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)  # a call's arguments or input

    def cut(self) -> dict[str, Any]:
        item = {**self.item, "status": "incomplete"}
        if self.parts:
            item["content"] = [_filled(part, "".join(text)) for part, text in self.parts]
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
    when it breaks: each done item as it was sent, the open one `incomplete` with its pieces
    so far. With `output: []` there the `openai` SDK's `responses.stream` took the stream
    for one without output (it rebuilds the items only when `output` is absent) and lost
    what had been streamed (found in review).

    A delta is nearly every event of a stream, so `grow` only checks that it is for the
    part (or call) begun last, the one OpenAI, vLLM and the translators write into: items
    and parts come one after another."""

    done: dict[int, dict[str, Any]] = field(default_factory=dict)
    open: dict[int, _Open] = field(default_factory=dict)
    _index: object = _NOWHERE  # the output_index and content_index the deltas are for
    _part: object = None  # (None: a call's, which have no content_index)
    _pieces: list[str] = field(default_factory=list)

    def grow(self, obj: dict[str, Any], delta: Any) -> None:
        """A text, refusal, arguments or input delta."""
        at = obj.get("output_index") == self._index and obj.get("content_index") == self._part
        if at and isinstance(delta, str):
            self._pieces.append(delta)

    def see(self, kind: str, obj: dict[str, Any]) -> None:
        """An item added or done, a content part added, or a delta `grow` takes."""
        index, given = obj.get("output_index"), obj.get("item")
        if not isinstance(index, int):
            return
        if kind == "response.output_item.added" and isinstance(given, dict):
            self.open[index] = _Open(given)
            self._index, self._part, self._pieces = index, None, self.open[index].pieces
        elif kind == "response.output_item.done" and isinstance(given, dict):
            self.open.pop(index, None)
            self.done[index] = given
            if index == self._index:
                self._index = _NOWHERE
        elif kind == "response.content_part.added" and isinstance(obj.get("part"), dict):
            item = self.open.get(index)
            if item is not None and index == self._index:
                item.parts.append((obj["part"], []))
                self._part, self._pieces = obj.get("content_index"), item.parts[-1][1]
        elif kind.endswith(".delta"):
            self.grow(obj, obj.get("delta"))

    def output(self) -> list[dict[str, Any]]:
        indexes = sorted(self.done.keys() | self.open.keys())
        return [self.done[i] if i in self.done else self.open[i].cut() for i in indexes]
