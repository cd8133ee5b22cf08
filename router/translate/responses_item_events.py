"""The Responses stream events of one output item, as OpenAI sends them: its opening
(output_item.added, and content_part.added for a part), its deltas and its done events, by
kind (text, refusal, reasoning, function or custom call). The stream that orders them and
numbers them is `router.translate.responses_reply`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from router.translate.blocks import REASONING, REFUSAL
from router.translate.responses_items import call_item, reasoning_item, text_item
from router.translate.so_far import Text

Event = tuple[str, dict[str, Any]]  # an event's name and its fields, not numbered yet


@dataclass(slots=True)
class Item:
    index: int
    item_id: str
    kind: str  # "text", "refusal", "reasoning" or "call"
    text: Text = field(default_factory=Text)  # joined as it comes; a call's: its block's
    call_id: str = ""
    name: str = ""
    custom: bool = False
    announced: bool = True  # its output_item.added went out (a call's waits for its name)


def at(which: Item, /, **fields: Any) -> dict[str, Any]:
    return {"output_index": which.index, **fields}


def within(which: Item, /, **fields: Any) -> dict[str, Any]:
    where = {"item_id": which.item_id, "output_index": which.index, "content_index": 0}
    return where | fields


def call_of(
    item: Item, arguments: str, status: str, namespaced: Mapping[str, tuple[str, str]]
) -> dict[str, Any]:
    """A call's item, its chat name (`item.name`) split back into namespace and name."""
    namespace, name = namespaced.get(item.name, (None, item.name))
    return call_item(item.item_id, item.call_id, name, arguments, item.custom, status, namespace)


def opened(item: Item, added: dict[str, Any]) -> list[Event]:
    """A text, refusal or reasoning item's opening: the item `added`, then its empty part."""
    if item.kind == REASONING:
        part: dict[str, Any] = {"type": "reasoning_text", "text": ""}
    elif item.kind == REFUSAL:
        part = {"type": "refusal", "refusal": ""}
    else:
        part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    return [
        ("response.output_item.added", at(item, item=added)),
        ("response.content_part.added", within(item, part=part)),
    ]


def delta(item: Item, text: str) -> Event:
    """The delta of a piece `text` of `item`: a custom call's is empty, its input held."""
    if item.kind == "text":
        return "response.output_text.delta", within(item, delta=text, logprobs=[])
    if item.kind == REFUSAL:
        return "response.refusal.delta", within(item, delta=text)
    if item.kind == REASONING:
        return "response.reasoning_text.delta", within(item, delta=text)
    if item.custom:
        return "response.custom_tool_call_input.delta", at(item, item_id=item.item_id, delta="")
    return "response.function_call_arguments.delta", at(item, item_id=item.item_id, delta=text)


def closed(
    item: Item, joined: str, status: str, namespaced: Mapping[str, tuple[str, str]]
) -> tuple[dict[str, Any], list[Event]]:
    """The whole item, `joined` its text (a call's arguments) and `status` its status, and
    its closing events: its part's done events, a custom call's input held, output_item.done.
    """
    out: list[Event] = []
    if item.kind == "text":
        whole = text_item(item.item_id, joined, status)
        part = whole["content"][0]
        out.append(("response.output_text.done", within(item, text=joined, logprobs=[])))
        out.append(("response.content_part.done", within(item, part=part)))
    elif item.kind == REFUSAL:
        whole = text_item(item.item_id, joined, status, refusal=True)
        part = whole["content"][0]
        out.append(("response.refusal.done", within(item, refusal=joined)))
        out.append(("response.content_part.done", within(item, part=part)))
    elif item.kind == REASONING:
        whole = reasoning_item(item.item_id, joined, status)
        part = whole["content"][0]
        out.append(("response.reasoning_text.done", within(item, text=joined)))
        out.append(("response.content_part.done", within(item, part=part)))
    else:
        whole = call_of(item, joined, status, namespaced)
        if item.custom:  # the input held, unwrapped
            given = at(item, item_id=item.item_id, delta=whole["input"])
            out.append(("response.custom_tool_call_input.delta", given))
            given = at(item, item_id=item.item_id, input=whole["input"])
            out.append(("response.custom_tool_call_input.done", given))
        else:
            fields = at(item, item_id=item.item_id, arguments=joined)
            out.append(("response.function_call_arguments.done", fields))
    out.append(("response.output_item.done", at(item, item=whole)))
    return whole, out
