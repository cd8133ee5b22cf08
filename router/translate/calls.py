"""Which call a chat stream's `tool_calls[]` fragment belongs to.

OpenAI and vLLM number each call with `index` and send its `id` once, on its first fragment;
later fragments of the same index continue it. Not every upstream does: Ollama gives every
call of a parallel batch `index: 0`, each whole with its own id (ollama/ollama#15457), and
Gemini's OpenAI-compatible endpoint and some proxies send no `index`, the calls side by side
in one delta. So a missing index is the call's position in the delta's list, and a fragment
that names a function under a new id starts another call once the call open under its index
has whole JSON arguments. A new id alone is not enough: some upstreams send another id on
later fragments of the same call (Poolside's streaming API, litellm's OCI provider), and
OpenAI's own stream accumulator joins fragments by index.

A call's name is counted once for the output's estimate (`repeated_name`): some upstreams
send it again on each fragment (`blocks.Block.learn`), and counted each time, a call of 53
characters was 146 (found in review).

A call's arguments so far are kept here, once: the `Sequencer`'s block of a call shares them
(`arguments`) rather than keep its own copy, and the Responses translator's item reads the
block's (kept three times, a streamed call held 3.2 times its arguments, found in re-review).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from router.translate.so_far import Text
from router.translate.wire import arguments_text


class CallKeys:
    """Numbers the calls of one chat stream 0, 1, … in the order they begin."""

    __slots__ = ("_arguments", "_begun", "_ids", "_keys", "_named", "arguments")

    def __init__(self) -> None:
        self._keys: dict[int, int] = {}  # a chat index → the key of its latest call
        self._ids: dict[int, str] = {}  # a chat index → the id its latest call came with
        # a chat index → its latest call's argument pieces, joined only when a new id comes:
        # adding to one string per fragment copied it each time (20 s for 1.6 MB of arguments);
        # a `Text`, as a list of one str per fragment held 17 times the text
        self._arguments: dict[int, Text] = {}
        self._begun = 0
        self._named: set[int] = set()  # the keys of the calls a fragment has named
        self.arguments = Text()  # the arguments so far of the call `key` named last

    def key(self, call: dict[str, Any], position: int) -> int:
        """The key of the call that `call`, at `position` in its delta's list, belongs to."""
        index = call.get("index")
        if not isinstance(index, int):
            index = position
        given = call.get("id")
        named = given if isinstance(given, str) and given else None
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        if index not in self._keys or (
            named
            and named != self._ids.get(index, named)
            and function.get("name")
            and _whole_json(self._arguments[index].pieces)
        ):
            self._keys[index], self._begun = self._begun, self._begun + 1
            self._arguments[index] = Text()
        if named:
            self._ids[index] = named
        piece = arguments_text(function.get("arguments"))  # an object (TGI's) as its JSON
        self.arguments = self._arguments[index]
        if piece:
            self.arguments.add(piece)
        return self._keys[index]

    def repeated_name(self, key: int, call: dict[str, Any]) -> int:
        """The length of the function name `call`, a fragment of the call `key`, repeats (0
        on the first fragment naming it), which the output estimate does not count again."""
        function = call.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            return 0
        if key in self._named:
            return len(name)
        self._named.add(key)
        return 0


def _whole_json(pieces: Sequence[str]) -> bool:
    """Whether a call's arguments so far are a complete JSON object or array (not a fragment
    of one). Only arguments that end as one can be: joining and parsing them all for every
    fragment under a new id was quadratic, 5.3 s for 20,000 fragments of an upstream that
    repeats the id and name on each (found in review)."""
    last = next((piece for piece in reversed(pieces) if piece.strip()), "")
    if not last.rstrip().endswith(("}", "]")):
        return False
    try:
        orjson.loads("".join(pieces))
    except orjson.JSONDecodeError:
        return False
    return True
