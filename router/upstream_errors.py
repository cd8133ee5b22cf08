"""Turning an upstream HTTP error reply into a typed `UpstreamError`.

vLLM answers with `{"error": {"message", "type", "param", "code": 400}}` (integer code),
OpenAI with string codes, Anthropic with `{"type": "error", "error": {...}}`; SGLang, and
vLLM before 0.10.1, with the same fields flat (`{"object": "error", "message", "type",
"param", "code": 400}`), TGI with `{"error": "<message>", "error_type": "validation"}`.

The context length error is recognised the way clients and litellm do it, by lower-cased
substrings of its message, type or code (`_CONTEXT_MARKERS`, see FACTS.md), in the words of:
- OpenAI: code `context_length_exceeded`, "This model's maximum context length is ...";
- vLLM: "maximum context length" (the prompt alone), and two more that a backend with a
  larger window would serve: an output limit over its window, refused whatever the prompt
  ("max_completion_tokens=32000 cannot be greater than max_model_len=512", 0.32;
  "max_tokens=600 cannot be greater than max_model_len=max_total_tokens=512" in some
  earlier builds), and, in earlier versions, prompt plus output over it ("You passed 900
  input tokens and requested 200 output tokens. However, the model's context length is only
  1024 tokens, ...");
- SGLang: "The input (N tokens) is longer than the model's context length (M tokens)." and,
  prompt plus output, "Requested token count exceeds the model's maximum context length of
  M tokens. You requested a total of ...";
- llama.cpp's server: type `exceed_context_size_error`, "request (N tokens) exceeds the
  available context size (M tokens), try increasing it" (older: "the request exceeds the
  available context size, ...");
- TGI, a 422: "Input validation error: `inputs` tokens + `max_new_tokens` must be <= M.
  Given: ..." (prompt plus output) or "`inputs` must have less than M tokens. Given: N";
- Anthropic: "prompt is too long: N tokens > M maximum" and, prompt plus output, "input
  length and `max_tokens` exceed context limit: N + K > M, ...";
- OpenAI, an output limit over the model's own cap, whatever the prompt ("max_tokens is too
  large: 32000. This model supports at most 16384 completion tokens, whereas you provided
  32000.", param `max_tokens`, code `invalid_value`: gpt-4o's, charmbracelet/catwalk#41),
  and SGLang, one over its window ("max_completion_tokens is too large: N.This model
  supports at most M completion tokens."), and Anthropic's ("max_tokens: 128000 > 64000,
  which is the maximum allowed number of output tokens for claude-…"): a backend with more
  room serves it (opencode and Claude Code ask 32000 on every request);
- Ollama: "prompt too long; exceeded max context length by N tokens"; LM Studio: "tokens to
  keep from the initial prompt is greater than the context length".
Prompt plus output over the window is a `ContextTooLong` naming the prompt, as vLLM's older
wording has always been read; only a refusal naming an output limit is `OutputTooLong`.

An error sent in-band, after the 200 (`in_band`), has no HTTP status: it is read from the
error's own names, which every client API's error event then carries on (a client's 4xx,
such as vLLM's refusal of a structured-output constraint in its stream, is tried elsewhere
but told as that 4xx when nothing answers: `RefusedInBand`); one with no names
at all (TGI's streamed `{"error": "<message>"}`) by its words, when they say context length,
and one named only by the generic `server_error` (any 5xx: a Responses event's `code`, an
OpenAI-style error's `type` with no code) by its words too, when they say the server is busy
(an overload, no failure for the breaker).
What makes a 200 reply a failure is `router.reply_checks`'.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from http import HTTPStatus
from typing import Any

import orjson

from evals.redaction import cut, head, masked_end, wire_name
from router.attempt_errors import (
    ContextTooLong,
    OutputCapped,
    OutputTooLong,
    Overloaded,
    RateLimited,
    RefusedInBand,
    Rejected,
    ServerError,
    UpstreamError,
    WireError,
)
from router.backend_refused import REFUSAL_STATUSES, BackendRefused
from router.cut_error_body import cut_fields
from router.error_fields import error_fields
from router.retry_after import retry_after

_CONTEXT_MARKERS = (  # lower-cased, each one server's own words (module docstring)
    "maximum context length",
    "context_length_exceeded",
    "prompt is too long",
    "input is too long",
    "cannot be greater than max_model_len",
    "context length is only",
    "is longer than the model's context length",  # SGLang
    "exceed_context_size_error",  # llama.cpp's type, whatever its message says
    "exceeds the available context size",  # llama.cpp
    "`inputs` tokens + `max_new_tokens` must be <=",  # TGI
    "`inputs` must have less than",  # TGI
    "input length and `max_tokens` exceed context limit",  # Anthropic
    "exceeded max context length",  # Ollama
    "tokens to keep from the initial prompt is greater than the context length",  # LM Studio
)
# An output limit over the model's own cap, read only where a message begins with it (OpenAI,
# SGLang, Anthropic): matched anywhere, an echo of the client's text (litellm's "Invalid
# Message passed in {...}", OpenAI's "Invalid value: '...'") made a client's mistake a
# detour that asked every backend (found in review).
_OUTPUT_CAP = re.compile(
    r"\s*(?:max_tokens is too large:|max_completion_tokens is too large:"
    r"|max_tokens: \d+ > \d+, which is the maximum allowed number of output tokens)",
    re.IGNORECASE,
)
# A message reporting a body that failed validation quotes what it refused (pydantic's
# "1 validation error: {... 'input': '<the client's text>'}" from vLLM, SGLang and FastAPI
# servers; serde's "Failed to deserialize ... invalid type: string \"...\"" from TGI): the
# words in it are the client's, and a prompt about a context error made a client's mistake
# a fallback, or `context_length_exceeded` (found in review).
_QUOTES_INPUT = re.compile(r"\s*(?:\d+ validation errors?\b|failed to deserialize)", re.I)
# Statuses a context-length refusal comes with: 413 a request too large, 422 TGI's
# validation errors.
_CONTEXT_STATUSES = (400, 413, 422)
# The fields vLLM names when an output limit is over its window: the client's error names
# the one it set, not `messages`.
_OUTPUT_LIMITS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
_NAMED_LIMIT = re.compile(  # "max_tokens=600 cannot be …", "… (parameter=max_tokens, …)",
    # "max_completion_tokens is too large: 600." (SGLang's, and OpenAI's with no `param`)
    r"(?:^|\(parameter=)(max_tokens|max_completion_tokens|max_output_tokens)"
    r"(?:=\d+ cannot be greater than|,| is too large:|: \d+ > \d+, which is the maximum)"
)


# How much of an error reply is read: a real one is a few hundred bytes; a megabyte of
# strings, each cleaned of secrets, held the event loop for seconds (found in review).
MAX_ERROR_BYTES = 64 * 1024
# How much of an error reply that is no JSON object becomes its message (an HTML page).
_SHOWN_CHARS = 500


def parse_body(
    raw: bytes, secrets: Collection[str] = (), truncated: bool = False
) -> dict[str, Any]:
    """The reply as an object; one that is not becomes its message, cleaned of `secrets`
    before it is cut: a key the cut went through kept its head (found in review). One
    `truncated` (read to `MAX_ERROR_BYTES` only) is read for its error's own fields
    (`cut_fields`): whole, the JSON text became the message, and the upstream's names
    were lost (found in review). When none are found, its text ends in `masked_end`, as
    the message `cut_fields` reads: a reply of other words (FastAPI's `detail`, a page)
    that cleaning shortened under the 500 characters shown showed the head of the key
    the read went through (found in re-review)."""
    try:
        data = orjson.loads(raw) if raw else {}
    except orjson.JSONDecodeError:
        text = raw.decode(errors="replace")
        fields = cut_fields(text) if truncated else None
        if fields is not None:
            return {"error": fields}
        return {"error": {"message": _shown(text, truncated, secrets)}}
    if isinstance(data, dict):
        return data
    # Parsed whole, a value was not cut (white space after it was): its end is no key's head.
    return {"error": {"message": _shown(str(data), False, secrets)}}


def _shown(text: str, truncated: bool, secrets: Collection[str]) -> str:
    """What a reply that is no JSON object says, its end masked when the read was cut."""
    return cut(masked_end(text) if truncated else text, _SHOWN_CHARS, secrets)


def error_message(body: dict[str, Any]) -> str:
    error = body.get("error")
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or "upstream error")
    if isinstance(error, str):
        return error
    return str(body.get("message") or body.get("detail") or "upstream error")


def is_context_error(body: dict[str, Any], by_words: bool = True) -> bool:
    """`by_words` False: by the error's names only, not its message (a reply cut short,
    whose message may be the client's prompt quoted, the words saying what was quoted)."""
    fields = error_fields(body)
    if by_words and is_output_cap(str(fields.get("message") or "")):
        return True
    if not by_words or _QUOTES_INPUT.match(str(fields.get("message") or "")):
        fields = {key: value for key, value in fields.items() if key != "message"}
    text = orjson.dumps(fields).decode().lower()
    return any(marker in text for marker in _CONTEXT_MARKERS)


def is_output_cap(message: str) -> bool:
    """Whether an error's message begins as a model's refusal of an output limit over its
    own cap ("max_tokens is too large: 32000. This model supports at most 16384 ...")."""
    return _OUTPUT_CAP.match(message) is not None


def classify_error(
    status: int,
    raw: bytes,
    headers: Any,
    backend: str,
    names_stored_state: bool = False,
    secrets: Collection[str] = (),
    truncated: bool = False,
) -> UpstreamError:
    """`names_stored_state`: the request refers to something the server stored for the
    client (a Responses `previous_response_id`); a 404 then says the client's reference is
    stale, not that the backend is misconfigured. `secrets`: the backend's
    (`Backend.secret_values`), which the error's text and body are cleaned of.
    `truncated`: `raw` is the head of a longer reply (`parse_body`), a context error then
    only by its names: the words of a cut message may be the client's (found in review).
    The backend's status is kept in `upstream_status` when the client's differs (a 500 is
    a 502 to the client): the attempt's record says what the backend said."""
    body = parse_body(raw, secrets, truncated)
    error = _typed(status, body, headers, backend, names_stored_state, secrets, truncated)
    if error.upstream_status is None and error.status != status:
        error.upstream_status = status  # the attempt's record says what the backend said
    return error


def _typed(
    status: int,
    body: dict[str, Any],
    headers: Any,
    backend: str,
    names_stored_state: bool,
    secrets: Collection[str],
    truncated: bool,
) -> UpstreamError:
    message = error_message(body)
    wait = retry_after(headers)
    if status == 429:
        return RateLimited(message, backend=backend, retry_after=wait, secrets=secrets)
    if status in (503, 529):  # 529: Anthropic's overloaded_error
        return Overloaded(message, backend=backend, retry_after=wait, secrets=secrets)
    if status >= 500:
        return ServerError(message, backend=backend, secrets=secrets)
    if status in _CONTEXT_STATUSES and is_context_error(body, by_words=not truncated):
        return _too_long(message, backend, body, secrets)
    if status == 408:
        return ServerError(message, backend=backend, secrets=secrets)
    if status in REFUSAL_STATUSES and not (status == 404 and names_stored_state):
        return BackendRefused(backend, status)
    upstream = _openai_shaped(body, status)
    return Rejected(message, backend=backend, status=status, upstream=upstream, secrets=secrets)


def in_band(api: str, error: Any, backend: str, secrets: Collection[str] = ()) -> UpstreamError:
    """An error event from the upstream's stream (`error` its error object), typed as the
    same error over HTTP would be, with its own names kept in `wire` for the client (those
    that are names and hold no secret: `wire_name`); its message cleaned of `secrets` as
    `classify_error`'s."""
    body = {"error": error}
    fields = error_fields(body)
    kind, code = fields.get("type"), fields.get("code")
    message = str(fields.get("message") or kind or "upstream error mid-stream")
    # Cut as an error reply is read (`MAX_ERROR_BYTES`): a client's prompt quoted back in a
    # streamed error is no bound, and its cleaning held the event loop (found in review).
    # Cleaned from twice that before the cut, so that a key the cut goes through is whole;
    # that slice ends before a run of non-space it would go through (`head`).
    if len(message) > MAX_ERROR_BYTES:
        message = cut(head(message, 2 * MAX_ERROR_BYTES), MAX_ERROR_BYTES, secrets)
    status = _in_band_status(kind, code)
    if status == 500 and _generic(kind, code) and _says_overloaded(message):
        status = 503  # a name any 5xx has: its words tell
    too_long = is_context_error(body)
    if kind is None and code is None and too_long:
        status = 400  # no names to go by (TGI's streamed validation error): its words say
    typed: UpstreamError
    if status == 429:
        typed = RateLimited(message, backend=backend, secrets=secrets)
    elif status in (503, 529):
        typed = Overloaded(message, backend=backend, secrets=secrets)
    elif status in _CONTEXT_STATUSES and too_long:
        typed = _too_long(message, backend, body, secrets)
    elif _clients(status):
        upstream = _openai_shaped(body, status)
        typed = RefusedInBand(
            message, backend=backend, status=status, upstream=upstream, secrets=secrets
        )
    else:
        typed = ServerError(message, backend=backend, secrets=secrets)
    typed.wire = WireError(api, wire_name(kind, secrets), wire_name(code, secrets))
    return typed


def _clients(status: int) -> bool:
    """Whether an in-band error's status is a client's 4xx, as the same status over HTTP
    would be (`_typed`): not a timeout, a rate limit or a status that answers the router's
    own key or model (`REFUSAL_STATUSES`). Still tried elsewhere (`RefusedInBand`), but told
    to the client as that 4xx when nothing else answers: vLLM 0.32 refuses a malformed
    structured-output constraint after a stream's 200, `code: 400`, and a client with no
    backend left got a 502 for its own mistake (found beside a live vLLM)."""
    return 400 <= status < 500 and status not in (408, 429, *REFUSAL_STATUSES)


# Status by an in-band error's own name: Anthropic's types, OpenAI's codes, vLLM's (an HTTP
# status phrase: `InternalServerError` in its chat errors, `Service Unavailable` in its
# Messages ones). Names are compared as `_plain` makes them, so spelling does not matter.
def _plain(name: str) -> str:
    """`Service Unavailable`, `ServiceUnavailableError`, `service_unavailable` → one key."""
    return "".join(c for c in name.lower() if c.isalnum()).removesuffix("error")


_NAMED_STATUS = {_plain(s.phrase): s.value for s in HTTPStatus if s >= 400} | {
    _plain(name): status
    for name, status in {
        "invalid_request_error": 400,
        "request_too_large": 413,
        "context_length_exceeded": 400,
        "rate_limit_error": 429,
        "rate_limit_exceeded": 429,
        "api_error": 500,
        "server_error": 500,
        "server_is_overloaded": 503,
        "overloaded_error": 529,
        "timeout_error": 504,
    }.items()
}


# A busy server's words, lower-cased: vLLM's queue-full "The engine is currently busy …",
# OpenAI's "The server is overloaded or not ready yet.", Anthropic's "Overloaded".
OVERLOAD_WORDS = ("currently busy", "overloaded")
_GENERIC = _plain("server_error")  # the `code` of any 5xx in a Responses error event


def _generic(kind: Any, code: Any) -> bool:
    """Whether the name an in-band error's status was read from is the generic
    `server_error`: Responses' event `code` for any 5xx, or an OpenAI-style error's `type`
    when it has no code (`{"type": "server_error", "code": null, "message": "Overloaded"}`,
    an overload in a chat stream: read by its code alone, it was a 502 `api_error` where the
    same over HTTP is a 503 `overloaded_error`, which Claude Code waits out, found in
    review)."""
    named = kind if code is None else code
    return isinstance(named, str) and _plain(named) == _GENERIC


def _says_overloaded(message: str) -> bool:
    """Whether an error's message says the server is busy: read where its name does not say
    (Responses' generic `server_error`; litellm's 500 for Anthropic's event, which keeps
    its message alone, reads the same words: `litellm_errors._ANTHROPIC_IN_BAND`)."""
    text = message.lower()
    return any(words in text for words in OVERLOAD_WORDS)


def _in_band_status(kind: Any, code: Any) -> int:
    """vLLM's integer `code` is the status; else the code's or the type's name; else 500."""
    if isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600:
        return code
    for name in (code, kind):
        if isinstance(name, str) and _plain(name) in _NAMED_STATUS:
            return _NAMED_STATUS[_plain(name)]
    return 500


def _too_long(
    message: str, backend: str, body: dict[str, Any], secrets: Collection[str] = ()
) -> ContextTooLong:
    """A context-length refusal; one that names the output limit is `OutputTooLong`, and one
    of a model's own output cap `OutputCapped`, keeping the backend's code (a name, not
    vLLM's or SGLang's status number)."""
    param = _context_param(body)
    if is_output_cap(message):
        code = wire_name(error_fields(body).get("code"), secrets)
        return OutputCapped(message, backend=backend, param=param, code=code, secrets=secrets)
    kind = OutputTooLong if param in _OUTPUT_LIMITS else ContextTooLong
    return kind(message, backend=backend, param=param, secrets=secrets)


def _context_param(body: dict[str, Any]) -> str:
    """The field a context-length refusal names: its `param`, else the output limit its
    message begins with or names (vLLM's Messages error has no `param`, nor had its older
    "max_tokens=8192 cannot be greater than max_model_len=..."), else the prompt."""
    param = error_fields(body).get("param")
    if param in _OUTPUT_LIMITS:
        return str(param)
    if param is not None:  # a field named, not an output limit: the prompt's, whatever it says
        return "messages"
    named = _NAMED_LIMIT.search(error_message(body))
    return named.group(1) if named else "messages"


def _openai_shaped(body: dict[str, Any], status: int) -> dict[str, Any]:
    """Keep the upstream's error but make sure OpenAI clients can read it."""
    error = body.get("error")
    if isinstance(error, dict) and "message" in error:
        if isinstance(error.get("code"), int):  # vLLM puts the HTTP status here
            return {"error": {**error, "code": None}}
        return body
    return {
        "error": {
            "message": error_message(body),
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
