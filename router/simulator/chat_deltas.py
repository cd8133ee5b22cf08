"""A chat stream's deltas, each with the choice's tokens its chunk lists in `logprobs`
(`chat_logprobs`): those the model wrote before it that showed nothing, then its own.

A text delta's own tokens are its `per_chunk` ones. A tool call is text the model writes
and vLLM's hermes parser reads (`generation.hermes_pieces`): its first delta (id, name) is
shown at the first token after the name, its first arguments fragment after the tokens that
lead to the arguments, each fragment with its own few tokens; what shows nothing (the call's
opening, what leads to the arguments, the end of the call before) comes before the delta
that follows it, on vLLM in chunks of its own with an empty delta, as its stream lists them.
The last call's end comes with the finish.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from router.simulator import tokens
from router.simulator.generation import (
    Choice,
    Generation,
    hermes_parts,
    hermes_pieces,
    written_calls,
)
from router.simulator.prompt import ToolCall
from router.simulator.wire import Meta

# A delta; the tokens before it that showed nothing; its own tokens
Delta = tuple[dict[str, Any], int, int]
_PER_FRAGMENT = 3  # an arguments fragment's tokens (`generation.argument_pieces`)


def deltas(meta: Meta, gen: Generation, choice: Choice, index: int) -> Iterator[Delta]:
    """Content deltas, or tool-call deltas: id/type/name first, then argument pieces. Of
    calls `max_tokens` cut, vLLM's parser streams what it read out of the text so far."""
    if choice.cut_calls:
        return _call_deltas(meta, written_calls(choice), index)
    if not choice.tool_calls:
        return (({"content": "".join(group)}, 0, len(group)) for group in gen.groups(choice))
    return _call_deltas(meta, choice.tool_calls, index)


def _call_deltas(meta: Meta, calls: tuple[ToolCall, ...], index: int) -> Iterator[Delta]:
    if meta.call_numbering != "openai":
        yield from _whole_calls(meta, calls, index)
        return
    quiet = 0  # tokens written since the last delta that showed nothing
    for position, call in enumerate(calls):
        first: dict[str, Any] = {"name": call.name}
        # vLLM puts `content: null` beside tool-call deltas and no empty arguments first
        lead: dict[str, Any] = {"content": None} if meta.flavor == "vllm" else {}
        if meta.flavor == "cloud":
            first["arguments"] = ""
        named, leading, _, closing = hermes_parts(call)
        opening = {"id": call_id(meta, index, position), "type": "function", "index": position}
        yield lead | {"tool_calls": [opening | {"function": first}]}, quiet + named, 1
        quiet = leading - 1
        parts = tokens.pieces(call.arguments) if call.arguments else []
        for at in range(0, len(parts), _PER_FRAGMENT):
            group = parts[at : at + _PER_FRAGMENT]
            fragment = {"index": position, "function": {"arguments": "".join(group)}}
            yield lead | {"tool_calls": [fragment]}, quiet, len(group)
            quiet = 0
        quiet += closing


def _whole_calls(meta: Meta, calls: tuple[ToolCall, ...], index: int) -> Iterator[Delta]:
    """Ollama's parallel calls, each whole with its own id: each in a delta of its own at
    `index: 0` (ollama/ollama#15457), or all in one delta without any `index` (before 0.4.7)."""
    unindexed = []
    for position, call in enumerate(calls):
        identity = {"id": call_id(meta, index, position)}
        function = {"name": call.name, "arguments": call.arguments}
        if meta.call_numbering == "none":
            unindexed.append(identity | {"type": "function", "function": function})
        else:
            whole = identity | {"index": 0, "type": "function", "function": function}
            yield {"tool_calls": [whole]}, 0, len(hermes_pieces((call,)))
    if unindexed:
        yield {"tool_calls": unindexed}, 0, len(hermes_pieces(calls))


def call_id(meta: Meta, index: int, position: int) -> str:
    """The id of choice `index`'s call at `position`: parallel calls each have their own."""
    base = meta.call_ids[index] if index < len(meta.call_ids) else f"call_{index}"
    return base if position == 0 else f"{base}_{position}"
