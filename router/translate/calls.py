"""Which call a chat stream's `tool_calls[]` fragment belongs to.

OpenAI and vLLM number each call with `index` and send its `id` once, on its first fragment;
later fragments of the same index continue it. Not every upstream does: Ollama gives every
call of a parallel batch `index: 0`, each whole with its own id (ollama/ollama#15457), and
Gemini's OpenAI-compatible endpoint and some proxies send no `index`, the calls side by side
in one delta. So a missing index is the call's position in the delta's list, and a fragment
whose id differs from that of the call under its index starts another call.
"""

from __future__ import annotations

from typing import Any


class CallKeys:
    """Numbers the calls of one chat stream 0, 1, … in the order they begin."""

    __slots__ = ("_begun", "_ids", "_keys")

    def __init__(self) -> None:
        self._keys: dict[int, int] = {}  # a chat index → the key of its latest call
        self._ids: dict[int, str] = {}  # a chat index → the id its latest call came with
        self._begun = 0

    def key(self, call: dict[str, Any], position: int) -> int:
        """The key of the call that `call`, at `position` in its delta's list, belongs to."""
        index = call.get("index")
        if not isinstance(index, int):
            index = position
        given = call.get("id")
        named = given if isinstance(given, str) and given else None
        if index not in self._keys or (named and named != self._ids.get(index, named)):
            self._keys[index], self._begun = self._begun, self._begun + 1
        if named:
            self._ids[index] = named
        return self._keys[index]
