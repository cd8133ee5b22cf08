"""From an answer to a generation: token pieces, `max_tokens` and `ignore_eos`, usage.

`Ask` is what every API (chat, completions, messages, responses) parses its body into, so
the latency, capacity, fault and wire code downstream is shared.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from router.simulator import tokens
from router.simulator.answer import Prompt, Reply, ToolCall, every_tool_call, filler

Finish = Literal["stop", "length", "tool_calls", "abort"]


@dataclass(frozen=True, slots=True)
class Ask:
    """One generation request, whatever API it came through."""

    model: str
    prompt: Prompt
    prompt_tokens: int
    max_tokens: int | None = None
    # the field vLLM names when `max_tokens` exceeds its window: what the request set
    # (`max_completion_tokens`, `max_output_tokens`), or what vLLM translated it to
    max_tokens_param: str = "max_tokens"
    ignore_eos: bool = False
    n: int = 1
    stream: bool = False
    include_usage: bool = False
    # vLLM's `stream_options.continuous_usage_stats`: a running usage on every chunk (chat)
    continuous_usage: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer's tokens, produced as they are read: `head` (the reply's own text), then
    `padding` tokens of filler drawn from a random stream starting at `filler_state`. A
    stream's first token then costs the same whatever `max_tokens` is, as on a real server;
    the filler is drawn afresh on every read, so every read gives the same tokens."""

    head: tuple[str, ...] = ()
    padding: int = 0
    filler_state: tuple[Any, ...] | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish: Finish = "stop"
    has_code: bool = False

    def pieces(self) -> Iterator[str]:
        """The tokens' text, one piece per token."""
        yield from self.head
        left = self.padding
        if not left or self.filler_state is None:
            return
        rng = random.Random()
        rng.setstate(self.filler_state)
        while left > 0:
            more = tokens.pieces(filler(rng))[:left]
            left -= len(more)
            yield from more

    @property
    def text(self) -> str:
        return "".join(self.pieces())

    @property
    def tokens(self) -> int:
        if self.tool_calls:
            return sum(
                tokens.count(c.name) + tokens.count(c.arguments) + 3 for c in self.tool_calls
            )
        return len(self.head) + self.padding


@dataclass(frozen=True, slots=True)
class Generation:
    """The choices of one request; `per_chunk` tokens go in each streamed delta."""

    choices: tuple[Choice, ...]
    prompt_tokens: int
    per_chunk: int = 1

    def deltas(self, choice: Choice) -> Iterator[str]:
        """A choice's text as streamed: one piece per delta, `per_chunk` tokens each."""
        packed: list[str] = []
        for piece in choice.pieces():
            packed.append(piece)
            if len(packed) == self.per_chunk:
                yield "".join(packed)
                packed = []
        if packed:
            yield "".join(packed)

    @property
    def completion_tokens(self) -> int:
        return sum(c.tokens for c in self.choices)

    @property
    def has_code(self) -> bool:
        return any(c.has_code for c in self.choices)


def budget(ask: Ask, window: int) -> int:
    """How many tokens may be generated: `max_tokens`, cut at the context window."""
    room = max(window - ask.prompt_tokens, 0)
    return room if ask.max_tokens is None else min(ask.max_tokens, room)


def choose_tokens(reply: Reply, limit: int, ignore_eos: bool, rng: random.Random) -> Choice:
    """Cut the reply's text at `limit` tokens (finish "length") or pad it for `ignore_eos`;
    the padding is drawn from `rng` only when read."""
    if reply.tool_calls:
        return Choice(tool_calls=reply.tool_calls, finish="tool_calls")
    head = tokens.pieces(reply.text)
    finish: Finish = "length" if len(head) > limit or ignore_eos else "stop"
    padding = max(limit - len(head), 0) if ignore_eos else 0
    return Choice(
        head=tuple(head[:limit]),
        padding=padding,
        filler_state=rng.getstate() if padding else None,
        finish=finish,
        has_code=reply.has_code,
    )


def aborted(gen: Generation, after: int) -> Generation:
    """Each choice as the engine left it when it dropped the request after `after` tokens:
    its text so far, or its first tool call cut mid-arguments; finish "abort"."""
    choices = []
    for choice in gen.choices:
        if choice.tool_calls:
            call = choice.tool_calls[0]
            cut = ToolCall(call.name, "".join(tokens.pieces(call.arguments)[:after]))
            choices.append(replace(choice, tool_calls=(cut,), finish="abort"))
        else:
            padding = min(choice.padding, max(after - len(choice.head), 0))
            cut_text = replace(choice, head=choice.head[:after], padding=padding, finish="abort")
            choices.append(cut_text)
    return replace(gen, choices=tuple(choices))


def calling_every_tool(gen: Generation, prompt: Prompt) -> Generation:
    """Each choice that calls a tool calls every offered tool instead (parallel calls)."""
    calls = every_tool_call(prompt)
    choices = tuple(replace(c, tool_calls=calls) if c.tool_calls else c for c in gen.choices)
    return replace(gen, choices=choices)


def malformed_arguments(gen: Generation) -> Generation:
    """Each choice's tool calls with the JSON a small model gets wrong: its string values
    unquoted (`{"city": Paris}`), which no JSON parser reads."""
    choices = []
    for choice in gen.choices:
        calls = tuple(
            replace(c, arguments=_unquoted(json.loads(c.arguments))) for c in choice.tool_calls
        )
        choices.append(replace(choice, tool_calls=calls))
    return replace(gen, choices=tuple(choices))


def _unquoted(value: Any) -> str:
    """`value` as JSON, but for its string values, written bare (object keys keep quotes)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        fields = (f"{json.dumps(key)}: {_unquoted(item)}" for key, item in value.items())
        return "{" + ", ".join(fields) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_unquoted(item) for item in value) + "]"
    return json.dumps(value)


def argument_pieces(arguments: str) -> list[str]:
    """Tool-call arguments in streamed fragments (a few tokens each)."""
    parts = tokens.pieces(arguments) or [arguments]
    return ["".join(parts[i : i + 3]) for i in range(0, len(parts), 3)]
