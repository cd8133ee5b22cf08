"""A chat completions reply as an Anthropic Messages reply: whole, or event by event.

Events go out in the order Anthropic sends them and the `anthropic` SDK accumulates:
message_start, then per block content_block_start / content_block_delta (text_delta or
input_json_delta) / content_block_stop, then message_delta (stop_reason and the final
usage) and message_stop. Usage follows Anthropic's convention: `input_tokens` excludes
cache reads (FACTS.md). Without the upstream's usage (Anthropic's is required) both counts
are the router's estimates, the ones the ledger records: the input from the request, the
output from the characters the client was sent, as the relay's tally counts a stream's (the
text, and each tool call's name and its input as JSON as the stream sends it,
`wire.tool_input`: the arguments as they came when they are an object), and the reasoning
it was not
(`held_chars`). A whole reply counts its calls so too: its compact `input` counted fewer
(4 tokens where the same call streamed counted 5, found in review).

A chat backend's reasoning (`wire.reasoning_text`: vLLM's `reasoning`, `reasoning_content`)
is not shown: a `thinking` block is Anthropic's to sign, and Claude Code sends its blocks
back with their `signature`, which Anthropic checks. One the router made would carry none
it accepts, and a later turn of the session routed to an Anthropic backend would be refused
(400, `Invalid signature in thinking block`) for as long as the history holds it. While the
model reasons, the client gets a `ping` instead (Anthropic's keep-alive, which the SDKs
accept anywhere after message_start): once it has reasoned `REASONING_GRACE_S` (from its
first reasoning piece), then one a second at most (`keep_alive`) while the chunks carry
nothing else. That ping is the stream's first output (`router.first_token`): it commits the
stream, as reasoning commits a chat one, and takes the time to first token: a client
waiting minutes on a reasoning model gets its headers and a byte a second, where it got
nothing (Claude Code 2.1.173 sent a request to a gateway again after about 300 s without a
byte), and proxies' idle timers see bytes. Claude Code's stream watchdog (on by default
since 2.1.198: 5 minutes without an event) does not: its SDK drops pings, so it counts from
message_start still. The grace keeps the fallback for reasoning that fails before any text
(an error event, vLLM's `abort` on shutdown or sleep, a closed connection): a ping on the
first reasoning piece committed the stream there, and Claude Code got the error where the
next backend would have answered (found in re-review). The reasoning's characters are
generated output all the same: `held_chars` counts them for the estimate.

A tool call's input is not streamed: its pieces are held until its block stops, then sent
as one input_json_delta, the arguments as they came when they are a JSON object, else the
object the whole reply gives (`wire.tool_input`: `{"_raw_arguments": "..."}` for a small
model's `{"city": Paris}`, or for a call the token limit cut mid-JSON, whose stop reason is
max_tokens). The `anthropic` SDK and Claude Code parse the input accumulated at every delta:
a piece that could never parse raised mid-stream and lost the turn, recorded ok. A block's
first piece held, then one a second at most (`keep_alive`), sends an empty
input_json_delta (Anthropic's own first delta of a tool_use block is one): a client's stream
watchdog (Claude Code's aborts after minutes without an event, and its SDK drops `ping`s)
and the time to first token still see the model generating. A stream that ends before
the block stops (a cut, a stall, the user pressing Esc mid-Write) never sends the input it
held, yet the model generated it: `held_chars` tells the ledger's estimate (it recorded such
a call at ~0 output tokens).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from router.ledger.usage import normalize_usage
from router.request_size import estimate_tokens
from router.translate import keep_alive
from router.translate.blocks import TEXT, Block, Sequencer, Step
from router.translate.keep_alive import KeepAlive
from router.translate.tool_ids import ToolIds
from router.translate.wire import (
    LIMIT_REASONS,
    arguments_text,
    content_text,
    final_usage,
    finish_reasons,
    first_choice,
    named_event,
    parse_arguments,
    reasoning_text,
    tool_input,
    wraps,
)

PING = named_event("ping", {"type": "ping"})

STOP_REASONS = {
    "stop": "end_turn",
    **dict.fromkeys(LIMIT_REASONS, "max_tokens"),
    "content_filter": "refusal",
}
_CUT = LIMIT_REASONS | {"content_filter"}  # the reasons that may have cut a call's input


def stop_reason(
    finish_reason: str | None, has_tool_calls: bool, matched: Any = None
) -> tuple[str, str | None]:
    """Anthropic's stop reason and stop sequence. A reply that ran out of tokens (`LIMIT_
    REASONS`: Mistral's context window too) or was filtered says so even when it holds tool
    calls: their arguments may be cut, and a client told "tool_use" would run a tool with
    half its input. "tool_use" is said of a reply with a tool call only, whatever the
    upstream's reason: Anthropic never sends it without one, and a client looping on it
    (run the calls, send their results) found none to run and crashed, for an upstream that
    said "tool_calls" over a text answer (found in review). vLLM may end a whole tool call
    with "stop", and names the stop string it matched in `stop_reason` (a token id, or None,
    for an end-of-sequence token)."""
    reason = finish_reason or "stop"
    if has_tool_calls and reason not in _CUT:
        return "tool_use", None
    if reason == "stop" and isinstance(matched, str):
        return "stop_sequence", matched
    return STOP_REASONS.get(reason, "end_turn"), None


def usage(chat_usage: Any) -> dict[str, int]:
    counts = normalize_usage("chat", chat_usage)
    cached, written = counts.cached_tokens, counts.cache_write_tokens
    return {
        "input_tokens": max(0, counts.prompt_tokens - cached - written),
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": cached,
        "output_tokens": counts.completion_tokens,
    }


def message_id(ids: ToolIds) -> str:
    """The reply's own id, of its random part (`ToolIds.part`), as a Responses reply's is: a
    backend's completion id repeats (Ollama draws from 999; one without any gave every
    reply `msg_router`), and a client that tells replies apart by id would join two."""
    return f"msg_{ids.part}"


def from_chat(
    chat: dict[str, Any], estimated_input: int = 0, ids: ToolIds | None = None
) -> dict[str, Any]:
    """A whole chat completion → a whole Messages reply. Without the upstream's usage both
    counts are the router's estimates (Anthropic's usage is required), as in a stream. Its
    tool_use ids are `ids`' (`router.translate.tool_ids`), a new message's by default."""
    ids = ids or ToolIds()
    choice = first_choice(chat)
    message = choice.get("message") or {}
    content: list[dict[str, Any]] = []
    text = content_text(message.get("content"))
    if text:
        content.append({"type": "text", "text": text})
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal:
        content.append({"type": "text", "text": refusal})
    inputs = 0  # characters of the calls' input as a stream sends it (`tool_input`)
    for position, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function") or {}
        arguments = arguments_text(function.get("arguments"))
        inputs += len(tool_input(arguments))
        name = str(function.get("name") or "")
        inputs += len(name)  # generated too (`MessagesStream._event`)
        content.append(
            {
                "type": "tool_use",
                "id": ids.id(call.get("id"), position),
                "name": name,
                "input": parse_arguments(arguments),
            }
        )
    stop, sequence = stop_reason(
        choice.get("finish_reason"), bool(message.get("tool_calls")), choice.get("stop_reason")
    )
    if isinstance(refusal, str) and refusal:
        stop, sequence = "refusal", None
    counts = usage(chat.get("usage"))
    if not isinstance(chat.get("usage"), dict):  # the reasoning was generated too
        counts["input_tokens"] = estimated_input
        reasoned = len(reasoning_text(message))
        texts = sum(len(block["text"]) for block in content if block["type"] == "text")
        counts["output_tokens"] = estimate_tokens(texts + inputs + reasoned)
    return {
        "id": message_id(ids),
        "type": "message",
        "role": "assistant",
        "model": chat.get("model"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": sequence,
        "usage": counts,
    }


def wrapped_inputs(chat: dict[str, Any], message: dict[str, Any]) -> frozenset[int]:
    """The content indexes of the tool_use blocks of `message` (`from_chat(chat)`) whose
    input is their call's arguments wrapped (`wraps`)."""
    calls = (first_choice(chat).get("message") or {}).get("tool_calls") or ()
    uses = [i for i, block in enumerate(message["content"]) if block["type"] == "tool_use"]
    arguments = (arguments_text((call.get("function") or {}).get("arguments")) for call in calls)
    # one block per call (`from_chat`)
    return frozenset(i for i, text in zip(uses, arguments, strict=False) if wraps(text))


class MessagesStream:
    """Chat chunks in, Anthropic events out. `feed` per chunk, `end` once at [DONE]."""

    def __init__(
        self,
        estimated_input: int = 0,
        clock: Callable[[], float] = time.monotonic,
        ids: ToolIds | None = None,
    ) -> None:
        self.started = False
        self._ids = ids or ToolIds()  # the tool_use ids (`router.translate.tool_ids`)
        self.ended = False
        self._estimated_input = estimated_input
        self._blocks = Sequencer()
        self._opened = 0
        self._has_tools = False
        self._finish: str | None = None
        self._began = False  # a choice came: its end must say why it stopped
        self._matched: Any = None  # vLLM's `stop_reason`: the stop string it matched
        self._refused = False
        self._usage: Any = None
        self._usage_final = False  # `_usage` is the whole count, not a running one (`feed`)
        self._sent = 0  # characters of text, tool names and input sent: the output's estimate
        self._alive = KeepAlive(clock)  # when the open call's next empty delta may go
        # when the next ping may go while the model reasons (read here: tests shorten it)
        self._pings = KeepAlive(clock, first_after=keep_alive.REASONING_GRACE_S)
        self._reasoned = 0  # characters of reasoning: generated, never sent
        self._wrapped: set[int] = set()  # the blocks whose input `tool_input` wrapped
        self._held: dict[str, Any] | None = None  # a choice-less chunk before the opener
        self._said: list[str] = []  # the chat finish reasons (`upstream_finish_reasons`)

    def feed(self, chunk: dict[str, Any]) -> list[bytes]:
        """The events for one chunk. `message_start` waits for a chunk with a choice (or
        usage, or the end): Azure opens a stream with a choice-less prompt-filter chunk
        before generating, and an opener made from it showed a silent backend at work
        (`router.silence.shows_work`), so it was never judged silent (found in re-review)."""
        if not self.started and not chunk.get("choices") and not chunk.get("usage"):
            self._held = self._held or chunk
            return []
        out = [] if self.started else [self._start(chunk)]
        opened = len(out)
        choice = first_choice(chunk)
        self._began = self._began or bool(choice)
        delta = choice.get("delta") or {}
        text = content_text(delta.get("content"))
        if text:
            out.extend(self._events(self._blocks.piece(TEXT, text)))
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:  # shown as text; the stop reason says why
            self._refused = True
            out.extend(self._events(self._blocks.piece(TEXT, refusal)))
        for position, call in enumerate(delta.get("tool_calls") or ()):
            self._has_tools = True
            out.extend(self._events(self._blocks.tool_call(call, position)))
        thought = reasoning_text(delta)
        if thought:  # not shown; a ping says the model is at work when nothing else does
            self._reasoned += len(thought)
            if len(out) == opened and self._pings.due():
                out.append(PING)
        if choice.get("finish_reason"):
            self._finish = choice["finish_reason"]
            self._matched = choice.get("stop_reason")
        self._said += finish_reasons(chunk)  # every choice's: the attempt's span says them
        if chunk.get("usage"):
            self._usage, self._usage_final = chunk["usage"], final_usage(chunk, self.answering)
        return out

    def end(self) -> list[bytes]:
        """The closing events; [] when already ended (or never started: nothing to close),
        after the held opener when only choice-less chunks came (an empty message)."""
        if not self.started and self._held is not None:
            return [self._start(self._held), *self.end()]
        if self.ended or not self.started:
            return []
        self.ended = True
        out = self._events(self._blocks.end())
        stop, sequence = stop_reason(self._finish, self._has_tools, self._matched)
        if self._refused:
            stop, sequence = "refusal", None
        final = usage(self._usage)
        if self._usage is None:
            final["input_tokens"] = self._estimated_input
            final["output_tokens"] = estimate_tokens(self._sent + self._reasoned)
        delta = {"stop_reason": stop, "stop_sequence": sequence}
        out.append(
            named_event("message_delta", {"type": "message_delta", "delta": delta, "usage": final})
        )
        out.append(named_event("message_stop", {"type": "message_stop"}))
        return out

    @property
    def finished(self) -> bool:
        """The upstream said why it stopped: an end without [DONE] is still a whole answer."""
        return self._finish is not None

    @property
    def answering(self) -> bool:
        """A choice began and has not said why it stopped: its stream ending now cuts it."""
        return self._began and self._finish is None

    @property
    def usage_estimated(self) -> bool:
        """No whole usage came: the counts sent are the router's estimates, or a running
        count (`feed`) the gateway records the larger of it and its estimate."""
        return not self._usage_final

    @property
    def upstream_usage(self) -> dict[str, int] | None:
        """The upstream's usage as message_delta carries it, once its usage chunk came: a
        stream cut after it, before [DONE], never sent it, and the ledger records it still.
        A running count (`feed`) too, which `usage_estimated` says is not the whole answer's.
        """
        return usage(self._usage) if isinstance(self._usage, dict) else None

    @property
    def held_chars(self) -> int:
        """Characters generated that no event carried: the reasoning (never sent), the open
        tool call's arguments (sent at its stop, then counted as sent instead) and the
        pieces waiting behind it."""
        open_ = self._blocks.open
        held = open_.chars() if open_ is not None and open_.key != TEXT else 0
        return self._reasoned + held + self._blocks.waiting_chars()

    @property
    def held_input(self) -> dict[int, str]:
        """None: Anthropic's error event, which ends a failed stream, carries no content."""
        return {}

    @property
    def wrapped(self) -> frozenset[int]:
        """The tool_use blocks whose input is the arguments wrapped (`wraps`)."""
        return frozenset(self._wrapped)

    @property
    def upstream_finish_reasons(self) -> list[str]:
        """The chat finish reasons, as the upstream said them (`stop`, not `end_turn`)."""
        return list(self._said)

    def _start(self, chunk: dict[str, Any]) -> bytes:
        self.started = True
        message: dict[str, Any] = {
            "id": message_id(self._ids),
            "type": "message",
            "role": "assistant",
            "model": chunk.get("model"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": self._estimated_input, "output_tokens": 0},
        }
        return named_event("message_start", {"type": "message_start", "message": message})

    def _events(self, steps: list[Step]) -> list[bytes]:
        out: list[bytes] = []
        for step, block, text in steps:
            out.extend(self._event(step, block, text))
        return out

    def _event(self, step: str, block: Block, text: str) -> list[bytes]:
        """The events of one step: a tool call's pieces are held, its input sent at its stop."""
        if step == "open":
            index = block.slot = self._opened
            self._opened += 1
            self._alive.reset()
            shell = _shell(block, self._ids)
            self._sent += len(shell.get("name", ""))  # a call's name: generated output
            start = {"type": "content_block_start", "index": index, "content_block": shell}
            return [named_event("content_block_start", start)]
        out: list[bytes] = []
        if step == "piece" and block.key == TEXT:
            out.append(self._delta(block.slot, "text_delta", "text", text))
        elif step == "piece":  # held: an empty piece (Anthropic's first is one) says it grows
            if self._alive.due():
                out.append(self._delta(block.slot, "input_json_delta", "partial_json", ""))
        elif block.key != TEXT:  # a tool call's stop: its input, whole
            arguments = str(block.pieces)
            given = tool_input(arguments)
            if wraps(arguments):
                self._wrapped.add(block.slot)
            out.append(self._delta(block.slot, "input_json_delta", "partial_json", given))
        if step == "stop":
            stop = {"type": "content_block_stop", "index": block.slot}
            out.append(named_event("content_block_stop", stop))
        return out

    def _delta(self, index: int, kind: str, field: str, text: str) -> bytes:
        self._sent += len(text)
        payload = {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": kind, field: text},
        }
        return named_event("content_block_delta", payload)


def _shell(block: Block, ids: ToolIds) -> dict[str, Any]:
    """The content block as content_block_start announces it: empty."""
    if block.key == TEXT:
        return {"type": "text", "text": ""}
    function = block.meta.get("function") or {}
    return {
        "type": "tool_use",
        "id": ids.id(block.meta.get("id"), block.key),
        "name": str(function.get("name") or ""),
        "input": {},
    }
