"""A chat completions reply as an Anthropic Messages reply: whole, or event by event.

Events go out in the order Anthropic sends them and the `anthropic` SDK accumulates:
message_start, then per block content_block_start / content_block_delta (text_delta or
input_json_delta) / content_block_stop, then message_delta (stop_reason and the final
usage) and message_stop. Usage follows Anthropic's convention: `input_tokens` excludes
cache reads (FACTS.md).
"""

from __future__ import annotations

from typing import Any

from router.ledger.usage import normalize_usage
from router.translate.blocks import TEXT, Block, Sequencer, Step
from router.translate.wire import content_text, first_choice, named_event, parse_arguments

STOP_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


def stop_reason(
    finish_reason: str | None, has_tool_calls: bool, matched: Any = None
) -> tuple[str, str | None]:
    """Anthropic's stop reason and stop sequence. A reply that ran out of tokens or was
    filtered says so even when it holds tool calls: their arguments may be cut, and a client
    told "tool_use" would run a tool with half its input. vLLM may end a whole tool call
    with "stop", and names the stop string it matched in `stop_reason` (a token id, or None,
    for an end-of-sequence token)."""
    reason = finish_reason or "stop"
    if has_tool_calls and reason not in ("length", "content_filter"):
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


def message_id(chat_id: Any) -> str:
    return f"msg_{chat_id}" if chat_id else "msg_router"


def from_chat(chat: dict[str, Any], estimated_input: int = 0) -> dict[str, Any]:
    """A whole chat completion → a whole Messages reply. Without the upstream's usage the
    input is the router's estimate (Anthropic's usage is required), as in a stream."""
    choice = first_choice(chat)
    message = choice.get("message") or {}
    content: list[dict[str, Any]] = []
    text = content_text(message.get("content"))
    if text:
        content.append({"type": "text", "text": text})
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal:
        content.append({"type": "text", "text": refusal})
    for position, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function") or {}
        content.append(
            {
                "type": "tool_use",
                "id": tool_use_id(call.get("id"), position),
                "name": str(function.get("name") or ""),
                "input": parse_arguments(str(function.get("arguments") or "")),
            }
        )
    stop, sequence = stop_reason(
        choice.get("finish_reason"), bool(message.get("tool_calls")), choice.get("stop_reason")
    )
    if isinstance(refusal, str) and refusal:
        stop, sequence = "refusal", None
    counts = usage(chat.get("usage"))
    if not isinstance(chat.get("usage"), dict):
        counts["input_tokens"] = estimated_input
    return {
        "id": message_id(chat.get("id")),
        "type": "message",
        "role": "assistant",
        "model": chat.get("model"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": sequence,
        "usage": counts,
    }


class MessagesStream:
    """Chat chunks in, Anthropic events out. `feed` per chunk, `end` once at [DONE]."""

    def __init__(self, estimated_input: int = 0) -> None:
        self.started = False
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

    def feed(self, chunk: dict[str, Any]) -> list[bytes]:
        out = [] if self.started else [self._start(chunk)]
        if chunk.get("usage"):
            self._usage = chunk["usage"]
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
        if choice.get("finish_reason"):
            self._finish = choice["finish_reason"]
            self._matched = choice.get("stop_reason")
        return out

    def end(self) -> list[bytes]:
        """The closing events; [] when already ended (or never started: nothing to close)."""
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
        """No usage came: the input sent is the router's estimate, the output a zero."""
        return self._usage is None

    def _start(self, chunk: dict[str, Any]) -> bytes:
        self.started = True
        message: dict[str, Any] = {
            "id": message_id(chunk.get("id")),
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
        return [self._event(step, block, text) for step, block, text in steps]

    def _event(self, step: str, block: Block, text: str) -> bytes:
        index = block.slot
        if step == "open":
            index = block.slot = self._opened
            self._opened += 1
            start = {"type": "content_block_start", "index": index, "content_block": _shell(block)}
            return named_event("content_block_start", start)
        if step == "stop":
            return named_event("content_block_stop", {"type": "content_block_stop", "index": index})
        if block.key == TEXT:
            delta = {"type": "text_delta", "text": text}
        else:
            delta = {"type": "input_json_delta", "partial_json": text}
        payload = {"type": "content_block_delta", "index": index, "delta": delta}
        return named_event("content_block_delta", payload)


def tool_use_id(chat_id: Any, position: Any) -> str:
    """The upstream's call id, else `toolu_N` (N the call's place): Claude Code answers a
    tool_use by its id, so an empty one would leave the result nothing to pair with."""
    return str(chat_id or f"toolu_{position}")


def _shell(block: Block) -> dict[str, Any]:
    """The content block as content_block_start announces it: empty."""
    if block.key == TEXT:
        return {"type": "text", "text": ""}
    function = block.meta.get("function") or {}
    return {
        "type": "tool_use",
        "id": tool_use_id(block.meta.get("id"), block.key),
        "name": str(function.get("name") or ""),
        "input": {},
    }
