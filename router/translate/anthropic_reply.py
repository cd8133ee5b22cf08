"""A chat completions reply as an Anthropic Messages reply: whole, or event by event.

Events go out in the order Anthropic sends them and the `anthropic` SDK accumulates:
message_start, then per block content_block_start / content_block_delta (text_delta or
input_json_delta) / content_block_stop, then message_delta (stop_reason and the final
usage) and message_stop. Usage follows Anthropic's convention: `input_tokens` excludes
cache reads (FACTS.md).
"""

from __future__ import annotations

from typing import Any

from router.translate.wire import (
    error_message,
    first_choice,
    named_event,
    parse_arguments,
    usage_numbers,
)

STOP_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


def stop_reason(finish_reason: str | None, has_tool_calls: bool) -> str:
    """Anthropic's stop reason. A reply that ran out of tokens or was filtered says so even
    when it holds tool calls: their arguments may be cut, and a client told "tool_use" would
    run a tool with half its input. vLLM may end a whole tool call with "stop"."""
    reason = finish_reason or "stop"
    if has_tool_calls and reason not in ("length", "content_filter"):
        return "tool_use"
    return STOP_REASONS.get(reason, "end_turn")


def usage(chat_usage: Any) -> dict[str, int]:
    prompt, completion, cached, _ = usage_numbers(chat_usage)
    return {
        "input_tokens": max(0, prompt - cached),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": cached,
        "output_tokens": completion,
    }


def message_id(chat_id: Any) -> str:
    return f"msg_{chat_id}" if chat_id else "msg_router"


def from_chat(chat: dict[str, Any]) -> dict[str, Any]:
    """A whole chat completion → a whole Messages reply."""
    choice = first_choice(chat)
    message = choice.get("message") or {}
    content: list[dict[str, Any]] = []
    if message.get("content"):
        content.append({"type": "text", "text": str(message["content"])})
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        content.append(
            {
                "type": "tool_use",
                "id": str(call.get("id") or ""),
                "name": str(function.get("name") or ""),
                "input": parse_arguments(str(function.get("arguments") or "")),
            }
        )
    stop = stop_reason(choice.get("finish_reason"), bool(message.get("tool_calls")))
    return {
        "id": message_id(chat.get("id")),
        "type": "message",
        "role": "assistant",
        "model": chat.get("model"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage(chat.get("usage")),
    }


def error_event(kind: str, message: str) -> bytes:
    return named_event("error", {"type": "error", "error": {"type": kind, "message": message}})


class MessagesStream:
    """Chat chunks in, Anthropic events out. `feed` per chunk, `end` once at [DONE]."""

    def __init__(self, estimated_input: int = 0) -> None:
        self.started = False
        self.ended = False
        self._estimated_input = estimated_input
        self._block = -1  # index of the open content block, -1 when none is open
        self._kind = ""  # "text" or "tool_use"
        self._tools: dict[int, int] = {}  # chat tool-call index → content block index
        self._finish: str | None = None
        self._usage: Any = None

    def feed(self, chunk: dict[str, Any]) -> list[bytes]:
        if "error" in chunk:
            self.ended = True
            return [error_event("api_error", error_message(chunk))]
        out = [] if self.started else [self._start(chunk)]
        if chunk.get("usage"):
            self._usage = chunk["usage"]
        choice = first_choice(chunk)
        delta = choice.get("delta") or {}
        text = delta.get("content")
        if isinstance(text, str) and text:
            if self._kind != "text":
                out.extend(self._open({"type": "text", "text": ""}, "text"))
            payload = {"type": "text_delta", "text": text}
            out.append(self._delta(self._block, payload))
        for call in delta.get("tool_calls") or ():
            out.extend(self._tool_piece(call))
        if choice.get("finish_reason"):
            self._finish = choice["finish_reason"]
        return out

    def end(self) -> list[bytes]:
        """The closing events; [] when already ended (or never started: nothing to close)."""
        if self.ended or not self.started:
            return []
        self.ended = True
        out = self._close()
        stop = stop_reason(self._finish, bool(self._tools))
        final = usage(self._usage)
        if self._usage is None:
            final["input_tokens"] = self._estimated_input
        delta = {"stop_reason": stop, "stop_sequence": None}
        out.append(
            named_event("message_delta", {"type": "message_delta", "delta": delta, "usage": final})
        )
        out.append(named_event("message_stop", {"type": "message_stop"}))
        return out

    @property
    def finished(self) -> bool:
        """The upstream said why it stopped: an end without [DONE] is still a whole answer."""
        return self._finish is not None

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

    def _tool_piece(self, call: dict[str, Any]) -> list[bytes]:
        out: list[bytes] = []
        index = call.get("index", 0)
        function = call.get("function") or {}
        if index not in self._tools:
            block = {
                "type": "tool_use",
                "id": str(call.get("id") or f"toolu_{index}"),
                "name": str(function.get("name") or ""),
                "input": {},
            }
            out.extend(self._open(block, "tool_use"))
            self._tools[index] = self._block
        piece = function.get("arguments")
        if isinstance(piece, str) and piece:
            payload = {"type": "input_json_delta", "partial_json": piece}
            out.append(self._delta(self._tools[index], payload))
        return out

    def _open(self, block: dict[str, Any], kind: str) -> list[bytes]:
        out = self._close()
        self._block += 1
        self._kind = kind
        start = {"type": "content_block_start", "index": self._block, "content_block": block}
        out.append(named_event("content_block_start", start))
        return out

    def _close(self) -> list[bytes]:
        if not self._kind:
            return []
        self._kind = ""
        stop = {"type": "content_block_stop", "index": self._block}
        return [named_event("content_block_stop", stop)]

    @staticmethod
    def _delta(index: int, delta: dict[str, Any]) -> bytes:
        payload = {"type": "content_block_delta", "index": index, "delta": delta}
        return named_event("content_block_delta", payload)
