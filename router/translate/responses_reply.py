"""A chat completions stream as an OpenAI Responses stream of typed events (a whole reply:
`router.translate.responses_whole`; the events of one output item, by kind:
`router.translate.responses_item_events`).

The event order is the one OpenAI and vLLM send and the `openai` SDK and Codex read:
response.created, response.in_progress; per output item output_item.added, then for text
content_part.added / output_text.delta… / output_text.done / content_part.done, for a
function call function_call_arguments.delta… / .done, for a custom tool call (Codex's
`apply_patch`) custom_tool_call_input.delta… / .done; output_item.done with the whole
item (Codex builds its history from these); finally response.completed (or
response.incomplete when the token limit cut the answer) carrying the usage. No [DONE].

A custom tool call reaches the chat backend as a function of one string argument, so its
input comes back as JSON (`{"input": "..."}`), unwrapped only once whole: its pieces are
held until the call closes, then sent as one input delta. Meanwhile its first piece, then
one a second at most, sends an empty input delta (`keep_alive`): the stream commits and the
client sees progress (a first call sent nothing until it was whole). A stream cut before
it closes never sends the input: `held_chars` counts it for the ledger's estimate, and
`held_input` gives it, unwrapped as far as it goes, to the `response.failed` that ends the
stream (`router.translate.so_far`), which showed the call with an empty input.

An answer cut by a token limit or a content filter (chat's `finish_reason` "length",
Mistral's "model_length", or "content_filter") marks the items it cut `status:
"incomplete"`, as OpenAI does: the one the model was writing when it stopped, and any call
whose arguments are not whole JSON. An earlier item it had finished (the text before a
call, a whole call before the cut one) stays completed. A client acting on each
output_item.done (Codex) must not run a call whose arguments were cut, and only the final
response.incomplete said so.

A chat backend's reasoning (`wire.reasoning_text`) is a `reasoning` item, as OpenAI streams
one: output_item.added, content_part.added / reasoning_text.delta… / .done /
content_part.done with a `reasoning_text` part, output_item.done (a whole reply's item
likewise, first). vLLM's `reasoning_part` events, sent at first, are no events of OpenAI's
spec: the `openai` SDK typed them as audio deltas (found in re-review). The reasoning is held
while nothing else went out, for the grace (`held_reasoning`: a delta commits the stream, so
a backend failing sooner still falls back); then, or at the answer or the end, it goes out,
and later pieces as they come. Its id (`responses_items.reasoning_id`) says the router made
it: replayed to a backend that speaks Responses itself, it is left out (`native_responses`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from router.translate.blocks import REASONING, REFUSAL, TEXT, Block, Sequencer, Step
from router.translate.custom_input import custom_input
from router.translate.held_reasoning import HeldReasoning
from router.translate.keep_alive import KeepAlive
from router.translate.responses_item_events import (
    Event,
    Item,
    at,
    call_of,
    closed,
    delta,
    opened,
)
from router.translate.responses_items import (
    CUT,
    envelope,
    finish,
    parses,
    reasoning_id,
    reasoning_item,
    response_id,
    text_item,
    usage,
)
from router.translate.tool_ids import ToolIds
from router.translate.wire import (
    content_text,
    final_usage,
    finish_reasons,
    first_choice,
    named_event,
    reasoning_text,
)


class ResponsesStream:
    """Chat chunks in, Responses events out. `feed` per chunk, `end` once at [DONE].
    `request`: the fields the Response echoes; `ids`: the call ids, made unique past the
    request's history by the caller that has it (`exchange.stream_for`), a new reply's
    alone by default. `custom`, `namespaced`: as for `responses_whole.from_chat`."""

    def __init__(
        self,
        request: dict[str, Any],
        custom: frozenset[str] = frozenset(),
        clock: Callable[[], float] = time.monotonic,
        ids: ToolIds | None = None,
        namespaced: Mapping[str, tuple[str, str]] | None = None,
    ) -> None:
        self.started = False
        self.ended = False
        self._request = request
        self._custom = custom
        self._namespaced = namespaced or {}
        self._sequence = 0
        self._created_at = 0  # taken once, at the start: every event's Response carries it
        # the call ids (`router.translate.tool_ids`): the request's, read past its history;
        # its random part names the response and its items too (`response_id`), never the
        # chunk's id
        self._ids = ids or ToolIds(prefix="call")
        self._base = self._ids.part
        self._rid = response_id(self._base)
        self._model: Any = None
        self._items: list[Item] = []
        self._blocks = Sequencer()
        self._done: list[dict[str, Any]] = []
        self._finish: str | None = None
        self._began = False  # a choice came: its end must say why it stopped
        self._usage: Any = None
        self._usage_final = False  # `_usage` is the whole count, not a running one (`feed`)
        self._last = -1  # the output index of the item the model was writing at its end
        self._alive = KeepAlive(clock)  # when the open custom call's next empty delta may go
        # the reasoning held through its grace, until it or the answer shows (`_reason`)
        self._reasoning = HeldReasoning(clock)
        self._held: dict[str, Any] | None = None  # a choice-less chunk before the opener
        self._said: list[str] = []  # the chat finish reasons (`upstream_finish_reasons`)
        self._tier: Any = None  # the `service_tier` the chunks said served the answer

    @property
    def finished(self) -> bool:
        return self._finish is not None

    @property
    def answering(self) -> bool:
        """A choice began and has not said why it stopped: its stream ending now cuts it."""
        return self._began and self._finish is None

    @property
    def usage_estimated(self) -> bool:
        """Only when a running count (`feed`) is all that came: the Response carries it, and
        the gateway records the larger of it and its estimate. Without usage the Response
        carries none (the gateway then estimates it for the record)."""
        return self._usage is not None and not self._usage_final

    @property
    def upstream_usage(self) -> dict[str, Any] | None:
        """The upstream's usage as response.completed carries it, once its usage chunk came:
        a stream cut after it, before [DONE], never sent it, and the ledger records it still.
        A running count (`feed`) too, which `usage_estimated` says is not the whole answer's.
        """
        return usage(self._usage)

    @property
    def held_chars(self) -> int:
        """Characters generated that no event carried yet: the reasoning held through its
        grace, an open custom call's input and the pieces waiting behind the open item
        (`Sequencer`); text, reasoning shown and a function call's arguments go out as they
        come (the relay's tally counts those)."""
        open_ = self._blocks.open
        custom = open_ is not None and self._items[open_.slot].custom
        held = open_.chars() if open_ is not None and custom else 0
        return self._reasoning.chars + held + self._blocks.waiting_chars()

    @property
    def held_input(self) -> dict[int, str]:
        """The input of the open custom call so far, by its output index, as its item gives
        it when cut (`custom_input`: as far as it came): no event carried it yet."""
        open_ = self._blocks.open
        item = self._items[open_.slot] if open_ is not None else None
        if item is None or not item.custom:
            return {}
        return {item.index: custom_input(str(item.text), cut=True)}

    @property
    def wrapped(self) -> frozenset[int]:
        """None: a call's arguments are a string here, sent as they came."""
        return frozenset()

    @property
    def upstream_finish_reasons(self) -> list[str]:
        """The chat finish reasons, as the upstream said them (the Response has a status)."""
        return list(self._said)

    def feed(self, chunk: dict[str, Any]) -> list[bytes]:
        """The events for one chunk. The openers (`response.created`, `.in_progress`) wait
        for a chunk with a choice (or usage, or the end), as in `MessagesStream.feed`: made
        from Azure's choice-less prompt-filter chunk, they showed a silent backend at work."""
        self._tier = chunk.get("service_tier") or self._tier
        if not self.started and not chunk.get("choices") and not chunk.get("usage"):
            self._held = self._held or chunk
            return []
        out = [] if self.started else self._start(chunk)
        choice = first_choice(chunk)
        self._began = self._began or bool(choice)
        delta = choice.get("delta") or {}
        thought = reasoning_text(delta)
        if thought:  # a delta's reasoning comes before its answer (Magistral's parts)
            out.extend(self._reason(thought))
        text = content_text(delta.get("content"))
        refusal = delta.get("refusal")
        refusal = refusal if isinstance(refusal, str) else ""
        calls = delta.get("tool_calls") or ()
        if text or refusal or calls:  # the answer: the reasoning held goes first
            out.extend(self._shown())
        if text:
            out.extend(self._events(self._blocks.piece(TEXT, text)))
        if refusal:
            out.extend(self._events(self._blocks.piece(REFUSAL, refusal)))
        for position, call in enumerate(calls):
            out.extend(self._events(self._blocks.tool_call(call, position)))
        if choice.get("finish_reason"):
            self._finish = choice["finish_reason"]
        self._said += finish_reasons(chunk)  # every choice's: the attempt's span says them
        if chunk.get("usage"):
            self._usage, self._usage_final = chunk["usage"], final_usage(chunk, self.answering)
        return out

    def end(self) -> list[bytes]:
        """The closing events, after the held openers when only choice-less chunks came."""
        if not self.started and self._held is not None:
            return [*self._start(self._held), *self.end()]
        if self.ended or not self.started:
            return []
        self.ended = True
        out = self._shown()  # reasoning only, within its grace: shown now
        steps = self._blocks.end()
        stopped = [block.slot for step, block, _ in steps if step == "stop"]
        self._last = stopped[-1] if stopped else -1
        out.extend(self._events(steps))
        final = envelope(self._rid, self._model, self._request, "completed", self._created_at)
        final["output"] = self._done
        finish(final, self._finish, self._usage, self._tier)
        name = "response.completed" if final["status"] == "completed" else "response.incomplete"
        out.append(self._emit(name, {"response": final}))
        return out

    def _reason(self, thought: str) -> list[bytes]:
        """A reasoning piece: held while nothing was shown and its grace (from the first
        piece) runs, so a backend failing then still falls back; then shown as it comes."""
        if not self._reasoning.holding:
            return self._events(self._blocks.piece(REASONING, thought))
        return self._shown() if self._reasoning.hold(thought) else []

    def _shown(self) -> list[bytes]:
        """The reasoning held, as one piece, once the stream shows anything (the first to)."""
        held = self._reasoning.release()
        return self._events(self._blocks.piece(REASONING, held)) if held else []

    def _emit(self, name: str, fields: dict[str, Any]) -> bytes:
        payload = {"type": name, "sequence_number": self._sequence, **fields}
        self._sequence += 1
        return named_event(name, payload)

    def _emit_all(self, events: list[Event]) -> list[bytes]:
        return [self._emit(name, fields) for name, fields in events]

    def _start(self, chunk: dict[str, Any]) -> list[bytes]:
        self.started = True
        self._model = chunk.get("model")
        self._created_at = int(time.time())
        response = envelope(self._rid, self._model, self._request, "in_progress", self._created_at)
        return [
            self._emit("response.created", {"response": response}),
            self._emit("response.in_progress", {"response": response}),
        ]

    def _events(self, steps: list[Step]) -> list[bytes]:
        out: list[bytes] = []
        for step, block, text in steps:
            if step == "open":
                out.extend(self._open(block))
                continue
            item = self._items[block.slot]
            if not item.announced:  # a call's arguments began, or it stopped: named or not
                out.extend(self._announce(item, block))
            if step == "piece":
                out.extend(self._piece(item, text))
            else:
                if item.kind == "call" and not item.name:  # named after it was announced
                    item.name = block.name
                out.extend(self._close(item))
        return out

    def _open(self, block: Block) -> list[bytes]:
        block.slot = len(self._items)
        if block.key == REASONING:
            item = self._new(REASONING, reasoning_id(f"{self._base}_{block.slot}"))
            return self._emit_all(opened(item, reasoning_item(item.item_id, "", "in_progress")))
        if block.key in (TEXT, REFUSAL):
            item = self._new(str(block.key), f"msg_{self._base}_{block.slot}")
            return self._emit_all(opened(item, text_item(item.item_id, "", "in_progress")))
        item = self._new("call", f"fc_{self._base}_{block.slot}")
        item.text = block.pieces  # a block keeps a call's arguments all along: read there
        item.announced = False
        return self._announce(item, block) if block.meta.get("id") and block.name else []

    def _announce(self, item: Item, block: Block) -> list[bytes]:
        """A call's output_item.added, once its fragments gave its id and name, or at its
        first argument piece or its stop, whichever comes first: some upstreams send the
        name (or the id) after the first fragment, and a call announced at that one went
        out nameless (Codex cannot dispatch a call named "") under the id made up for it.
        Its id and kind (custom or function) are fixed here: the `openai` SDK refuses an
        output_item.done whose call id or type differs from its added one. A name that comes
        later still fills the done item (`_events`)."""
        item.announced = True
        item.call_id = self._ids.id(block.meta.get("id"), block.key)
        item.name = block.name
        item.custom = item.name in self._custom
        self._alive.reset()
        added = call_of(item, "", "in_progress", self._namespaced)
        return [self._emit("response.output_item.added", at(item, item=added))]

    def _piece(self, item: Item, text: str) -> list[bytes]:
        if item.kind != "call":  # a call's `text` is its block's pieces, which have `text`
            item.text.add(text)
        elif item.custom and not self._alive.due():
            return []  # a freeform tool's input is only whole once its JSON is: held
        return [self._emit(*delta(item, text))]

    def _new(self, kind: str, item_id: str) -> Item:
        item = Item(len(self._items), item_id, kind)
        self._items.append(item)
        return item

    def _status(self, item: Item, joined: str) -> str:
        """Incomplete when the end cut it (see the module's docstring): only items still
        open then can be, as one closes mid-stream only when the model moved on from it."""
        if not self.ended or self._finish not in CUT:
            return "completed"
        if item.index == self._last or (item.kind == "call" and not parses(joined)):
            return "incomplete"
        return "completed"

    def _close(self, item: Item) -> list[bytes]:
        joined = str(item.text)
        whole, events = closed(item, joined, self._status(item, joined), self._namespaced)
        self._done.append(whole)
        return self._emit_all(events)
