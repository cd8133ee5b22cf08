"""The output items the router made itself, kept for a later turn's `item_reference`.

A Responses client that lets its responses be stored (`store` unset or true, OpenAI's
default) may send earlier output back by reference, `{"type": "item_reference", "id":
"msg_…"}`, and OpenAI reads the item it stored. The Vercel AI SDK's `openai(model)` does so
on a conversation's second turn, and on a tool loop's next step for the text or reasoning
the model wrote before its call. Over a chat backend the router made those items itself,
translating the chat answer (`router.translate.responses_whole`, `responses_reply`): no
backend holds them, and every such turn was refused as server state no chat backend has,
in words that sent the client to a backend speaking Responses, which holds no
`msg_chatcmpl-…` either (found with the AI SDK 6). So the router keeps what it made, and a
reference to an item it holds becomes that item, as a client not storing (`store: false`)
sends it whole, before the turn is classified, routed or translated (`Gateway._prepare`).

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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson

from router.errors import BodyTooLarge
from router.sticky import Table
from router.translate.native_responses import own_reasoning
from router.translate.responses_request import is_reference

# The bytes of items kept, all callers together: the oldest kept go first past it.
KEPT_BYTES = 64 * 1024 * 1024
# The output items a later turn can name, as the router makes them (`responses_items`).
KEPT_TYPES = frozenset({"message", "function_call", "custom_tool_call"})


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
    return f"{caller}\0{item_id}"


class StoredItems:
    """(caller, item id) → the item the router made, serialized (a copy no one changes)."""

    def __init__(self, ttl_s: float, max_entries: int, clock: Callable[[], float]) -> None:
        self.table = SizedTable(ttl_s, max_entries, KEPT_BYTES, clock)

    def keep(self, caller: str, output: Sequence[Any]) -> None:
        """The items of `output` a later turn of `caller`'s can name (`KEPT_TYPES`)."""
        for item in output:
            if isinstance(item, dict) and item.get("type") in KEPT_TYPES:
                named = item.get("id")
                if isinstance(named, str) and named:
                    self.table.remember(_slot(caller, named), orjson.dumps(item))

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
                kept = self._kept(caller, named)
                added += len(kept or b"")
                if added > limit:
                    raise BodyTooLarge(
                        f"the input's item references name more than the limit of {limit} "
                        "bytes of items: send the conversation's items once each",
                        param="input",
                    )
                out.append(item if kept is None else orjson.loads(kept))
        return {**body, "input": out}

    def _kept(self, caller: str, item_id: str) -> bytes | None:
        """The item `item_id` of `caller`'s as kept, kept again (see the module's docstring)."""
        slot = _slot(caller, item_id)
        kept = self.table.get(slot)
        if kept is not None:
            self.table.remember(slot, kept)
        return kept

    def resize(self, ttl_s: float, max_entries: int) -> None:
        self.table.resize(ttl_s, max_entries)
