"""Reading a client request: only what the router itself needs, checked with clear errors.

The rest of the body is the backend's business and passes through untouched.
"""

from __future__ import annotations

import logging
import re
import traceback
from typing import Any

import orjson

from router import vllm_fields
from router.chat_checks import check_choices, check_tool_calls
from router.content_checks import TEXT_OR_BLOCKS, check_messages_content, check_responses_input
from router.echoed_fields import check_echoed
from router.errors import BadRequest
from router.field_refusals import (
    below_minimum,
    empty_array,
    empty_string,
    missing,
    wrong_type,
)
from router.record import Api, new_request_id
from router.request_size import OUTPUT_LIMITS
from router.scoring import echo_asked
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


def validate(api: Api, body: dict[str, Any], *, counting: bool = False) -> None:
    """Check the fields the router reads; raise `BadRequest` naming the field. `counting`:
    the body of a count, checked as its turn's but for what a count may leave out: the
    `input` of `/v1/responses/input_tokens` may be empty, and `/v1/messages/count_tokens`
    takes no `max_tokens`."""
    _validate_model(body)
    _validate_tools(api, body)
    _validate_stream(api, body)
    _validate_limits(api, body)
    if api in ("chat", "completions"):
        check_choices(body.get("n"))
    store = body.get("store")
    if api in ("chat", "responses") and store is not None and not isinstance(store, bool):
        # A string "false" would be remembered as stored and pin the next turn's route
        raise wrong_type(store, "store", "a boolean")
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise wrong_type(options, "stream_options", "an object")
    constraint = body.get(vllm_fields.FIELD)
    if api != "messages" and constraint is not None and not isinstance(constraint, dict):
        # the plan routes by it; vLLM 0.32 calls `.get` on it, its 500 a 502 here
        raise wrong_type(constraint, vllm_fields.FIELD, "an object")
    if api == "chat":
        check_tool_calls(_validate_messages(body.get("messages")))
    elif api == "completions":
        _validate_prompt(body.get("prompt"))
    elif api == "messages":
        _validate_anthropic(body, counting)
    elif api == "responses":
        _validate_responses(body, counting)


def _validate_stream(api: Api, body: dict[str, Any]) -> None:
    """OpenAI's APIs take `"stream": null` as not streaming (openai-python types it
    `Optional[Literal[False]]`; vLLM's `Optional[bool]` too); Anthropic's takes a boolean."""
    if "stream" not in body or isinstance(body["stream"], bool):
        return
    if body["stream"] is None and api != "messages":
        return
    raise wrong_type(body["stream"], "stream", "a boolean")


def _validate_limits(api: Api, body: dict[str, Any]) -> None:
    """Each output limit the API reads (`request_size.OUTPUT_LIMITS`) must be an integer of
    at least its least (`_least`), the error naming it: a bad `max_completion_tokens` was
    called `max_tokens` (found in review), and a stray chat field on a Messages body, which
    the router neither reads nor translates, was refused (found in re-review).
    `max_output_tokens` is Responses' own (`_validate_responses`)."""
    if api == "responses":
        return
    for field in OUTPUT_LIMITS[api]:
        _validate_limit(body.get(field), field, _least(api, body))


def _least(api: Api, body: dict[str, Any]) -> int:
    """The least output limit the router takes: 1, as OpenAI and vLLM take for chat, and
    Anthropic for Messages; on completions 0 where the body asks for `echo` as vLLM reads it
    (`router.scoring.echo_asked`: `echo: 1` too; `max_tokens: 0` then asks for the prompt
    echoed, with its log probabilities, and nothing written, which vLLM serves, its
    `echo_without_generation`), else 1: vLLM refuses a 0 without `echo` in
    its own words ("max_tokens must be at least 1, got 0."), which reached the client with
    a null code. Responses' is 1: OpenAI's floor of 16 output tokens is its models', which
    vLLM does not share, so its own 400 says it, passed on, when a request asking fewer
    reaches it; the router's check is of what it needs."""
    return 0 if api == "completions" and echo_asked(body) else 1


def _validate_limit(value: Any, field: str, least: int) -> None:
    """An output limit: an integer (a bool is none: JSON tells them apart), then at least
    `least`, each refused in OpenAI's words (`integer_below_min_value`)."""
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise wrong_type(value, field, "an integer")
    if value < least:
        raise below_minimum(value, field, least)


def _validate_model(body: dict[str, Any]) -> None:
    """`model`: a string, not empty; each refusal OpenAI's (`router.field_refusals`)."""
    model = body.get("model")
    if model is None:
        raise missing("model")
    if not isinstance(model, str):
        raise wrong_type(model, "model", "a string")
    if not model:
        raise empty_string("model")


def _validate_prompt(prompt: Any) -> None:
    """Completions' `prompt`: a string or an array (of strings, of token ids, of arrays of
    them: the backend reads which), as OpenAI's API reference lists them."""
    if prompt is None:
        raise missing("prompt")
    if not isinstance(prompt, str | list):
        expected = "one of a string, array of strings, array of integers, or array of arrays"
        raise wrong_type(prompt, "prompt", f"{expected} of integers")


def _validate_tools(api: Api, body: dict[str, Any]) -> None:
    """`tools` is an array of objects, a refusal naming the element that is not, as OpenAI's
    does (`tools[0]`); Responses calls them "tools" in its words, chat "objects". An empty
    one is the backend's to answer: OpenAI's chat refuses it (`empty_array`), and recent
    vLLM, but agents send it and servers that take it (Ollama, older vLLM) serve it, and the
    router reads nothing in it; a translated request's is left out of its chat body."""
    tools = body.get("tools")
    if tools is None:
        return
    if not isinstance(tools, list):
        said = "an array of tools" if api == "responses" else "an array of objects"
        raise wrong_type(tools, "tools", said)
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise wrong_type(tool, f"tools[{index}]", "an object")


def _validate_anthropic(body: dict[str, Any], counting: bool) -> None:
    """Anthropic requires `max_tokens`, but not of a count (`counting`: its count_tokens
    takes none); content is a string or an array of blocks."""
    _validate_anthropic_shapes(body)
    if body.get("max_tokens") is None and not counting:
        raise missing("max_tokens")
    if body.get(vllm_fields.FIELD) is not None:  # dropped by translation, the text free
        raise BadRequest(vllm_fields.NOT_ON_MESSAGES, param=vllm_fields.FIELD)


def _validate_anthropic_shapes(body: dict[str, Any]) -> None:
    """What the Messages translation reads: messages, their blocks, system, tool_choice."""
    _messages_array(body.get("messages"))
    check_messages_content(body)  # each message, its role and blocks: one pass
    system = body.get("system")
    if system is not None and not isinstance(system, str | list):
        raise wrong_type(system, "system", TEXT_OR_BLOCKS)
    choice = body.get("tool_choice")
    if choice is None:
        return
    if not isinstance(choice, dict):
        raise wrong_type(choice, "tool_choice", "an object")
    if choice.get("type") is None:
        raise missing("tool_choice.type")
    if not isinstance(choice["type"], str):
        raise wrong_type(choice["type"], "tool_choice.type", "a string")


def _validate_responses(body: dict[str, Any], counting: bool) -> None:
    """`counting`: an empty `input` is a count of the rest (OpenAI's count makes every field
    optional; `router.api.responses_count` gives an absent one as `[]`)."""
    items = body.get("input")
    if not (counting and items == []):
        items = _validate_input(items)
    if isinstance(items, list) and items and only_own_reasoning(items):  # none is sent to a backend
        raise BadRequest(  # (`native_responses`)
            "'input' holds only reasoning items the router made, or references to them"
            f" (ids starting {OWN_REASONING!r}), which are not sent to a backend: give it"
            " a message",
            param="input",
        )
    _validate_limit(body.get("max_output_tokens"), "max_output_tokens", _least("responses", body))
    background = body.get("background")
    if background is not None and not isinstance(background, bool):
        # "false" read as true was refused as asking for a background run
        raise wrong_type(background, "background", "a boolean")
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise wrong_type(instructions, "instructions", "a string")
    _validate_conversation(body.get("conversation"))
    check_echoed(body)  # what the Response echoes, as OpenAI checks it


def _validate_conversation(conversation: Any) -> None:
    """Responses' `conversation`: its id, or an object holding it (`{"id": "conv_…"}`), as
    openai-python types it. `5` was read as naming a stored conversation, and its count
    answered 200 where a field of the wrong kind is a 400 (found in review)."""
    if conversation is None or isinstance(conversation, str):
        return
    if not isinstance(conversation, dict):
        raise wrong_type(conversation, "conversation", "one of a string or object")
    named = conversation.get("id")
    if named is None:
        raise missing("conversation.id")
    if not isinstance(named, str):
        raise wrong_type(named, "conversation.id", "a string")


def _validate_input(items: Any) -> str | list[Any]:
    """Responses' `input`: a string or an array of objects, not empty (the router has
    nothing to send without it), each item's `content` a string or an array; each refusal
    OpenAI's (`router.field_refusals`)."""
    if items is None:
        raise missing("input")
    if not isinstance(items, str | list):
        raise wrong_type(items, "input", "one of a string or array of input items")
    if items == "":
        raise empty_string("input")
    if isinstance(items, list):
        _validate_items(items, "input", roles=False)
        check_responses_input(items)  # item and part types, roles, text
    return items


def _validate_messages(messages: Any) -> list[dict[str, Any]]:
    """`messages` itself: a non-empty array of objects with a string role, each content a
    string, an array of parts or null; each refusal OpenAI's (`router.field_refusals`)."""
    items = _messages_array(messages)
    _validate_items(items, "messages", roles=True)
    return items


def _messages_array(messages: Any) -> list[Any]:
    """`messages`, present, an array, not empty."""
    if messages is None:
        raise missing("messages")
    if not isinstance(messages, list):
        raise wrong_type(messages, "messages", "an array of objects")
    if not messages:
        raise empty_array("messages")
    return messages


def _validate_items(items: list[Any], field: str, *, roles: bool) -> None:
    """The items of `messages` (each with a string `role`) or `input`: at least one, each an
    object whose `content`, if any, is a string or an array."""
    if not items:
        raise empty_array(field)
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise wrong_type(item, f"{field}[{index}]", "an object")
        role = item.get("role")
        if roles and not isinstance(role, str):
            where = f"{field}[{index}].role"
            raise missing(where) if role is None else wrong_type(role, where, "a string")
        content = item.get("content")
        if content is not None and not isinstance(content, str | list):
            raise wrong_type(content, f"{field}[{index}].content", TEXT_OR_BLOCKS)


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
