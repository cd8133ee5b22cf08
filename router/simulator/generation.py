"""From an answer to a generation: token pieces, `max_tokens` and `ignore_eos`, usage.

`Ask` is what every API (chat, completions, messages, responses) parses its body into, so
the latency, capacity, fault and wire code downstream is shared.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from router.simulator import tokens
from router.simulator.answer import Prompt, Reply, ToolCall, filler

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
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Choice:
    pieces: tuple[str, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    finish: Finish = "stop"
    has_code: bool = False

    @property
    def text(self) -> str:
        return "".join(self.pieces)

    @property
    def tokens(self) -> int:
        if self.tool_calls:
            return sum(
                tokens.count(c.name) + tokens.count(c.arguments) + 3 for c in self.tool_calls
            )
        return len(self.pieces)


@dataclass(frozen=True, slots=True)
class Generation:
    """The choices of one request; `per_chunk` tokens go in each streamed delta."""

    choices: tuple[Choice, ...]
    prompt_tokens: int
    per_chunk: int = 1

    def deltas(self, choice: Choice) -> list[str]:
        """A choice's text as streamed: one piece per delta, `per_chunk` tokens each."""
        step = self.per_chunk
        return ["".join(choice.pieces[i : i + step]) for i in range(0, len(choice.pieces), step)]

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
    """Cut the reply's text at `limit` tokens (finish "length") or pad it for `ignore_eos`."""
    if reply.tool_calls:
        return Choice(tool_calls=reply.tool_calls, finish="tool_calls")
    pieces = tokens.pieces(reply.text)
    while ignore_eos and len(pieces) < limit:
        pieces += tokens.pieces(filler(rng))
    finish: Finish = "stop"
    if len(pieces) > limit:
        pieces, finish = pieces[:limit], "length"
    elif ignore_eos and len(pieces) == limit:
        finish = "length"
    return Choice(pieces=tuple(pieces), finish=finish, has_code=reply.has_code)


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
            choices.append(replace(choice, pieces=choice.pieces[:after], finish="abort"))
    return replace(gen, choices=tuple(choices))


def argument_pieces(arguments: str) -> list[str]:
    """Tool-call arguments in streamed fragments (a few tokens each)."""
    parts = tokens.pieces(arguments) or [arguments]
    return ["".join(parts[i : i + 3]) for i in range(0, len(parts), 3)]
