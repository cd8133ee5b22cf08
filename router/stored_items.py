"""The output items the router made itself, kept for a later turn's `item_reference`.

A Responses client that lets its responses be stored (`store` unset or true, OpenAI's
default) may send earlier output back by reference, `{"type": "item_reference", "id":
"msg_…"}`, and OpenAI reads the item it stored. The Vercel AI SDK's `openai(model)` does so
on a conversation's second turn, and on a tool loop's next step for the text or reasoning
the model wrote before its call. Over a chat backend the router made those items itself,
translating the chat answer (`router.translate.responses_whole`, `responses_reply`): no
backend holds them, and every such turn was refused as server state no chat backend has,
in words that sent the client to a backend speaking Responses, which holds no
`msg_…` of the router's either (found with the AI SDK 6). So the router keeps what it made,
and a reference to an item it holds becomes that item, as a client not storing (`store:
false`) sends it whole, before the turn is classified, routed or translated
(`Gateway._prepare`). Its ids are its own, random per reply (`responses_items.response_id`),
never the backend's completion id, which a backend may repeat: kept by that id, a later
answer replaced an earlier one, and one conversation's reference got another's answer.

Kept: the message items (text, a refusal) and tool calls (function, custom) of a response
the router made over chat, unless it was asked not to store it (`store: false`, as a backend
would keep nothing), under the caller it answered, as response ids are kept
(`stored_responses.key`): another caller's reference is one the router does not hold, and
its item never reaches them. Reasoning items are not kept: a reference to one of the
router's own (`rs_smf_…`) becomes nothing, as that item replayed whole does, held or not. A
chat backend gets no reasoning (translation drops it) and a backend speaking Responses none
of the router's (`native_responses`): what was kept would be dropped before any backend saw
it, and all it would hold is text the model wrote to no one.

A reference the router does not hold (a backend speaking Responses made it, or the router
forgot it, or made it for another caller) goes on as sent: only a backend speaking
Responses can look it up (`responses_request.server_state`), and a model without one is a
400 that says what to do instead (`router.refusals`).

Bounded as the response ids are (`sticky_max_entries` entries, 30 days, least recently kept
first out, resized with them by a reload), and by `KEPT_BYTES`: a response id is a few
bytes, an item an answer's whole text, and 50,000 answers could hold gigabytes. A reference
the router expands keeps its item again (its age restarts): an agent sends every earlier
item of its session on each turn, and the first ones must last as long as the session does.

A client storing its responses may continue one by id instead (`previous_response_id`:
pydantic-ai's `openai_previous_response_id="auto"`, LangChain's `use_previous_response_id`,
the OpenAI Agents SDK's `auto_previous_response_id`), sending only its new items. OpenAI
reads the effective input of the response named (its own chain, recursively), then its
output, then the new items; `instructions` and tools are not carried (each turn sends its
own). A response the router made over chat is held by no backend, and such a turn was a
400. So the router keeps, with each such response's items, the turn that made it (`Own`):
its own new input (references expanded) and the response it continued, not the whole
input again (turn n would hold n turns, a session's history n times over), in the same
table, under the same bounds. A turn continuing one is that conversation whole, without
the id (`history`): a chat backend gets it translated, a backend speaking Responses as
sent, holding no such id. A link the table no longer holds (or a chain longer than
`MAX_TURNS`) is a 400 naming it: the conversation cannot be told whole, and continued
without it the model would answer a conversation cut short without saying so.

A turn sent whole, without the id, is kept so too when its input begins with a conversation
the router holds: the one up to a response it made for the caller, that response's output
last (`related`). The OpenAI Agents SDK chains a run's turns by id (`previous_response_id`)
but sends each step of its tool loop whole (the ask, the router's `function_call`, its
output); kept as nothing, the run's answer could not be continued by id, a 400 (found
running the Agents SDK). OpenAI keeps every stored response's input whole; the router keeps
such a turn as the items after that response's output, and continues from that response:
the conversation held once, whatever the turns, as for a turn continuing by id. Each item of
the input is read for what it says (`stored_said`): an SDK writes the router's items back in
its own way (`logprobs: null` for `[]`, a `phase: null` added). A turn whose input begins with
no such conversation (another server's answers, an edited history, one the router no
longer holds) keeps only that it was sent whole (`SENT_WHOLE`): kept whole, a client that
edits its history every turn held it again each turn, its square; continuing it by id is
a 400 saying what the router keeps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from router.errors import BadRequest, BodyTooLarge
from router.sticky import Table
from router.stored_said import Held, after_held
from router.translate.native_responses import own_reasoning
from router.translate.responses_request import is_reference

# The bytes of items kept, all callers together: the oldest kept go first past it.
KEPT_BYTES = 64 * 1024 * 1024
# The output items a later turn can name, as the router makes them (`responses_items`).
KEPT_TYPES = frozenset({"message", "function_call", "custom_tool_call"})
# The responses a turn may continue, one chain: past it, or in a loop (a backend that gave
# two answers one id), the walk stops with a 400 rather than run on.
MAX_TURNS = 10_000


@dataclass(frozen=True, slots=True)
class Own:
    """A Responses turn's own input items (references expanded), and the response the router
    made that it continues (None: none), kept with the response that answers it."""

    previous: str | None
    items: list[Any]
    whole: bool = False  # a conversation sent whole: nothing of it kept, only that it was
    found: bool = False  # `previous` begins the input sent whole (`related`), not named by id


# A turn that sent its conversation whole (`starts` is false), beginning with none the
# router holds (`related`): kept as no more than that, so a turn continuing it by id is told
# why the router cannot, not that it forgot.
SENT_WHOLE = Own(None, [], whole=True)


class ChainBroken(BadRequest):
    """A response the router made continues one it no longer holds (or a chain past
    `MAX_TURNS`): the conversation cannot be told whole. OpenAI's code for an id it does
    not hold."""

    code = "previous_response_not_found"

    def __init__(self, named: str, missing: str | None, whole: bool = False) -> None:
        if whole:
            was = "is" if missing == named else f"continues {missing!r}, which is"
            super().__init__(
                f"previous_response_id {named!r} {was} the answer to an input whose earlier "
                "turns are no conversation the router made and still holds (it keeps a turn as "
                "the items after the response it continues, never an input whole): send the "
                "conversation's whole input instead, as with store: false, or chain every turn "
                "by previous_response_id from the first (the OpenAI Agents SDK's "
                "auto_previous_response_id=True)",
                param="previous_response_id",
            )
            return
        if missing is None:
            why = f"continues a chain of more than {MAX_TURNS} responses, or one that loops"
        elif missing == named:
            why = "is a response the router made from a chat backend's answer and no longer holds"
        else:
            why = f"continues {missing!r}, which the router made and no longer holds"
        super().__init__(
            f"previous_response_id {named!r} {why} (it keeps a bounded number of them, 30 "
            "days at most): send the conversation's whole input instead, as with store: false",
            param="previous_response_id",
        )


class SizedTable(Table[bytes]):
    """A `Table` of serialized values that also holds no more than `max_bytes` of them."""

    def __init__(
        self, ttl_s: float, max_entries: int, max_bytes: int, clock: Callable[[], float]
    ) -> None:
        super().__init__(ttl_s, max_entries, clock)
        self.max_bytes = max_bytes
        self.bytes = 0

    def remember(self, conversation: str, backend: bytes) -> None:
        replaced = self._entries.pop(conversation, None)
        if replaced is not None:
            self._left(replaced[0])
        if len(backend) > self.max_bytes:  # kept, it would push every other caller's out
            return
        super().remember(conversation, backend)
        if conversation in self._entries:
            self.bytes += len(backend)
        while self.bytes > self.max_bytes and self._entries:
            self._left(self._entries.popitem(last=False)[1][0])

    def _left(self, value: bytes) -> None:
        self.bytes -= len(value)


def _slot(caller: str, item_id: str) -> str:
    """The table's key: one caller's item, as `stored_responses.key` keys a response."""
    return f"item\0{caller}\0{item_id}"


def _turn_slot(caller: str, response_id: str) -> str:
    """The key of the turn that made one caller's response: no item's (`_slot`), whatever
    id a client's reference names."""
    return f"turn\0{caller}\0{response_id}"


def _end_slot(caller: str, item_id: str) -> str:
    """The key of the response whose output one caller's item ends (`related`)."""
    return f"end\0{caller}\0{item_id}"


def _turn(own: Own, output: list[str]) -> bytes:
    """A turn as kept: a line of what it continues and answered with (the ids of its output
    items), then its own input, one JSON array, read only when needed (`stored_said`). No
    newline is in what orjson writes (none indented, a string's escaped)."""
    if own.whole:
        return orjson.dumps({"whole": True})
    reasoned = any(map(own_reasoning, own.items))
    head = {
        "previous": own.previous,
        "output": output,
        "count": len(own.items),
        "reasoned": reasoned,
    }
    return orjson.dumps(head) + b"\n" + orjson.dumps(own.items)


def _told(turn: Held) -> list[Any]:
    """A kept turn's items, parsed: its own input, then its answer."""
    items: list[Any] = orjson.loads(turn.items)
    return items + [orjson.loads(item) for item in turn.answer]


def own_items(items: Any) -> list[Any]:
    """A Responses `input` as items: a string is one user message."""
    if isinstance(items, str):
        return [{"type": "message", "role": "user", "content": items}]
    return list(items) if isinstance(items, list) else []


def starts(items: list[Any]) -> bool:
    """Whether a turn sent without `previous_response_id` starts a conversation (messages of
    the caller's only, no model's answer in it), and so is kept for a turn continuing it by
    id. A client that sends its whole conversation each turn (the Vercel AI SDK, storing)
    never continues by id: kept, its every turn's input held the conversation again, and
    what the router held grew as the square of its turns (found in review)."""
    return all(
        isinstance(item, dict)
        and item.get("type", "message") == "message"
        and item.get("role") in ("user", "system", "developer")
        for item in items
    )


class StoredItems:
    """(caller, item id) → the item the router made, serialized (a copy no one changes)."""

    def __init__(self, ttl_s: float, max_entries: int, clock: Callable[[], float]) -> None:
        self.table = SizedTable(ttl_s, max_entries, KEPT_BYTES, clock)

    def keep(
        self, caller: str, output: Sequence[Any], response_id: str = "", own: Own | None = None
    ) -> None:
        """The items of `output` a later turn of `caller`'s can name (`KEPT_TYPES`), and the
        turn that made `response_id` (`own`), for a turn continuing it (`history`)."""
        kept: list[str] = []
        for item in output:
            if isinstance(item, dict) and item.get("type") in KEPT_TYPES:
                named = item.get("id")
                if isinstance(named, str) and named:
                    self.table.remember(_slot(caller, named), orjson.dumps(item))
                    kept.append(named)
        if own is not None and response_id and response_id != own.previous:
            self.table.remember(_turn_slot(caller, response_id), _turn(own, kept))
            if kept and not own.whole:
                ends = response_id.encode(errors="surrogatepass")
                self.table.remember(_end_slot(caller, kept[-1]), ends)

    def related(self, caller: str, items: list[Any], limit: int) -> Own:
        """The turn an input sent whole is: the response of `caller`'s it begins with, the
        conversation up to it and its output (the last item of the input the router made
        that ends a response's output names it), then the turn's own items; `SENT_WHOLE`
        when it begins with none the router holds whole (see the module's docstring)."""
        for item in reversed(items):
            named = item.get("id") if isinstance(item, dict) else None
            ends = self.table.get(_end_slot(caller, named)) if isinstance(named, str) else None
            if ends is None:
                continue
            response_id = ends.decode(errors="surrogatepass")
            try:
                turns = self._chain(caller, response_id, limit)
            except (ChainBroken, BodyTooLarge):
                return SENT_WHOLE
            rest = None if turns is None else after_held(reversed(turns), items)
            return SENT_WHOLE if rest is None else Own(response_id, rest, found=True)
        return SENT_WHOLE

    def history(self, caller: str, response_id: str, limit: int) -> list[Any] | None:
        """The conversation up to and with `caller`'s response `response_id`, oldest first:
        each turn's own input, then the items it answered with; None when the router holds
        no such turn. Raises as `_chain` does."""
        turns = self._chain(caller, response_id, limit)
        if turns is None:
            return None
        return [item for turn in reversed(turns) for item in _told(turn)]

    def _chain(self, caller: str, response_id: str, limit: int) -> list[Held] | None:
        """The turns of the conversation up to `caller`'s response `response_id`, newest
        first, as kept (nothing of their input parsed); None when the router holds no such
        turn. Raises `ChainBroken` when a response it continues is no longer held, and
        `BodyTooLarge` past `limit` bytes (`server.max_body_bytes`), as the conversation
        sent whole would be."""
        turns: list[Held] = []
        seen: set[str] = set()
        size = 0
        at: str | None = response_id
        while at is not None:
            if at in seen or len(seen) == MAX_TURNS:
                raise ChainBroken(response_id, None)
            seen.add(at)
            raw = self._raw(_turn_slot(caller, at))
            if raw is None and at == response_id:
                return None
            head, _, items = (raw or b"{}").partition(b"\n")
            turn: dict[str, Any] = orjson.loads(head)
            if turn.get("whole"):
                raise ChainBroken(response_id, at, whole=True)
            answer = [self._raw(_slot(caller, named)) for named in turn.get("output", ())]
            held = [item for item in answer if item is not None]
            if raw is None or len(held) < len(answer):
                raise ChainBroken(response_id, at)
            size += len(raw) + sum(map(len, held))
            if size > limit:
                raise BodyTooLarge(
                    f"the conversation that previous_response_id {response_id!r} continues "
                    f"holds more than the limit of {limit} bytes",
                    param="previous_response_id",
                )
            turns.append(Held(items, turn["count"], held, turn["reasoned"]))
            at = turn["previous"]
        return turns

    def expanded(self, body: dict[str, Any], caller: str, limit: int) -> dict[str, Any]:
        """`body` with each reference to an item the router made for `caller` as that item,
        and each to the router's own reasoning left out; `body` itself when it names none.

        The items it adds hold at most `limit` bytes (`server.max_body_bytes`), else a 413:
        one large answer named 3,000 times in a 200 KB body held 2 GB of the router's memory
        and went whole to the backend (found in review)."""
        items = body.get("input")
        if not isinstance(items, list) or not any(map(is_reference, items)):
            return body
        out: list[Any] = []
        added = 0
        for item in items:
            named = item.get("id") if is_reference(item) else None
            if not isinstance(named, str):
                out.append(item)
            elif not own_reasoning(item):
                kept = self._raw(_slot(caller, named))
                added += len(kept or b"")
                if added > limit:
                    raise BodyTooLarge(
                        f"the input's item references name more than the limit of {limit} "
                        "bytes of items: send the conversation's items once each",
                        param="input",
                    )
                out.append(item if kept is None else orjson.loads(kept))
        return {**body, "input": out}

    def _raw(self, slot: str) -> bytes | None:
        """What the table holds at `slot`, as kept, and kept again."""
        return self.table.kept_again(slot)

    def resize(self, ttl_s: float, max_entries: int) -> None:
        self.table.resize(ttl_s, max_entries)
