"""Reading the typed events of the agent APIs: usage, stop reasons, the end, and failure.

The relay watches every event it forwards. Chat has its own fast path in `router.relay`;
the Messages and Responses events are read here, from native upstreams and translated
ones alike (both speak the client's API by the time the relay sees them). A failed stream
ends with the API's own in-band error: Anthropic's `error` event, which the `anthropic`
SDK raises on, or Responses' `response.failed`, which Codex reports. An upstream's own
in-band error keeps its names there: Claude Code waits out an `overloaded_error`, Codex
compacts on `context_length_exceeded` and retries a `rate_limit_exceeded`. The
`response.failed` carries the output streamed so far (`router.translate.so_far`), as OpenAI's does,
in the Response `response.created` announced. The answer's tool calls are kept, and their
names counted, by `router.translate.kept_calls`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from router.backends.base import Translation
from router.errors import RouterError
from router.translate.context_refusal import anthropic_words, is_context_refusal
from router.translate.kept_calls import (
    KeptCall,
    count_call_name,
    count_name,
    keep_call,
    keep_item_call,
)
from router.translate.so_far import SoFar, Text
from router.translate.wire import named_event

_RESPONSES_ENDS = ("response.completed", "response.incomplete")


# what `SoFar.see` reads besides the text, reasoning and arguments deltas: OpenAI and the
# router's translation stream a reasoning item's text as content parts, vLLM as reasoning
# parts (no event of OpenAI's spec, read all the same), OpenAI its summary as summary parts
_SO_FAR_EVENTS = frozenset(
    {
        "response.output_item.added",
        "response.content_part.added",
        "response.refusal.delta",
        "response.reasoning_part.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
    }
)


# a function call's arguments, a custom tool call's input and a reasoning item's text, counted
# as output but no answer text: without the input a custom call (Codex's `apply_patch`) was
# missing from the estimate of a stream without usage, and without the reasoning a stream
# left mid-reasoning (vLLM's, or translated from a chat backend's) was estimated at 0 tokens
_UNSAID_DELTAS = frozenset(
    {
        "response.function_call_arguments.delta",
        "response.custom_tool_call_input.delta",
        "response.reasoning_text.delta",
    }
)


class Watched(Protocol):
    """What the relay's tally keeps (see `router.relay.Tally`)."""

    usage: dict[str, Any] | None
    usage_final: bool  # False while `usage` is a Messages stream's message_start placeholder
    finish_reasons: list[str]
    output_chars: int
    text: Text  # the answer's, joined as it comes (a str per delta held 15 times the text)
    tool_calls: dict[int, KeptCall]  # by position; kept with the text
    keep_text: bool
    done: bool
    sequence: int
    response_id: str
    created: dict[str, Any] | None  # the Response of `response.created`, which failed extends
    so_far: SoFar  # a Responses stream's output items
    output: list[Any]  # a whole reply's items
    translation: Translation | None  # a translated stream's (`Reply.translation`)


def failure(api: str, obj: dict[str, Any]) -> Any:
    """The upstream's error object when this event says it failed (for
    `router.upstream_errors.in_band`), else None. An untyped event's `"error": null` says
    nothing failed: some servers serialise every chunk with its null error field."""
    kind = obj.get("type")
    errs = kind is None and obj.get("error") is not None
    if api == "messages":
        if kind == "error" or errs:
            return obj.get("error") or obj.get("message") or "upstream error mid-stream"
        return None
    if kind == "error":  # Responses' error event carries the error's fields itself
        return {"code": obj.get("code"), "message": obj.get("message") or "upstream error"}
    if kind == "response.failed" or errs:
        response = obj.get("response")
        inner = response.get("error") if isinstance(response, dict) else None
        return obj.get("error") or inner or "upstream error mid-stream"
    return None


def see(api: str, tally: Watched, obj: dict[str, Any]) -> None:
    if api == "messages":
        _see_messages(tally, obj)
    else:
        _see_responses(tally, obj)


def error_event(api: str, error: RouterError, tally: Watched) -> bytes:
    """The last event of a stream that broke after the commit point, in the API's shape. A
    `response.failed` carries the Response its `response.created` announced, failed: made
    of the id alone, the `openai` SDK read its model, created_at and tools as None."""
    if api == "messages":
        payload = {
            "type": "error",
            "error": {"type": _anthropic_kind(error), "message": anthropic_words(error)},
        }
        return named_event("error", payload)
    held = tally.translation.held_input if tally.translation else {}
    code = _openai_code(error) or "server_error"
    failed = Failure(code, error.message, tally.so_far.output(held))
    return response_failed(tally.created, tally.response_id, tally.sequence + 1, failed)


@dataclass(frozen=True, slots=True)
class Failure:
    """What a `response.failed` says: the error's `code` and `message`, and the output
    streamed before it."""

    code: str
    message: str
    output: list[dict[str, Any]] = field(default_factory=list)


def response_failed(
    created: dict[str, Any] | None, response_id: str, sequence: int, failure: Failure
) -> bytes:
    """The `response.failed` event: the Response `created` announced (`response_id`),
    failed. Also the end of a refusal told in-band (`router.translate.responses_refusal`)."""
    response: dict[str, Any] = {
        **(created or {"object": "response"}),
        "id": response_id or "resp_router",
        "status": "failed",
        "error": {"code": failure.code, "message": failure.message},
        "incomplete_details": None,
        "output": failure.output,
        "usage": None,
    }
    event = {"type": "response.failed", "sequence_number": sequence, "response": response}
    return named_event("response.failed", event)


ANTHROPIC_TYPES = frozenset(
    {
        "invalid_request_error",
        "authentication_error",
        "billing_error",
        "permission_error",
        "not_found_error",
        "request_too_large",
        "rate_limit_error",
        "api_error",
        "overloaded_error",
        "timeout_error",
    }
)


def _openai_code(error: RouterError) -> str | None:
    """The code of the error's OpenAI envelope: an OpenAI-shaped upstream's own, else ours."""
    inner = error.body().get("error")
    code = inner.get("code") if isinstance(inner, dict) else None
    return code if isinstance(code, str) else None


def _anthropic_kind(error: RouterError) -> str:
    """An Anthropic upstream's own error type, else the one for the error's status."""
    wire = getattr(error, "wire", None)
    if wire is not None and wire.api == "messages" and wire.type in ANTHROPIC_TYPES:
        return str(wire.type)
    return anthropic_type(error.status)


def anthropic_error_body(error: RouterError) -> bytes:
    """`error`'s answer to a Messages client: its body in Anthropic's envelope, a context
    refusal in Anthropic's words (`context_refusal`: Claude Code compacts on them), any
    other refusal of the router's own in them where they differ from OpenAI's
    (`RouterError.anthropic_message`: a field it checks, an unknown model)."""
    worded = anthropic_words(error) if is_context_refusal(error) else error.anthropic_message
    return anthropic_error(error.status, error.json(), worded)


def anthropic_error(status: int, body: bytes, message: str | None = None) -> bytes:
    """An error body in Anthropic's envelope, with `message` when given, else the body's;
    a body already in it with one of Anthropic's types (an Anthropic upstream's) stays byte
    for byte. vLLM's own /v1/messages answers in the envelope with its class names
    (`BadRequestError`), which Claude Code does not know: they get the status's type, as
    an error in its stream does (`_anthropic_kind`)."""
    try:
        parsed: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        parsed = {}
    if isinstance(parsed, dict) and parsed.get("type") == "error":
        inner = parsed.get("error")
        kind = inner.get("type") if isinstance(inner, dict) else None
        if isinstance(kind, str) and kind in ANTHROPIC_TYPES:
            return body
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if message is None:
        message = error.get("message") if isinstance(error, dict) else str(error or "error")
    shaped = {"type": "error", "error": {"type": anthropic_type(status), "message": str(message)}}
    return orjson.dumps(shaped)


def anthropic_type(status: int) -> str:
    """Anthropic's error `type` for an HTTP status (docs.anthropic.com/en/api/errors)."""
    return {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        413: "request_too_large",
        429: "rate_limit_error",
        503: "overloaded_error",
        529: "overloaded_error",
        504: "timeout_error",
    }.get(status, "invalid_request_error" if 400 <= status < 500 else "api_error")


def _count(tally: Watched, text: Any) -> None:
    if isinstance(text, str):
        tally.output_chars += len(text)
        if tally.keep_text:
            tally.text.add(text)


def _see_messages(tally: Watched, obj: dict[str, Any]) -> None:
    kind = obj.get("type")
    if kind == "content_block_delta":
        _see_block_delta(tally, obj)
    elif kind == "content_block_start":
        block = obj.get("content_block") or {}
        if block.get("type") == "tool_use":  # its name the model generated, as its input
            count_name(tally, block.get("name"))
            keep_call(tally, obj.get("index"), block.get("name"))
    elif kind == "message_start":
        _merge(tally, (obj.get("message") or {}).get("usage"))
        tally.usage_final = False  # output_tokens 1 or 0 until the message_delta
    elif kind == "message_delta":
        _merge(tally, obj.get("usage"))
        tally.usage_final = True
        reason = (obj.get("delta") or {}).get("stop_reason")
        if reason:
            tally.finish_reasons.append(str(reason))
    elif kind == "message_stop":
        tally.done = True
    elif kind == "message":  # a whole, non-streamed reply
        _merge(tally, obj.get("usage"))
        for position, block in enumerate(obj.get("content") or ()):
            if isinstance(block, dict):
                _count(tally, block.get("text"))
                if block.get("type") == "tool_use":
                    arguments = orjson.dumps(block.get("input")).decode()
                    tally.output_chars += len(arguments)
                    count_name(tally, block.get("name"))
                    keep_call(tally, position, block.get("name"), arguments)
        if obj.get("stop_reason"):
            tally.finish_reasons.append(str(obj["stop_reason"]))


def _see_block_delta(tally: Watched, obj: dict[str, Any]) -> None:
    delta = obj.get("delta") or {}
    _count(tally, delta.get("text"))
    piece = delta.get("partial_json")
    if isinstance(piece, str):
        tally.output_chars += len(piece)
        index = obj.get("index")
        call = tally.tool_calls.get(index) if isinstance(index, int) else None
        if call is not None:  # a tool_use block whose start was kept
            call.pieces.add(piece)


def _merge(tally: Watched, usage: Any) -> None:
    """Anthropic's message_delta usage is cumulative: later non-null values overwrite."""
    if isinstance(usage, dict):
        fresh = {k: v for k, v in usage.items() if v is not None}
        tally.usage = {**(tally.usage or {}), **fresh}


def _see_responses(tally: Watched, obj: dict[str, Any]) -> None:
    kind = obj.get("type")
    sequence = obj.get("sequence_number")
    if isinstance(sequence, int):
        tally.sequence = sequence
    if kind == "response.output_text.delta":
        delta = obj.get("delta")
        _count(tally, delta)
        tally.so_far.grow(obj, delta)
    elif kind in _UNSAID_DELTAS:
        delta = obj.get("delta")
        tally.output_chars += len(delta) if isinstance(delta, str) else 0
        tally.so_far.grow(obj, delta)
    elif kind == "response.output_item.done":
        keep_item_call(tally, obj.get("output_index"), obj.get("item") or {})
        tally.so_far.see(kind, obj)
    elif kind in _SO_FAR_EVENTS:
        if kind == "response.refusal.delta":  # the answer, as a chat refusal is (`Tally.see`)
            _count(tally, obj.get("delta"))
        elif kind == "response.output_item.added":  # a call's name, before its arguments
            count_call_name(tally, obj.get("item"))
        tally.so_far.see(kind, obj)
    elif kind == "response.created":
        response = obj.get("response")
        response = response if isinstance(response, dict) else {}
        tally.response_id = str(response.get("id") or "")
        tally.created = response
    elif kind in _RESPONSES_ENDS:
        _see_response(tally, obj.get("response") or {}, count=False)
        tally.done = True
    elif obj.get("object") == "response":  # a whole, non-streamed reply
        tally.response_id = str(obj.get("id") or "")
        _see_response(tally, obj, count=True)


def _see_response(tally: Watched, response: dict[str, Any], count: bool) -> None:
    if isinstance(response.get("usage"), dict):
        tally.usage = response["usage"]
    status = response.get("status")
    details = response.get("incomplete_details") or {}
    if status == "incomplete":
        tally.finish_reasons.append(str(details.get("reason") or "incomplete"))
    elif status:
        tally.finish_reasons.append(str(status))
    if not count:
        return
    if isinstance(response.get("output"), list):
        tally.output = response["output"]
    for position, item in enumerate(response.get("output") or ()):
        if not isinstance(item, dict):
            continue
        for part in item.get("content") or ():
            text = part.get("text") if isinstance(part, dict) else None
            if item.get("type") == "reasoning" and isinstance(text, str):
                tally.output_chars += len(text)  # generated, yet no part of the answer
            elif isinstance(part, dict):
                _count(tally, part.get("refusal") if part.get("type") == "refusal" else text)
        arguments = item.get("arguments") or item.get("input")
        if isinstance(arguments, str):
            tally.output_chars += len(arguments)
        count_call_name(tally, item)
        keep_item_call(tally, position, item)
