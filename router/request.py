"""Reading a client request: only what the router itself needs, checked with clear errors.

The rest of the body is the backend's business and passes through untouched.
"""

from __future__ import annotations

import hashlib
import logging
import re
import traceback
from typing import Any

import orjson

from classifier.aider import without_reminder
from classifier.continue_cli import without_snapshot
from classifier.request import ask_content, first_ask
from router.errors import BadRequest
from router.record import Api, new_request_id
from router.request_size import OUTPUT_LIMITS
from router.stored_responses import conversation_of
from router.translate.native_responses import only_own_reasoning
from router.translate.responses_items import OWN_REASONING
from router.translate.view import chat_view
from router.translate.wire import TEXT_PARTS, content_text

log = logging.getLogger("smf_router")

_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
# Objects and arrays nested in one another, the body itself level 1. orjson reads up to 1024
# levels but writes no more than 254 ("Recursion limit reached"), and the router writes what
# it reads: the body it forwards, a translated body that puts the client's values a level or
# two deeper, the token estimate of `tools`. A body between the two limits passed every check
# and then failed, blamed on a backend. 128 (serde_json's default limit too) leaves room for
# that wrapping; no real schema, tool argument or metadata nests anywhere near it.
MAX_JSON_DEPTH = 128
KEY_CHARS = 2048  # of the system prompt and of the first ask, in a conversation key
# Clock text (`clockless`): an ISO 8601 date, with a time and zone or without; a date with
# a month's name (JavaScript's `toDateString`, "Saturday, December 5, 2026", "5 Dec 2026");
# M/D/YYYY; a time of day. Never next to a digit, a colon or a dot: "3:16", a port, a MAC or
# IPv6 address is none. No match is longer than `_CLOCK_SPAN`.
_TIME = (
    r"(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{1,9})?)?(?:\s?[AaPp]\.?[Mm]\b\.?)?"
    r"|\d:[0-5]\d(?::[0-5]\d)?\s?[AaPp]\.?[Mm]\b\.?"  # H:MM only with AM or PM
)
_DATE = r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6}\.?"
_NAMED = (
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]{0,6},? )?"
    rf"(?:{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}|\d{{1,2}} {_MONTH},? \d{{4}})"
)
_CLOCK = re.compile(
    rf"(?<![\d:.])(?:{_DATE}(?:[T ](?:{_TIME})(?:Z|[+-]\d\d(?::?\d\d)?)?)?"
    rf"|{_NAMED}|\d{{1,2}}/\d{{1,2}}/\d{{4}}|{_TIME})(?![\d:])"
)
_CLOCK_SPAN = 64  # the longest match is 40 characters
CLOCK = "<clock>"


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
    _validate_tools(body)
    _validate_stream(api, body)
    _validate_limits(api, body)
    store = body.get("store")
    if api in ("chat", "responses") and store is not None and not isinstance(store, bool):
        # A string "false" would be remembered as stored and pin the next turn's route
        raise BadRequest("'store' must be a boolean", param="store")
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise BadRequest("'stream_options' must be an object", param="stream_options")
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
    raise BadRequest("'stream' must be a boolean", param="stream")


def _validate_limits(api: Api, body: dict[str, Any]) -> None:
    """Each output limit the API reads (`request_size.OUTPUT_LIMITS`) must be a positive
    integer, the error naming it: a bad `max_completion_tokens` was called `max_tokens`
    (found in review), and a stray chat field on a Messages body, which the router neither
    reads nor translates, was refused (found in re-review). `max_output_tokens` is
    Responses' own (`_validate_responses`)."""
    if api == "responses":
        return
    for field in OUTPUT_LIMITS[api]:
        value = body.get(field)
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 1
        ):
            raise BadRequest(f"'{field}' must be a positive integer", param=field)


def validate_token_count(body: dict[str, Any]) -> None:
    """`/v1/messages/count_tokens` takes a Messages body without `max_tokens`."""
    _validate_model(body)
    _validate_tools(body)
    _validate_anthropic_shapes(body)


def _validate_model(body: dict[str, Any]) -> None:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("'model' is required and must be a non-empty string", param="model")


def _validate_tools(body: dict[str, Any]) -> None:
    tools = body.get("tools")
    if tools is not None and not (
        isinstance(tools, list) and all(isinstance(t, dict) for t in tools)
    ):
        raise BadRequest("'tools' must be an array of objects", param="tools")


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
    limit = body.get("max_output_tokens")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise BadRequest(
            "'max_output_tokens' must be a positive integer", param="max_output_tokens"
        )
    background = body.get("background")
    if background is not None and not isinstance(background, bool):
        # "false" read as true was refused as asking for a background run
        raise BadRequest("'background' must be a boolean", param="background")
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise BadRequest("'instructions' must be a string", param="instructions")


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


def conversation_key(
    body: dict[str, Any], headers: Any, caller: str, secret: bytes = b"", thread: str | None = None
) -> str:
    """A stable, non-reversible key for the conversation (never the text itself), keyed
    with `secret` so that a guess at a `user` or a prompt cannot be checked against it
    (`router.ledger.conversation_key`), and scoped by `caller` (the key's name): two callers
    sending one session id are two conversations, and neither pins the other's backend.

    A session id (Claude Code's header, `prompt_cache_key`) names one conversation, and so
    does `thread`, what a Responses turn names stored on the server (`server_thread`): such a
    turn sends only its new items, no first user message (a turn continuing a response the
    router knows takes that response's key instead: `router.stored_responses`). OpenAI's
    `user` names an end user, the same on every chat of theirs: it only tells apart one
    opening sent by two users, mixed with the system prompt and first user message. Taken as
    the key alone, one math chat pinned all that user's later chats, of any intent, to the
    cloud for the sliding TTL.

    The first user message is the one the classifier reads as the first ask
    (`classifier.request.first_ask`), else the first of all: an agent's own texts before it
    are the same in every session of the agent's, and Aider's example conversation made all
    of a user's Aider sessions one conversation, pinned to the cloud by any one's cloud turn
    (found in review). Its content is its user's words (`_users_words`): the first request's
    first ask is the later ones'. The system prompt is read without its clock text
    (`clockless`): an agent that writes the time into it keyed every turn apart."""
    digest = hashlib.blake2b(digest_size=8, key=secret)
    _hash_part(digest, caller)
    session = headers.get("x-claude-code-session-id") or body.get("prompt_cache_key")
    if session or thread:
        _hash_part(digest, f"session:{session}" if session else f"thread:{thread}")
        return digest.hexdigest()
    user = body.get("user")
    _hash_part(digest, f"user:{user}" if isinstance(user, str) else "")
    messages = body.get("messages")
    messages = messages if isinstance(messages, list) else []
    first: object = None
    for message in messages:  # the system prompt: what comes before the first user message
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role in ("system", "developer"):
            _hash_part(digest, clockless(without_snapshot(str(message.get("content")))))
        elif role == "user":
            first = first_ask(messages) or message
            break
    if isinstance(first, dict):  # as the classifier reads it, and the later requests hold it
        _hash_part(digest, str(_users_words(first, messages))[:KEY_CHARS])
    return digest.hexdigest()


def clockless(system: str) -> str:
    """The first `KEY_CHARS` of a system prompt, its dates and times (`_CLOCK`) each read as
    `CLOCK`: LangChain's react-agent template writes `datetime.now().isoformat()` into it on
    every model call, so each turn of one tool loop was a conversation of its own, and no pin
    held (found running it). Dates too: a session that crosses midnight stays one; two
    sessions still differ by their first ask. Only `KEY_CHARS + _CLOCK_SPAN` are read, so a
    clock text across the cut is masked whole, and a prompt without one keys as it always
    did (its first `KEY_CHARS` characters)."""
    return _CLOCK.sub(CLOCK, system[: KEY_CHARS + _CLOCK_SPAN])[:KEY_CHARS]


def _users_words(message: dict[str, Any], messages: list[Any]) -> object:
    """The content of the user message `message` of `messages` as its user wrote it, which
    the key hashes and the ledger keeps (`prompt_text`): the one the classifier reads
    (`classifier.request.ask_content`: without Aider's ask or context mode's reminder, the
    ask inside crush's title text), without the reminder of Aider's edit format after it
    (`classifier.aider.without_reminder`) and white space at the end (the cut leaves a blank
    line's break, the ask mode's empty reminder a blank line)."""
    content = ask_content(message, messages)
    return without_reminder(content).rstrip() if isinstance(content, str) else content


def server_thread(api: Api, body: dict[str, Any]) -> str | None:
    """What a Responses turn names stored on the server, for its conversation key: the
    conversation (the Conversations API's, the same on every turn), else the response it
    continues when the router does not know it (made before a restart, or forgotten): the
    turns after it continue responses it knows and take this key from them."""
    if api != "responses":
        return None
    conversation = conversation_of(body)
    if conversation:
        return f"conversation:{conversation}"
    previous = body.get("previous_response_id")
    return f"response:{previous}" if isinstance(previous, str) and previous else None


def _hash_part(digest: hashlib.blake2b, text: str) -> None:
    """One part of a key, length first: parts that run together could not be told apart
    (caller `a` with user `bc` against caller `ab` with user `c`)."""
    data = text.encode(errors="replace")
    digest.update(len(data).to_bytes(4, "big") + data)


def prompt_text(view: dict[str, Any]) -> str:
    """The prompt this request adds, for the ledger's texts table (`ledger.store_text`): the
    text of the latest user message of the request's chat view (the whole conversation on
    every turn would store an agent's history over and over), as its user wrote it
    (`_users_words`): crush's title text or Aider's reminders were stored as the prompt."""
    messages: list[Any] = view.get("messages") or []
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return content_text(_users_words(message, messages), "\n", TEXT_PARTS)
    return ""


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
