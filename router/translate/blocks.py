"""One content block open at a time, whatever order the chat pieces arrive in.

A chat stream addresses tool-call pieces by `index`, so an upstream may interleave two calls
(index 0, 1, 0 …). Anthropic's events and Responses' items are sequential: a block is
started, filled and stopped before the next, and a stopped block cannot take more. OpenAI and
vLLM stream one call after another, and their clients see every piece live; an interleaving
upstream must not cost them that, nor lose a piece.

The rule: a piece for another block than the open one waits while the open block may still
grow. A text block (a refusal, a Responses reasoning item) may stop at any time; a tool
call may stop once its arguments are a whole JSON object (more would make them invalid, so
a piece that still comes for it is dropped). When the open block can stop, it does, and the
waiting blocks follow in arrival order, each with its pieces so far. At the end everything
stops. A sequential upstream therefore streams exactly as before.

A block keeps its pieces while it waits, and a call's all along (the Messages translator
sends a call's input whole at its stop); an open prose block's go out as they come and are
not kept: its translator has them (a reasoning's pieces kept here too held 17 times the
text, found in re-review). Kept pieces are joined as they come (`so_far.Text`). A call
that came as chat `tool_calls` fragments (`Sequencer.tool_call`) keeps no pieces of its own:
it shares the arguments its `CallKeys` keeps, which hold every piece of it (a copy here
too held twice the arguments, found in re-review), and those dropped once it stopped, which
nothing reads then.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from router.translate.calls import CallKeys
from router.translate.so_far import Text
from router.translate.wire import arguments_text

TEXT: Literal["text"] = "text"
REFUSAL: Literal["refusal"] = "refusal"  # a model's refusal (OpenAI structured outputs)
REASONING: Literal["reasoning"] = "reasoning"  # a reasoning model's thinking (Responses shows it)
# a tool call's key (`CallKeys`), the text, a refusal, the reasoning
Key = int | Literal["text", "refusal", "reasoning"]
_PROSE = (TEXT, REFUSAL, REASONING)


@dataclass(slots=True)
class Block:
    key: Key
    # a tool call's first fragment (id, name) as the upstream sent it, and what later ones
    # gave that it lacked (`learn`)
    meta: dict[str, Any]
    pieces: Text = field(default_factory=Text)  # while it waits; a call's, all along
    slot: int = -1  # where the translator put it: content block index, output index
    shape: JsonShape = field(default_factory=lambda: JsonShape())  # a call's arguments so far
    opened: bool = False  # the Sequencer opened it: an open prose block keeps no pieces
    shared: bool = False  # its pieces are its call's `CallKeys` arguments, added to there

    def add(self, text: str) -> None:
        if self.key in _PROSE:
            if not self.opened:
                self.pieces.add(text)
            return
        if not self.shared:
            self.pieces.add(text)
        self.shape.feed(text)  # read once, as it comes: re-reading at each piece was quadratic

    @property
    def name(self) -> str:
        """A call's function name as its fragments gave it so far, else ""."""
        function = self.meta.get("function")
        return str(function.get("name") or "") if isinstance(function, dict) else ""

    def learn(self, fragment: dict[str, Any]) -> None:
        """A later fragment's call id and function name, where the call had none: some
        upstreams send the name after an id-only first fragment, and the call kept the
        first's, none. One had stays: some send another id on later fragments (`CallKeys`),
        or the name again on each."""
        if self.meta.get("id") and self.name:  # each argument piece comes here: done
            return
        function = self.meta.get("function")
        function = function if isinstance(function, dict) else {}
        given = fragment.get("function")
        name = given.get("name") if isinstance(given, dict) else None
        learned: dict[str, Any] = {}
        if not self.meta.get("id") and isinstance(fragment.get("id"), str) and fragment["id"]:
            learned["id"] = fragment["id"]
        if not self.name and isinstance(name, str) and name:
            learned["function"] = {**function, "name": name}
        if learned:  # a copy: the upstream's chunk stays as it came
            self.meta = {**self.meta, **learned}

    def chars(self) -> int:
        """Characters of the pieces kept."""
        return sum(map(len, self.pieces.pieces))

    def can_stop(self) -> bool:
        return self.key in _PROSE or self.shape.whole


class JsonShape:
    """Whether the text fed so far is a whole JSON object or array, read once, piece by
    piece: re-parsing the arguments at every piece was quadratic (a 136 KB `write_file`
    call in 6-character pieces took 4.9 s of the event loop)."""

    __slots__ = ("_depth", "_escaped", "_in_string", "_started", "broken")

    def __init__(self) -> None:
        self._depth = 0
        self._started = False
        self._in_string = False
        self._escaped = False
        self.broken = False

    @property
    def whole(self) -> bool:
        return self._started and self._depth == 0 and not self._in_string and not self.broken

    def feed(self, text: str) -> None:
        for char in text:
            if self._in_string:
                if self._escaped:
                    self._escaped = False
                elif char == "\\":
                    self._escaped = True
                elif char == '"':
                    self._in_string = False
            elif char == '"':
                self._in_string = True
            elif char in "{[":
                if self._started and self._depth == 0:
                    self.broken = True  # a second value after a whole one
                self._started = True
                self._depth += 1
            elif char in "}]":
                self._depth -= 1
                if self._depth < 0:
                    self.broken = True


Step = tuple[Literal["open", "piece", "stop"], Block, str]


class Sequencer:
    """Pieces in, `(step, block, text)` out, where step is open, piece or stop."""

    def __init__(self) -> None:
        self.open: Block | None = None
        self._waiting: dict[Key, Block] = {}
        self._stopped: dict[Key, Block] = {}  # tool calls only: text may start a new block
        self._calls = CallKeys()

    def piece(
        self, key: Key, text: str, meta: dict[str, Any] | None = None, kept: Text | None = None
    ) -> list[Step]:
        """`text` (may be empty: a tool call's first fragment) for the block `key`; `kept`:
        the pieces of `key` so far, `text` among them, kept by its `CallKeys` (shared)."""
        open_ = self.open
        if open_ is not None and open_.key == key:
            if meta:
                open_.learn(meta)
            return self._grow(open_, text)
        if key in self._waiting:
            if meta:
                self._waiting[key].learn(meta)
            if text:
                self._waiting[key].add(text)
            return []
        if key in self._stopped:  # a whole call can take no more: a piece would break it
            return []
        block = Block(key, meta or {})
        if kept is not None:
            block.pieces, block.shared = kept, True
        if text:
            block.add(text)
        if open_ is not None and not open_.can_stop():
            self._waiting[key] = block
            return []
        return [*self._stop(), *self._start(block)]

    def tool_call(self, call: dict[str, Any], position: int) -> list[Step]:
        """A chat `tool_calls[]` fragment, `position` in its delta's list: its call (see
        `CallKeys`) names the block, its arguments grow it."""
        function = call.get("function") or {}
        text = arguments_text(function.get("arguments"))  # an object (TGI's) as its JSON
        key = self._calls.key(call, position)
        return self.piece(key, text, call, self._calls.arguments)

    def waiting_chars(self) -> int:
        """Characters of the pieces waiting for the open block to stop, and of a waiting
        call's name: none went out yet (a prose block's name is empty)."""
        return sum(block.chars() + len(block.name) for block in self._waiting.values())

    def end(self) -> list[Step]:
        """Stop the open block, then open, fill and stop every waiting one."""
        steps = self._stop()
        while self._waiting:
            steps.extend(self._start(self._next()))
            steps.extend(self._stop())
        return steps

    def _grow(self, block: Block, text: str) -> list[Step]:
        if not text:
            return []
        block.add(text)
        steps: list[Step] = [("piece", block, text)]
        while self._waiting and self.open is not None and self.open.can_stop():
            steps.extend(self._stop())
            steps.extend(self._start(self._next()))
        return steps

    def _next(self) -> Block:
        key = next(iter(self._waiting))
        return self._waiting.pop(key)

    def _start(self, block: Block) -> list[Step]:
        self.open, block.opened = block, True
        joined = str(block.pieces)
        if block.key in _PROSE:  # its pieces go out now; its translator keeps what it shows
            block.pieces = Text()
        return [("open", block, ""), ("piece", block, joined)] if joined else [("open", block, "")]

    def _stop(self) -> list[Step]:
        block, self.open = self.open, None
        if block is None:
            return []
        if block.key not in _PROSE:
            self._stopped[block.key] = block
        return [("stop", block, "")]
