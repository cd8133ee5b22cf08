"""A chat completions reply as an OpenAI Responses reply: whole, or as typed events.

The event order is the one OpenAI and vLLM send and the `openai` SDK and Codex read:
response.created, response.in_progress; per output item output_item.added, then for text
content_part.added / output_text.delta… / output_text.done / content_part.done, for a
function call function_call_arguments.delta… / .done; output_item.done with the whole
item (Codex builds its history from these); finally response.completed (or
response.incomplete when the token limit cut the answer) carrying the usage. No [DONE].

An answer cut by the output limit or a content filter (chat's `finish_reason` "length" or
"content_filter") marks the items it cut `status: "incomplete"`, as OpenAI does: the one
the model was writing when it stopped, and any call whose arguments are not whole JSON. An
earlier item it had finished (the text before a call, a whole call before the cut one)
stays completed. A client acting on each output_item.done (Codex) must not run a call
whose arguments were cut, and only the final response.incomplete said so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from router.ledger.usage import normalize_usage
from router.translate.blocks import REFUSAL, TEXT, Block, Sequencer, Step
from router.translate.wire import content_text, first_choice, named_event

CUT = frozenset({"length", "content_filter"})  # finish reasons that stop an item midway


def usage(chat_usage: Any) -> dict[str, Any] | None:
    if not isinstance(chat_usage, dict):
        return None
    counts = normalize_usage("chat", chat_usage)
    prompt, completion = counts.prompt_tokens, counts.completion_tokens
    return {
        "input_tokens": prompt,
        "input_tokens_details": {
            "cached_tokens": counts.cached_tokens,
            "cache_write_tokens": counts.cache_write_tokens,
        },
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": counts.reasoning_tokens},
        "total_tokens": prompt + completion,
    }


def response_id(chat_id: Any) -> str:
    return f"resp_{chat_id}" if chat_id else f"resp_{time.time_ns():x}"


def envelope(rid: str, model: Any, request: dict[str, Any], status: str) -> dict[str, Any]:
    """The Response object around the output, echoing what the client asked for."""
    return {
        "id": rid,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"),
        "model": model,
        "output": [],
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "previous_response_id": None,
        "temperature": request.get("temperature", 1.0),
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools") or [],
        "top_p": request.get("top_p", 1.0),
        "usage": None,
        "metadata": request.get("metadata") or {},
    }


def _finish(out: dict[str, Any], reason: str | None, chat_usage: Any) -> dict[str, Any]:
    if reason == "length":
        out["status"] = "incomplete"
        out["incomplete_details"] = {"reason": "max_output_tokens"}
    elif reason == "content_filter":
        out["status"] = "incomplete"
        out["incomplete_details"] = {"reason": "content_filter"}
    else:
        out["status"] = "completed"
    out["usage"] = usage(chat_usage)
    return out


def text_item(
    item_id: str, text: str, status: str = "completed", refusal: bool = False
) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
    if refusal:
        part = {"type": "refusal", "refusal": text}
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": [] if status == "in_progress" else [part],
    }


def call_item(
    item_id: str, call_id: str, name: str, arguments: str, custom: bool, status: str = "completed"
) -> dict[str, Any]:
    if custom:
        raw = orjson.loads(arguments) if status != "in_progress" and arguments else {}
        # The model was shown a one-string-argument function; anything else goes through raw.
        given = raw["input"] if isinstance(raw, dict) and "input" in raw else arguments
        return {
            "type": "custom_tool_call",
            "id": item_id,
            "call_id": call_id,
            "name": name,
            "input": given if isinstance(given, str) else orjson.dumps(given).decode(),
            "status": status,
        }
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    }


def from_chat(
    chat: dict[str, Any], request: dict[str, Any], custom: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """A whole chat completion → a whole Response."""
    choice = first_choice(chat)
    message = choice.get("message") or {}
    base = str(chat.get("id") or time.time_ns())
    out = envelope(response_id(chat.get("id")), chat.get("model"), request, "completed")
    cut = choice.get("finish_reason") in CUT
    text = content_text(message.get("content"))
    if text:
        out["output"].append(text_item(f"msg_{base}", text))
    if isinstance(message.get("refusal"), str) and message["refusal"]:
        out["output"].append(text_item(f"msg_{base}_r", message["refusal"], refusal=True))
    for index, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function") or {}
        name = str(function.get("name") or "")
        arguments = str(function.get("arguments") or "")
        out["output"].append(
            call_item(
                f"fc_{base}_{index}",
                str(call.get("id") or f"call_{index}"),
                name,
                _safe_arguments(arguments, name in custom),
                name in custom,
                "incomplete" if cut and not _parses(arguments) else "completed",
            )
        )
    if cut and out["output"]:  # the last item is the one the model was writing
        out["output"][-1]["status"] = "incomplete"
    return _finish(out, choice.get("finish_reason"), chat.get("usage"))


def _parses(arguments: str) -> bool:
    try:
        orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return False
    return True


def _safe_arguments(arguments: Any, custom: bool) -> str:
    text = str(arguments or "")
    if custom:
        try:
            orjson.loads(text or "{}")
        except orjson.JSONDecodeError:
            return orjson.dumps({"input": text}).decode()
    return text


@dataclass(slots=True)
class _Item:
    index: int
    item_id: str
    kind: str  # "text" or "call"
    text: list[str] = field(default_factory=list)
    call_id: str = ""
    name: str = ""
    custom: bool = False


class ResponsesStream:
    """Chat chunks in, Responses events out. `feed` per chunk, `end` once at [DONE]."""

    def __init__(self, request: dict[str, Any], custom: frozenset[str] = frozenset()) -> None:
        self.started = False
        self.ended = False
        self._request = request
        self._custom = custom
        self._sequence = 0
        self._rid = ""
        self._base = ""
        self._model: Any = None
        self._items: list[_Item] = []
        self._blocks = Sequencer()
        self._done: list[dict[str, Any]] = []
        self._finish: str | None = None
        self._began = False  # a choice came: its end must say why it stopped
        self._usage: Any = None
        self._last = -1  # the output index of the item the model was writing at its end

    @property
    def finished(self) -> bool:
        return self._finish is not None

    @property
    def answering(self) -> bool:
        """A choice began and has not said why it stopped: its stream ending now cuts it."""
        return self._began and self._finish is None

    @property
    def usage_estimated(self) -> bool:
        """Never: without the upstream's usage the Response carries none (the gateway then
        estimates it for the record)."""
        return False

    @property
    def held_chars(self) -> int:
        """Characters generated that no event carried yet: the pieces waiting behind the
        open item (`Sequencer`); text and arguments otherwise go out as they come."""
        return self._blocks.waiting_chars()

    def feed(self, chunk: dict[str, Any]) -> list[bytes]:
        out = [] if self.started else self._start(chunk)
        if chunk.get("usage"):
            self._usage = chunk["usage"]
        choice = first_choice(chunk)
        self._began = self._began or bool(choice)
        delta = choice.get("delta") or {}
        text = content_text(delta.get("content"))
        if text:
            out.extend(self._events(self._blocks.piece(TEXT, text)))
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            out.extend(self._events(self._blocks.piece(REFUSAL, refusal)))
        for position, call in enumerate(delta.get("tool_calls") or ()):
            out.extend(self._events(self._blocks.tool_call(call, position)))
        if choice.get("finish_reason"):
            self._finish = choice["finish_reason"]
        return out

    def end(self) -> list[bytes]:
        if self.ended or not self.started:
            return []
        self.ended = True
        steps = self._blocks.end()
        stopped = [block.slot for step, block, _ in steps if step == "stop"]
        self._last = stopped[-1] if stopped else -1
        out = self._events(steps)
        final = envelope(self._rid, self._model, self._request, "completed")
        final["output"] = self._done
        _finish(final, self._finish, self._usage)
        name = "response.completed" if final["status"] == "completed" else "response.incomplete"
        out.append(self._emit(name, {"response": final}))
        return out

    def _emit(self, name: str, fields: dict[str, Any]) -> bytes:
        payload = {"type": name, "sequence_number": self._sequence, **fields}
        self._sequence += 1
        return named_event(name, payload)

    def _start(self, chunk: dict[str, Any]) -> list[bytes]:
        self.started = True
        self._base = str(chunk.get("id") or time.time_ns())
        self._rid = response_id(chunk.get("id"))
        self._model = chunk.get("model")
        response = envelope(self._rid, self._model, self._request, "in_progress")
        return [
            self._emit("response.created", {"response": response}),
            self._emit("response.in_progress", {"response": response}),
        ]

    def _events(self, steps: list[Step]) -> list[bytes]:
        out: list[bytes] = []
        for step, block, text in steps:
            if step == "open":
                out.extend(self._open(block))
            elif step == "piece":
                out.extend(self._piece(self._items[block.slot], text))
            else:
                out.extend(self._close(self._items[block.slot]))
        return out

    def _open(self, block: Block) -> list[bytes]:
        block.slot = len(self._items)
        if block.key in (TEXT, REFUSAL):
            item = self._new(str(block.key), f"msg_{self._base}_{block.slot}")
            added = text_item(item.item_id, "", "in_progress")
            part: dict[str, Any] = {"type": "refusal", "refusal": ""}
            if block.key == TEXT:
                part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            return [
                self._emit("response.output_item.added", self._at(item, item=added)),
                self._emit("response.content_part.added", self._in(item, part=part)),
            ]
        function = block.meta.get("function") or {}
        item = self._new("call", f"fc_{self._base}_{block.slot}")
        item.call_id = str(block.meta.get("id") or f"call_{block.key}")
        item.name = str(function.get("name") or "")
        item.custom = item.name in self._custom
        added = call_item(item.item_id, item.call_id, item.name, "", item.custom, "in_progress")
        return [self._emit("response.output_item.added", self._at(item, item=added))]

    def _piece(self, item: _Item, text: str) -> list[bytes]:
        item.text.append(text)
        if item.kind == "text":
            fields = self._in(item, delta=text, logprobs=[])
            return [self._emit("response.output_text.delta", fields)]
        if item.kind == REFUSAL:
            return [self._emit("response.refusal.delta", self._in(item, delta=text))]
        if item.custom:  # a freeform tool's input is only whole once its JSON is
            return []
        fields = self._at(item, item_id=item.item_id, delta=text)
        return [self._emit("response.function_call_arguments.delta", fields)]

    def _new(self, kind: str, item_id: str) -> _Item:
        item = _Item(len(self._items), item_id, kind)
        self._items.append(item)
        return item

    def _status(self, item: _Item, joined: str) -> str:
        """Incomplete when the end cut it (see the module's docstring): only items still
        open then can be, as one closes mid-stream only when the model moved on from it."""
        if not self.ended or self._finish not in CUT:
            return "completed"
        if item.index == self._last or (item.kind == "call" and not _parses(joined)):
            return "incomplete"
        return "completed"

    def _close(self, item: _Item) -> list[bytes]:
        joined = "".join(item.text)
        status = self._status(item, joined)
        out: list[bytes] = []
        if item.kind == "text":
            whole = text_item(item.item_id, joined, status)
            part = whole["content"][0]
            out.append(
                self._emit("response.output_text.done", self._in(item, text=joined, logprobs=[]))
            )
            out.append(self._emit("response.content_part.done", self._in(item, part=part)))
        elif item.kind == REFUSAL:
            whole = text_item(item.item_id, joined, status, refusal=True)
            part = whole["content"][0]
            out.append(self._emit("response.refusal.done", self._in(item, refusal=joined)))
            out.append(self._emit("response.content_part.done", self._in(item, part=part)))
        else:
            arguments = _safe_arguments(joined, item.custom)
            whole = call_item(item.item_id, item.call_id, item.name, arguments, item.custom, status)
            if not item.custom:
                fields = self._at(item, item_id=item.item_id, arguments=arguments)
                out.append(self._emit("response.function_call_arguments.done", fields))
        self._done.append(whole)
        out.append(self._emit("response.output_item.done", self._at(item, item=whole)))
        return out

    @staticmethod
    def _at(which: _Item, /, **fields: Any) -> dict[str, Any]:
        return {"output_index": which.index, **fields}

    @staticmethod
    def _in(which: _Item, /, **fields: Any) -> dict[str, Any]:
        where = {"item_id": which.item_id, "output_index": which.index, "content_index": 0}
        return where | fields
