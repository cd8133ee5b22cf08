"""Reading a client request: only what the router itself needs, checked with clear errors.

The rest of the body is the backend's business and passes through untouched.
"""

from __future__ import annotations

import logging
import re
import traceback
from typing import Any

import orjson

from router.echoed_fields import check_echoed
from router.errors import BadRequest, InvalidType
from router.record import Api, new_request_id
from router.request_size import OUTPUT_LIMITS
from router.translate.native_responses import only_own_reasoning
from router.translate.responses_items import OWN_REASONING
from router.translate.view import chat_view

log = logging.getLogger("smf_router")

_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
# Objects and arrays nested in one another, the body itself level 1. orjson reads up to 1024
# levels but writes no more than 254 ("Recursion limit reached"), and the router writes what
# it reads: the body it forwards, a translated body that puts the client's values a level or
# two deeper, the token estimate of `tools`. A body between the two limits passed every check
# and then failed, blamed on a backend. 128 (serde_json's default limit too) leaves room for
# that wrapping; no real schema, tool argument or metadata nests anywhere near it.
MAX_JSON_DEPTH = 128


def parse_json(raw: bytes) -> dict[str, Any]:
    if not raw:
        raise BadRequest("the request body is empty; send a JSON object")
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"the request body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    if raw.count(b"{") + raw.count(b"[") > MAX_JSON_DEPTH and not _writable(body):
        _check_depth(body)  # the walk that names the field, on the rare body too deep
    return body


_WRITER_LIMIT = 254  # orjson writes no deeper (`TypeError`), in C


def _writable(body: dict[str, Any]) -> bool:
    """Whether `body` nests at most `MAX_JSON_DEPTH` levels, asked of orjson's writer: wrapped
    in the levels the limit leaves, it writes only a body no deeper than the limit. In C, a
    quarter of the Python walk's time (0.04 against 0.14 ms for a 137 KB agent body), which
    every agent request with tools paid."""
    wrapped: Any = body
    for _ in range(_WRITER_LIMIT - MAX_JSON_DEPTH):
        wrapped = [wrapped]
    try:
        orjson.dumps(wrapped)
    except TypeError:
        return False
    return True


def _check_depth(body: dict[str, Any]) -> None:
    """Raise `BadRequest` naming the top-level field nested deeper than `MAX_JSON_DEPTH`.
    Level by level, without recursion: the point is a body too deep to recurse into."""
    for key, value in body.items():
        if type(value) is not dict and type(value) is not list:
            continue
        level = [value]  # the containers of level 2
        for _ in range(MAX_JSON_DEPTH - 1):
            level = [
                child
                for node in level
                for child in (node.values() if type(node) is dict else node)
                if type(child) is dict or type(child) is list
            ]
            if not level:
                break
        else:  # containers at level MAX_JSON_DEPTH + 1
            raise BadRequest(
                f"'{key}' is nested too deeply: the request body may nest JSON objects and "
                f"arrays at most {MAX_JSON_DEPTH} levels deep",
                param=key,
            )


def validate(api: Api, body: dict[str, Any]) -> None:
    """Check the fields the router reads; raise `BadRequest` naming the field."""
    _validate_model(body)
    _validate_tools(api, body)
    _validate_stream(api, body)
    _validate_limits(api, body)
    store = body.get("store")
    if api in ("chat", "responses") and store is not None and not isinstance(store, bool):
        # A string "false" would be remembered as stored and pin the next turn's route
        raise _wrong_type(store, "store", "a boolean")
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise _wrong_type(options, "stream_options", "an object")
    if api == "chat":
        _validate_messages(body.get("messages"))
    elif api == "completions" and not isinstance(body.get("prompt"), str | list):
        raise BadRequest("'prompt' is required and must be a string or a list", param="prompt")
    elif api == "messages":
        _validate_anthropic(body)
    elif api == "responses":
        _validate_responses(body)


def _validate_stream(api: Api, body: dict[str, Any]) -> None:
    """OpenAI's APIs take `"stream": null` as not streaming (openai-python types it
    `Optional[Literal[False]]`; vLLM's `Optional[bool]` too); Anthropic's takes a boolean."""
    if "stream" not in body or isinstance(body["stream"], bool):
        return
    if body["stream"] is None and api != "messages":
        return
    raise _wrong_type(body["stream"], "stream", "a boolean")


def _validate_limits(api: Api, body: dict[str, Any]) -> None:
    """Each output limit the API reads (`request_size.OUTPUT_LIMITS`) must be a positive
    integer, the error naming it: a bad `max_completion_tokens` was called `max_tokens`
    (found in review), and a stray chat field on a Messages body, which the router neither
    reads nor translates, was refused (found in re-review). `max_output_tokens` is
    Responses' own (`_validate_responses`)."""
    if api == "responses":
        return
    for field in OUTPUT_LIMITS[api]:
        _validate_limit(body.get(field), field)


def _validate_limit(value: Any, field: str) -> None:
    """An output limit: an integer (a bool is none: JSON tells them apart), then positive."""
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise _wrong_type(value, field, "an integer")
    if value < 1:
        raise BadRequest(f"'{field}' must be a positive integer", param=field)


# A JSON value's kind as OpenAI's 400s name it ("but got a string instead"); a bool first:
# it is an int to Python
_KINDS: tuple[tuple[type, str], ...] = (
    *((bool, "a boolean"), (int, "an integer"), (float, "a decimal number")),
    *((str, "a string"), (list, "an array"), (dict, "an object")),
)


def _wrong_type(value: Any, param: str, expected: str) -> InvalidType:
    """OpenAI's refusal of a value of the wrong JSON kind, in its words ("Invalid type for
    'max_tokens': expected an integer, but got a string instead.", diffbot/code-gpt-docs#273;
    `tools[0]`, `store`, `instructions`, `max_output_tokens` alike), with its code
    `invalid_type`: the router's own words came with a null code."""
    got = next((said for kind, said in _KINDS if isinstance(value, kind)), "null")
    message = f"Invalid type for '{param}': expected {expected}, but got {got} instead."
    return InvalidType(message, param=param)


def validate_token_count(body: dict[str, Any]) -> None:
    """`/v1/messages/count_tokens` takes a Messages body without `max_tokens`."""
    _validate_model(body)
    _validate_tools("messages", body)
    _validate_anthropic_shapes(body)


def _validate_model(body: dict[str, Any]) -> None:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("'model' is required and must be a non-empty string", param="model")


def _validate_tools(api: Api, body: dict[str, Any]) -> None:
    """`tools` is an array of objects, a refusal naming the element that is not, as OpenAI's
    does (`tools[0]`); Responses calls them "tools" in its words, chat "objects"."""
    tools = body.get("tools")
    if tools is None:
        return
    if not isinstance(tools, list):
        said = "an array of tools" if api == "responses" else "an array of objects"
        raise _wrong_type(tools, "tools", said)
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise _wrong_type(tool, f"tools[{index}]", "an object")


def _validate_anthropic(body: dict[str, Any]) -> None:
    """Anthropic requires `max_tokens`; content is a string or an array of blocks."""
    _validate_anthropic_shapes(body)
    if body.get("max_tokens") is None:
        raise BadRequest("'max_tokens' is required", param="max_tokens")


def _validate_anthropic_shapes(body: dict[str, Any]) -> None:
    """What the Messages translation reads: messages, their blocks, system, tool_choice."""
    messages = _validate_messages(body.get("messages"))
    for index, message in enumerate(messages):  # every request of an agent's long history:
        content = message.get("content")  # plain checks here, the message only on failure
        if type(content) is list:
            for block in content:
                if type(block) is not dict or (
                    block.get("type") == "image" and type(block.get("source")) is not dict
                ):
                    _bad_block(content, f"messages[{index}].content")
    system = body.get("system")
    if system is not None and not isinstance(system, str | list):
        raise BadRequest("'system' must be a string or an array of blocks", param="system")
    choice = body.get("tool_choice")
    if choice is not None and not (
        isinstance(choice, dict) and isinstance(choice.get("type"), str)
    ):
        raise BadRequest(
            "'tool_choice' must be an object with a string 'type'", param="tool_choice"
        )


def _bad_block(content: list[Any], where: str) -> None:
    """Raise for the first block of `content` that is not an object or has an image source
    that is not one, naming it."""
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            raise BadRequest(f"'{where}[{index}]' must be an object", param=f"{where}[{index}]")
        if block.get("type") == "image" and not isinstance(block.get("source"), dict):
            param = f"{where}[{index}].source"
            raise BadRequest(f"'{param}' must be an object", param=param)


def _validate_responses(body: dict[str, Any]) -> None:
    items = body.get("input")
    if not isinstance(items, str | list) or not items:
        raise BadRequest("'input' must be a non-empty string or array", param="input")
    if isinstance(items, list):
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise BadRequest("'input' items must be objects", param=f"input[{index}]")
            content = item.get("content")
            if content is not None and not isinstance(content, str | list):
                param = f"input[{index}].content"
                raise BadRequest(f"'{param}' must be a string or an array", param=param)
        if only_own_reasoning(items):  # none is sent to a backend (`native_responses`)
            raise BadRequest(
                "'input' holds only reasoning items the router made, or references to them"
                f" (ids starting {OWN_REASONING!r}), which are not sent to a backend: give it"
                " a message",
                param="input",
            )
    _validate_limit(body.get("max_output_tokens"), "max_output_tokens")
    background = body.get("background")
    if background is not None and not isinstance(background, bool):
        # "false" read as true was refused as asking for a background run
        raise _wrong_type(background, "background", "a boolean")
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise _wrong_type(instructions, "instructions", "a string")
    check_echoed(body)  # what the Response echoes, as OpenAI checks it


def _validate_messages(messages: Any) -> list[dict[str, Any]]:
    """`messages` itself, once known to be a non-empty array of objects with a role."""
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty array", param="messages")
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise BadRequest(f"'messages[{index}]' must be an object", param=f"messages[{index}]")
        if not isinstance(message.get("role"), str):
            raise BadRequest(
                f"'messages[{index}].role' must be a string", param=f"messages[{index}].role"
            )
        content = message.get("content")
        if content is not None and not isinstance(content, str | list):
            raise BadRequest(
                f"'messages[{index}].content' must be a string, an array of parts or null",
                param=f"messages[{index}].content",
            )
    return messages


def request_id(headers: Any) -> str:
    """The client's `x-request-id` when it looks like an id, else one of ours. It names the
    ledger row, the log line and the reply's header: a 20,000-character header went into
    all three."""
    given = headers.get("x-request-id")
    return given if given and _REQUEST_ID.fullmatch(given) else new_request_id()


def identified(headers: dict[str, str]) -> dict[str, str]:
    """`headers` naming the request's id (`request_id`) once: the record, the span and the
    refusal each read it, and a new id made by each named one request three ways (a 500
    raised while planning answered an id no span held; found in review)."""
    return {**headers, "x-request-id": request_id(headers)}


def readable_view(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    """`chat_view(api, body)`, or a 400: validation checks the fields translation reads, and
    a shape it did not foresee is still the client's to fix, not a 500 (the log says which)."""
    try:
        return chat_view(api, body)
    except (TypeError, AttributeError, ValueError, KeyError) as exc:
        # the place, not the message: a message may quote the body
        where = traceback.extract_tb(exc.__traceback__)[-1]
        log.warning(
            "a %s body did not translate: %s at %s:%s",
            api,
            type(exc).__name__,
            where.filename,
            where.lineno,
        )
        raise BadRequest(
            f"the request does not have the shape of the {api} API ({type(exc).__name__})"
        ) from None


def with_usage_asked(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    """A streamed chat or completions `body` asking for the usage chunk: the ledger counts
    tokens from it. The client's own `include_usage` is kept apart (`Call.wants_usage`), so
    a client that did not ask is not sent the chunk."""
    options = body.get("stream_options") or {}
    if api not in ("chat", "completions") or options.get("include_usage"):
        return body
    return {**body, "stream_options": {**options, "include_usage": True}}
