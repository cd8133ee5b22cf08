"""From an answer to a generation: token pieces, `max_tokens`, `stop` and `ignore_eos`, usage.

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
from router.simulator.answer import filler
from router.simulator.errors import ApiError
from router.simulator.prompt import Prompt, Reply, ToolCall
from router.simulator.tool_calls import every_tool_call

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
    stop: tuple[str, ...] = ()  # chat's and completions' `stop` strings
    extra: dict[str, Any] = field(default_factory=dict)
    # vLLM's engine's refusal of the structured-output constraint: after a stream's 200
    refusal: ApiError | None = None
    # a `/v1/completions` batch: each prompt with its tokens, answered `n` times each in turn
    # (`prompt` is then the first, `prompt_tokens` their sum); empty: `prompt` alone
    batch: tuple[tuple[Prompt, int], ...] = ()

    @property
    def prompts(self) -> tuple[tuple[Prompt, int], ...]:
        """Each prompt the request asks `n` answers of, with its own tokens: vLLM and OpenAI
        answer a batch's prompts in order, and fit each in the window alone."""
        return self.batch or ((self.prompt, self.prompt_tokens),)


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer's tokens, produced as they are read: `head` (the reply's own text), then
    `padding` tokens of filler drawn from a random stream starting at `filler_state`. A
    stream's first token then costs the same whatever `max_tokens` is, as on a real server;
    the filler is drawn afresh on every read, so every read gives the same tokens.

    `stop_reason` is the `stop` string that ended the text; `cut_calls` the tool calls that
    `max_tokens` cut while vLLM wrote them, `head` then their raw text (`hermes_pieces`).
    With `stop` strings `head` is the text each token shows (`stopped`), `written` the
    tokens themselves, which vLLM's chat `logprobs` list."""

    head: tuple[str, ...] = ()
    padding: int = 0
    filler_state: tuple[Any, ...] | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish: Finish = "stop"
    has_code: bool = False
    stop_reason: str | None = None
    cut_calls: tuple[ToolCall, ...] = ()
    written: tuple[str, ...] = ()  # the tokens `head` shows, where `stop` strings hold some back

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
            return len(hermes_pieces(self.tool_calls))
        return len(self.head) + self.padding

    @property
    def own_finish(self) -> bool:
        """Whether the finish comes in a chunk of its own: vLLM's stream ends an answer its
        model ended (an EOS token, which shows no text) or the engine dropped after the last
        token's chunk; a `stop` string's or `max_tokens`' end rides on the last token's."""
        return self.finish in ("stop", "abort") and self.stop_reason is None


@dataclass(frozen=True, slots=True)
class Generation:
    """The choices of one request; `per_chunk` tokens go in each streamed delta."""

    choices: tuple[Choice, ...]
    prompt_tokens: int
    per_chunk: int = 1

    def deltas(self, choice: Choice) -> Iterator[str]:
        """A choice's text as streamed: one piece per delta, `per_chunk` tokens each."""
        for group in self.groups(choice):
            yield "".join(group)

    def groups(self, choice: Choice) -> Iterator[tuple[str, ...]]:
        """A choice's tokens as streamed, a delta's together (a completions chunk's
        `logprobs` has one entry per token)."""
        packed: list[str] = []
        for piece in choice.pieces():
            packed.append(piece)
            if len(packed) == self.per_chunk:
                yield tuple(packed)
                packed = []
        if packed:
            yield tuple(packed)

    @property
    def completion_tokens(self) -> int:
        return sum(c.tokens for c in self.choices)

    @property
    def has_code(self) -> bool:
        return any(c.has_code for c in self.choices)


def budget(max_tokens: int | None, prompt_tokens: int, window: int) -> int:
    """How many tokens may be generated after a prompt: `max_tokens`, cut at the context
    window."""
    room = max(window - prompt_tokens, 0)
    return room if max_tokens is None else min(max_tokens, room)


def choose_tokens(reply: Reply, limit: int, ask: Ask, rng: random.Random, hermes: bool) -> Choice:
    """Cut the reply's text at `limit` tokens (finish "length") or at a `stop` string, or
    pad it for `ignore_eos`; the padding is drawn from `rng` only when read. With `hermes`
    (vLLM's tool parser) a tool call is text the model writes until the parser reads it
    back, so `limit` cuts it too: what was written is text (`Choice.cut_calls`)."""
    if reply.tool_calls:
        written = hermes_pieces(reply.tool_calls)
        if hermes and len(written) > limit:
            return Choice(head=tuple(written[:limit]), finish="length", cut_calls=reply.tool_calls)
        return Choice(tool_calls=reply.tool_calls, finish="tool_calls")
    head = tokens.pieces(reply.text)
    cut = len(head) > limit
    said = tuple(head[:limit]) if ask.stop else ()
    head, matched = stopped(head[:limit], ask.stop) if ask.stop else (head[:limit], None)
    ignore_eos = ask.ignore_eos and matched is None
    finish: Finish = "stop" if matched else "length" if cut or ignore_eos else "stop"
    padding = max(limit - len(head), 0) if ignore_eos else 0
    return Choice(
        head=tuple(head),
        padding=padding,
        filler_state=rng.getstate() if padding else None,
        finish=finish,
        has_code=reply.has_code,
        stop_reason=matched,
        written=said[: len(head)],
    )


def stopped(pieces: list[str], stop: tuple[str, ...]) -> tuple[list[str], str | None]:
    """The text each token shows when `stop` strings are set, and the string that ended it.

    vLLM holds back the last `len(longest) - 1` characters until a later token shows that
    they do not begin a stop string (the last token shows the rest); at a stop string the
    text ends where the string begins, the string itself never shown. It looks for each
    string, in the request's order, where the newest token could have completed it."""
    hold = max(map(len, stop)) - 1
    text, shown, out = "", 0, []
    for index, piece in enumerate(pieces):
        before = len(text)
        text += piece
        for string in stop:
            at = text.find(string, max(before - len(string) + 1, 0))
            if at != -1:
                out.append(text[shown:at])
                return out, string
        visible = len(text) if index == len(pieces) - 1 else max(len(text) - hold, shown)
        out.append(text[shown:visible])
        shown = visible
    return out, None


# How vLLM's hermes parser reads a call the model writes, `<tool_call>{"name": …,
# "arguments": …}</tool_call>`, in tokens around the name's and the arguments' own.
_OPEN = ("<tool_call>", '{"', "name", '": "')
_MID = ('", "', "arguments", '": ')
_CLOSE = ("}", "</tool_call>")


def hermes_pieces(calls: tuple[ToolCall, ...]) -> list[str]:
    """The tokens of `calls` as the model writes them, one piece per token."""
    out: list[str] = []
    for call in calls:
        name, arguments = tokens.pieces(call.name), tokens.pieces(call.arguments)
        out += [*_OPEN, *name, *_MID, *arguments, *_CLOSE]
    return out


def written_calls(choice: Choice) -> tuple[ToolCall, ...]:
    """What vLLM's streaming parser read out of a cut choice's text: each call whose name
    was closed, with the arguments written so far."""
    left, out = len(choice.head), []
    for call in choice.cut_calls:
        name, arguments = tokens.pieces(call.name), tokens.pieces(call.arguments)
        if left <= len(_OPEN) + len(name):  # the name is closed by the quote after it
            break
        written = max(left - len(_OPEN) - len(name) - len(_MID), 0)
        out.append(ToolCall(call.name, "".join(arguments[:written])))
        left -= len(hermes_pieces((call,)))
    return tuple(out)


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
            cut_text = replace(
                choice, head=choice.head[:after], padding=padding, finish="abort", stop_reason=None
            )
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


def hermes_parts(call: ToolCall) -> tuple[int, int, int, int]:
    """How many of the tokens the model writes of `call` open it up to the end of its name,
    lead to its arguments, are its arguments, and close it."""
    name, arguments = tokens.pieces(call.name), tokens.pieces(call.arguments)
    return len(_OPEN) + len(name), len(_MID), len(arguments), len(_CLOSE)
