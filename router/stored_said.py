"""Whether an input sent whole begins with a conversation the router keeps, and what follows
it (`router.stored_items.StoredItems.related`): what each item says (`said`), compared a
kept turn at a time. Pure.

The conversation is kept a turn at a time, serialized (`stored_items`): each turn's own
input as one JSON array, the items it answered with one by one. Parsed whole before
comparing (`history`, then `after`), a turn of 65,000 short messages (8 MB) held the event
loop 120-170 ms (CPU) on every turn a client sent back whole beginning with it (the
2-core VM of docs/benchmarks.md, 2026-12-06, "comparing a turn at a time"). So the
comparison walks the turns from the oldest and stops at the first item that differs, and
a turn's own input, which the client sends back as it sent it, is first compared as the
bytes it is kept as: the client's items serialized the same way are the same bytes, and
nothing is parsed (10-13 ms). Only a turn whose bytes differ (keys in another order, an
edit) is parsed, and its items read as `after` reads them. The answer is the one
`after(history, items)` gives (tests/router/test_stored_items.py checks both ways). What
is left is the walk itself, ~14 µs a turn: an agent's tool loop of 2,000 steps still
takes ~28 ms.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from router.translate.native_responses import own_reasoning
from router.translate.text_parts import part_text


@dataclass(frozen=True, slots=True)
class Held:
    """One kept turn as the router holds it: its own input, serialized (a JSON array of
    `count` items), and the items it answered with, each serialized."""

    items: bytes
    count: int
    answer: list[bytes]
    reasoned: bool  # the router's own reasoning is among its input (`own_reasoning`)


def said(item: Any) -> Any:
    """What an input item says, however it is written: no `id`, `status` or null field, a
    message's `type` when left out, its text parts as their text (a string content too)."""
    if not isinstance(item, dict):
        return item
    out = {k: v for k, v in item.items() if v is not None and k not in ("id", "status")}
    if out.setdefault("type", "message") == "message":
        content = out.get("content")
        parts = [{"type": "input_text", "text": content}] if isinstance(content, str) else content
        if isinstance(parts, list):
            out["content"] = [said_part(part) for part in parts]
    return out


def said_part(part: Any) -> Any:
    """A content part: one that holds text as that text alone, as the translation reads it
    (`text_parts.part_text`: a refusal's too), any other as it is without its null fields.
    A part no reader takes for text (no `text`, or none that is a string; a `type` that is
    no string) is compared as it came: it says what an item the router holds says only if
    written so there too. Read as text, one without it was a KeyError, and one whose `type`
    was a list a TypeError, a 500 (found in review)."""
    if not isinstance(part, dict):
        return part
    text = part_text(part)
    if text is not None:
        return text
    return {k: v for k, v in part.items() if v is not None}


def says(item: Any, told: Any) -> bool:
    """Whether an input item says what an item of the conversation kept says. An item
    written as it was kept (the turn's own input, which the client sends back as it did) is
    compared as it is, and read (`said`) only when it differs: read, every item of an 8 MB
    conversation was copied twice, a third of a second on the event loop."""
    return bool(item == told or said(item) == said(told))


def after(told: list[Any], items: list[Any]) -> list[Any] | None:
    """The items of `items` after those that say `told`, in order (the router's own
    reasoning passed over: no backend gets it); None when `items` does not begin so."""
    at = 0
    for index, item in enumerate(items):
        if at == len(told):
            return items[index:]
        if own_reasoning(item):
            continue
        if not says(item, told[at]):
            return None
        at += 1
    return [] if at == len(told) else None


def after_held(turns: Iterable[Held], items: list[Any]) -> list[Any] | None:
    """`after` of the conversation the kept `turns` (oldest first) tell, read a turn at a time
    (see the module's docstring): a turn's own input compared serialized first, parsed only
    when the bytes differ; nothing read past the first item that says something else.

    The bytes are tried only for a turn holding none of the router's reasoning: `after`
    passes over the client's and would compare the kept one with the item after it."""
    at = 0  # the index in `items` after the last item compared
    for turn in turns:
        ahead = items[at : at + turn.count]
        found: int | None = at + turn.count  # each is the item kept, none the router's reasoning
        if turn.reasoned or len(ahead) < turn.count or not _same_bytes(ahead, turn.items):
            found = _compared(items, at, orjson.loads(turn.items))
        if found is not None and turn.answer:
            found = _compared(items, found, [orjson.loads(item) for item in turn.answer])
        if found is None:
            return None
        at = found
    return items[at:]


def _compared(items: list[Any], start: int, told: list[Any]) -> int | None:
    """The index after the items from `start` that say `told`, in order, the router's own
    reasoning passed over (as `after` does); None when they do not, or are too few."""
    at = start
    for kept in told:
        while at < len(items) and own_reasoning(items[at]):
            at += 1
        if at == len(items) or not says(items[at], kept):
            return None
        at += 1
    return at


def _same_bytes(items: list[Any], kept: bytes) -> bool:
    """Whether `items` serialize to `kept` (a JSON array as orjson writes it): then each is
    the item kept (what a client's parsed body holds serializes back to the value it was
    parsed from). Its first and last items are tried alone first: an input that differs
    there (an edited history) is parsed without being serialized whole for nothing."""
    try:
        if len(items) > 1 and not (
            kept.startswith(b"[" + orjson.dumps(items[0]))
            and kept.endswith(orjson.dumps(items[-1]) + b"]")
        ):
            return False
        return orjson.dumps(items) == kept
    except orjson.JSONEncodeError:  # no value a body parses to: compared as read instead
        return False
