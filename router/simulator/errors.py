"""Error responses exactly as each real server shapes them.

- vLLM: `{"error": {"message", "type": "BadRequestError", "param", "code": 400}}` (integer
  code, class-like type); a body failing its pydantic model is `type: "Bad Request"`,
  `param: "body.<field>"`, message `1 validation error:\n  {…}`; its queue-full 503 is
  `type: "Service Unavailable"`, "The engine is currently busy …"; a bad API key is
  `{"error": "Unauthorized"}`.
- OpenAI (cloud): the same envelope with string codes (`context_length_exceeded`,
  `rate_limit_exceeded`, `model_not_found`) or null, and snake_case types.
- Anthropic: `{"type": "error", "error": {"type", "message"}}`. vLLM's own `/v1/messages`
  uses that envelope with vLLM's class names and messages (`BadRequestError`, …), except
  for a body that is not JSON or fails the request model: FastAPI's validation handler
  answers that before the endpoint runs, in the OpenAI-style `Bad Request` shape above.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Literal

import orjson

Flavor = Literal["vllm", "cloud", "anthropic"]
Kind = Literal[
    "bad_request",
    "validation",
    "not_found",
    "context_length",
    "max_tokens",
    "rate_limit",
    "server_error",
    "overloaded",
    "unauthorized",
]


@dataclass(frozen=True, slots=True)
class ApiError(Exception):
    """Raised anywhere in a handler; rendered in the flavor of the API that was called."""

    status: int
    kind: Kind
    message: str = ""
    param: str | None = None
    retry_after: float | None = None
    window: int = 0
    prompt_tokens: int = 0
    detail: str = ""  # vLLM's pydantic message for a "validation" error
    raw: bytes = b""  # the whole body, as another server words it (`servers.py`)
    names: tuple[str, str] | None = None  # its `type` and `code`, when not the flavor's


def validation_error(
    message: str, field: str, error_type: str, msg: str, given: Any, **ctx: object
) -> ApiError:
    """A body failing vLLM's request model: `message` for others, pydantic's words for vLLM."""
    return validation_errors(
        message, field, [validation_item(field, error_type, msg, given, **ctx)]
    )


def validation_item(
    field: str, error_type: str, msg: str, given: Any, **ctx: object
) -> dict[str, Any]:
    """One of pydantic's errors as vLLM's validation handler lists it."""
    item: dict[str, Any] = {"type": error_type, "loc": f"body.{field}", "msg": msg}
    item["input"] = _shown(given)
    if ctx:
        item["ctx"] = ctx
    return item


def validation_errors(
    message: str, field: str, items: list[dict[str, Any]], total: int | None = None
) -> ApiError:
    """A body failing vLLM's request model at `field` in several ways (a union's every
    branch: chat's `stop` is neither a string nor a short enough list), each listed. Its
    handler lists the first `MAX_REPORTED_ERRORS` and counts the rest; `total` is the count
    where `items` holds only those listed."""
    count = len(items) if total is None else total
    label = "error" if count == 1 else "errors"
    listed = "".join(f"\n  {item!r}" for item in items[:MAX_REPORTED_ERRORS])
    more = count - min(len(items), MAX_REPORTED_ERRORS)
    if more > 0:
        listed += f"\n  ...and {more} more errors"
    detail = f"{count} validation {label}:{listed}"
    return ApiError(400, "validation", message, field, detail=detail)


MAX_REPORTED_ERRORS = 10
"""The most errors vLLM 0.32's validation handler lists (`_MAX_REPORTED_ERRORS`)."""


def _shown(given: Any) -> str:
    """The `input` vLLM's validation handler echoes: containers described, the rest str()."""
    if isinstance(given, dict | list):
        return f"<{type(given).__name__} of {len(given)} items>"
    text = str(given)
    return text[:200] + "...[truncated]" if len(text) > 200 else text


# Headers a gateway that repeats its request names (`echo_credentials`): by these words.
_CREDENTIAL_WORDS = ("auth", "key", "token")
# The error each status of the `echo_credentials` faults stands for.
_ECHO_KINDS: dict[int, Kind] = {
    400: "bad_request",
    429: "rate_limit",
    503: "overloaded",
    529: "overloaded",
}
# Where `echo_credentials_long` and `_page` begin to repeat the key: its copies go on past
# character 500, where a client showing 500 characters cuts through one.
LONG_KEY_AT = 460


def echoed_credentials(headers: Mapping[str, str], path: str, query: str) -> str:
    """The message of a gateway that repeats what it was sent (the `echo_credentials`
    fault): the target with its query, the bare key of the Authorization (Bearer) or
    `x-api-key` header, as OpenAI's 401 quotes a key, and each credential header whole."""
    target = f"{path}?{query}" if query else path
    named = [f"{k}: {v}" for k, v in headers.items() if any(w in k for w in _CREDENTIAL_WORDS)]
    return (
        f"the gateway could not serve POST {target} with key {_bare_key(headers) or '(none)'} "
        f"({'; '.join(named) or 'no credential headers'})"
    )


def echoed_names(headers: Mapping[str, str]) -> tuple[str, str]:
    """The `type` and `code` of `echo_credentials_named`'s error: the bare key, and the
    value of the first other credential header (the key again when there is none)."""
    key = _bare_key(headers) or "(none)"
    others = [
        value
        for name, value in headers.items()
        if name not in ("authorization", "x-api-key") and any(w in name for w in _CREDENTIAL_WORDS)
    ]
    return key, others[0] if others else key


def _bare_key(headers: Mapping[str, str]) -> str:
    bearer = headers.get("authorization", "")
    return bearer[7:] if bearer.lower().startswith("bearer ") else headers.get("x-api-key", "")


def echo_error(name: str, status: int, echo: str, names: tuple[str, str]) -> ApiError:
    """The error of the `echo_credentials` fault `name` (`faults.ECHOES`) at `status`:
    `echo` the request's credentials in words (`echoed_credentials`), `names` the bare key
    and another credential (`echoed_names`)."""
    kind = _ECHO_KINDS.get(status, "server_error")
    if name == "echo_credentials_named":
        return ApiError(status, kind, "the gateway refused the request", names=names)
    if name in ("echo_credentials_long", "echo_credentials_page"):
        text = f"{echo}; it said: ".ljust(LONG_KEY_AT, ".") + f"{names[0]} " * 8
        page = text.encode() if name == "echo_credentials_page" else b""
        return ApiError(status, kind, text, raw=page)
    return ApiError(status, kind, echo)


def missing_model(voice: Flavor, model: str, served: str) -> ApiError:
    """The 404 for a model this server does not serve, in its own words."""
    if voice == "cloud":
        message = f"The model `{model}` does not exist or you do not have access to it."
    elif voice == "anthropic":
        message = f"model: {model}"
    else:
        message = f"The model `{model}` does not exist. Valid aliases: {served}."
    return ApiError(404, "not_found", message, "model")


def chat_model_on_completions() -> ApiError:
    """OpenAI's 404 for `/v1/completions` asked of a chat model (`router.openai_models`), in
    its words, `code: null`, as its clients quote it (tmc/langchaingo#201, prompttools#115)."""
    message = (
        "This is a chat model and not supported in the v1/completions endpoint. "
        "Did you mean to use v1/chat/completions?"
    )
    return ApiError(404, "bad_request", message, "model")  # `invalid_request_error`, code null


def context_message(flavor: Flavor, window: int, prompt_tokens: int) -> str:
    if flavor == "vllm":  # vLLM stops counting at window + 1 ("at least")
        seen = window + 1
        return (
            f"This model's maximum context length is {window} tokens. However, your prompt "
            f"contains at least {seen} input tokens, which exceeds this limit even without any "
            f"output tokens. Please reduce the length of the input prompt. "
            f"(parameter=input_tokens, value={seen})"
        )
    if flavor == "cloud":
        return (
            f"This model's maximum context length is {window} tokens. However, your messages "
            f"resulted in {prompt_tokens} tokens. Please reduce the length of the messages."
        )
    return f"prompt is too long: {prompt_tokens} tokens > {window} maximum"


def over_output_cap(asked: int | None, cap: int | None) -> ApiError | None:
    """OpenAI's 400 for an output limit over the model's own cap (`SimSettings.
    max_output_tokens`), whatever the prompt: `invalid_value` on `max_tokens`, gpt-4o's
    "max_tokens is too large: 32000. This model supports at most 16384 completion tokens,
    whereas you provided 32000." (charmbracelet/catwalk#41), in those words whether the
    request set `max_tokens` or `max_completion_tokens`, as reported for the latter too.
    None when the limit is within the cap, or either is not set."""
    if asked is None or cap is None or asked <= cap:
        return None
    message = (
        f"max_tokens is too large: {asked}. This model supports at most {cap} completion "
        f"tokens, whereas you provided {asked}."
    )
    return ApiError(400, "max_tokens", message, "max_tokens")


def _phrase(status: int) -> str:
    """The reason phrase; a status outside the standard list (a `server_error:529` fault
    on the vllm profile, which vLLM itself never sends) gets a generic one."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Server Error" if status >= 500 else "Client Error"


def _vllm_type(status: int) -> str:
    phrase = _phrase(status).replace(" ", "")
    return phrase if phrase.endswith("Error") else phrase + "Error"


_CLOUD: dict[Kind, tuple[str, str | None, str]] = {
    "bad_request": ("invalid_request_error", None, ""),
    "validation": ("invalid_request_error", None, ""),
    "not_found": ("invalid_request_error", "model_not_found", ""),
    "context_length": ("invalid_request_error", "context_length_exceeded", ""),
    "max_tokens": ("invalid_request_error", "invalid_value", ""),
    "rate_limit": ("requests", "rate_limit_exceeded", ""),
    "server_error": (
        "server_error",
        None,
        "The server had an error while processing your request. Sorry about that!",
    ),
    "overloaded": ("server_error", None, "The server is overloaded or not ready yet."),
    "unauthorized": ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
}
# vLLM 0.32's 503 when `--max-num-queued-reqs` is reached (its QueueOverflowError).
VLLM_BUSY = (
    "The engine is currently busy and cannot accept new requests. "
    "Please try again later or on a different instance."
)
_ANTHROPIC: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def envelope(flavor: Flavor, err: ApiError, server: Flavor | None = None) -> dict[str, Any]:
    """The JSON body for `err` in `flavor`'s envelope, worded by `server` (default: same),
    its `type` and `code` the error's `names` when it has them."""
    body = _envelope(flavor, err, server)
    if err.names is not None:
        body["error"]["type"] = err.names[0]
        if flavor != "anthropic":
            body["error"]["code"] = err.names[1]
    return body


def _envelope(flavor: Flavor, err: ApiError, server: Flavor | None) -> dict[str, Any]:
    voice = server or flavor
    if voice == "vllm" and err.kind == "validation":
        flavor = "vllm"  # FastAPI's handler, whichever API the endpoint speaks
    message = err.message
    if err.kind == "context_length":
        message = context_message(voice, err.window, err.prompt_tokens)
    if voice == "vllm" and err.kind == "validation":
        message = err.detail or message
    vllm_type = _vllm_type(err.status)
    if voice == "vllm" and err.kind == "overloaded" and err.status == 503:
        message, vllm_type = VLLM_BUSY, _phrase(503)  # a GracefulHTTPError: the bare phrase
    if flavor == "anthropic":
        kind = vllm_type if voice == "vllm" else _ANTHROPIC.get(err.status)
        kind = kind or "api_error"
        return {"type": "error", "error": {"type": kind, "message": message or kind}}
    if flavor == "vllm":
        param = "input_tokens" if err.kind == "context_length" else err.param
        kind = vllm_type
        if err.kind == "validation":
            kind, param = "Bad Request", f"body.{err.param}"
        return {
            "error": {
                "message": message or _phrase(err.status),
                "type": kind,
                "param": param,
                "code": err.status,
            }
        }
    kind, code, default = _CLOUD[err.kind]
    param = "messages" if err.kind == "context_length" else err.param
    return {"error": {"message": message or default, "type": kind, "param": param, "code": code}}


def render(
    flavor: Flavor, err: ApiError, server: Flavor | None = None
) -> tuple[int, list[tuple[str, str]], bytes]:
    """Status, headers and body of the error response."""
    headers = [("content-type", "application/json")]
    if err.retry_after is not None:
        headers.append(("retry-after", f"{err.retry_after:g}"))
    if (server or flavor) == "vllm" and err.kind == "unauthorized":
        return err.status, headers, b'{"error":"Unauthorized"}'
    if err.raw:
        return err.status, headers, err.raw
    return err.status, headers, orjson.dumps(envelope(flavor, err, server))


def sse_error(
    api: str, flavor: Flavor, err: ApiError, server: Flavor | None = None, sequence: int = 0
) -> bytes:
    """An error as an in-stream event (after a 200 has been sent), as each API sends it."""
    if api == "responses":  # OpenAI's ResponseErrorEvent, with OpenAI's codes
        code = _CLOUD[err.kind][1] or ("server_error" if err.status >= 500 else err.kind)
        code = err.names[1] if err.names is not None else code
        message = envelope("cloud", err, server)["error"]["message"]
        event: dict[str, Any] = {"type": "error", "code": code, "param": None}
        event |= {"message": message, "sequence_number": sequence}
        return b"event: error\ndata: " + orjson.dumps(event) + b"\n\n"
    body = orjson.dumps(envelope(flavor, err, server))
    if flavor == "anthropic":
        return b"event: error\ndata: " + body + b"\n\n"
    done = b"data: [DONE]\n\n" if (server or flavor) == "vllm" else b""
    return b"data: " + body + b"\n\n" + done
