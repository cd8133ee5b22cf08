"""litellm's exceptions → our typed errors, by class name (litellm need not be imported).

litellm raises its own classes for everything: an upstream's answer, a broken connection,
its own trouble converting a request, a backend's missing key or provider. Telling them
apart is its own concept, apart from the adapter that sends (`router.backends.litellm`).
"""

from __future__ import annotations

import json
import logging
import re
import socket
from collections.abc import Collection, Iterator
from typing import Any

import httpx
import orjson

from router import retry_words
from router.attempt_errors import (
    ContextTooLong,
    Cut,
    Malformed,
    Overloaded,
    RateLimited,
    Rejected,
    RouterFault,
    ServerError,
    Timeout,
    Unreachable,
    UpstreamError,
)
from router.backend_refused import REFUSAL_STATUSES, BackendRefused
from router.backends.litellm_words import first_line
from router.retry_after import retry_after
from router.upstream_errors import OVERLOAD_WORDS, classify_error, in_band, is_output_cap

log = logging.getLogger("smf_router")

# litellm's BadRequestError for a model whose prefix names no provider it knows (a typo such
# as `antropic/`): the backend's configuration, never the client's request.
NO_PROVIDER = "LLM Provider NOT provided"
NO_PROVIDER_WHY = "litellm knows no provider for its model: check the prefix before the /"
# What litellm's stream wrapper raises for a stream that closed cleanly before its finish
# reason (an httpx.RemoteProtocolError it maps to an APIConnectionError, the cause dropped).
# The http backend calls that `cut`; `malformed` told an operator the bytes were garbage.
STREAM_ENDED = "Stream ended before a finish_reason was received"
# Anthropic's 400 for an account that cannot pay (documented wording): billing, the backend's
# problem as a 402 is, never the client's.
OUT_OF_CREDIT = "Your credit balance is too low to access the Anthropic API"


def translate(
    exc: Exception, name: str, sent: bool = False, secrets: Collection[str] = ()
) -> UpstreamError:
    """litellm's exception classes → our typed errors (by class name: litellm need not be
    imported here).

    `sent`: the request was already on its way (a stream broke), so this cannot be a request
    litellm failed to convert. Anything litellm did not raise was raised by the adapter
    itself: a bug of ours, not the backend's. Messages keep the provider's own words, one
    line (`router.backends.litellm_words`), cleaned of the backend's `secrets` as every
    upstream error's are (`router.attempt_errors.UpstreamError`)."""
    if _raised_by_adapter(exc):
        log.error("%s: the litellm adapter failed", name, exc_info=exc)
        return RouterFault(name)
    error = _typed(exc, name, sent, secrets)
    if error.upstream_status is None:  # a refusal names its own
        error.upstream_status = _answered_status(exc)
    return error


def _typed(exc: Exception, name: str, sent: bool, secrets: Collection[str]) -> UpstreamError:
    """`exc` as the typed error a client is told (`translate`)."""
    told = _told_in_band_or_wrapped(exc, name, secrets)
    if told is not None:
        return told
    kind = type(exc).__name__
    message = first_line(exc, secrets)
    status = int(getattr(exc, "status_code", 0) or 0)
    if kind == "ContextWindowExceededError":
        return ContextTooLong(message, backend=name, param="messages", secrets=secrets)
    if kind == "RateLimitError" or status == 429:
        wait = _retry_after(exc)
        return RateLimited(message, backend=name, retry_after=wait, secrets=secrets)
    if kind in ("Timeout", "APITimeoutError"):
        return Timeout(message, backend=name, secrets=secrets)
    if 400 <= status < 500:  # an answer (the provider's or litellm's own), whatever is under it
        return _refused(exc, name, status, sent, secrets)
    broken = _transport_error(exc)
    if broken is not None:  # litellm reports a refused or reset connection as a 500
        if _reply_began(exc) or (sent and not _never_connected(exc)):
            return Cut(retry_words.broke(name, broken, "the reply broke off"), backend=name)
        return Unreachable(f"{name}: connection failed ({type(broken).__name__})", backend=name)
    refused = None if sent else _misconfigured(exc, name, secrets)
    if refused is not None:
        return refused
    if kind == "APIConnectionError":  # litellm's name for whatever else went wrong
        return _unreadable_or_unconverted(exc, name, sent)
    named = _named_mid_stream(exc, name, secrets) if sent and status >= 500 else None
    if named is not None:
        return named
    if kind == "ServiceUnavailableError" or status == 503 or _overloaded(exc):
        wait = _retry_after(exc)
        return Overloaded(message, backend=name, retry_after=wait, secrets=secrets)
    if status >= 500 or kind in ("InternalServerError", "APIError"):
        return ServerError(message, backend=name, secrets=secrets)
    return ServerError(f"{kind}: {message}", backend=name, secrets=secrets)


def _answered_status(exc: Exception) -> int | None:
    """The HTTP status the provider answered `exc` with, for the attempt's record
    (`router.dispatch`): the error's own may differ (a 500 is the client's 502, Anthropic's
    529 its 503), and litellm's class and status do too (a 500 for that 529, its Timeout for
    a 504), so it is read from the HTTP reply in the chain. An error event that litellm gave
    a status (Anthropic's in-band `api_error`, a 500) then names none, nor does the answer
    of an image URL litellm fetched itself. Set when the same as the client's too: only the
    attempt's record reads it."""
    if type(exc).__name__ == "ImageFetchError":
        return None
    for cause in (exc, *_causes(exc)):
        if isinstance(cause, httpx.HTTPStatusError):
            return cause.response.status_code
    return None


def _refused(
    exc: Exception, name: str, status: int, sent: bool, secrets: Collection[str]
) -> UpstreamError:
    """A 4xx: the backend's configuration (no provider for its model, a 401/403/404 said by
    litellm or by the provider, an account out of credit), else the client's request, passed
    on and never retried. Looked at before any connection failure under it: litellm's
    ImageFetchError is a 400 chained to the DNS failure of the client's image URL, which was
    `unreachable`, a 502 that fell back and counted against the backend's circuit (three
    such requests opened it for everyone: found in review).

    Either status makes a refusal: litellm makes Gemini's 400 "API key not valid" a 401 on
    purpose, and the provider's 400 winning made a wrong key the client's 400, nothing else
    tried (found in review). The provider's own status is the one a client's error carries:
    litellm makes Anthropic's 413 `request_too_large` a BadRequestError (400)."""
    refused = None if sent else _misconfigured(exc, name, secrets)
    if refused is not None:
        return refused
    provider = _provider_status(exc)
    for said in (status, provider):
        if said in REFUSAL_STATUSES:
            return BackendRefused(name, said)
    message = _image_unfetched(exc, name) or first_line(exc, secrets)
    if _out_of_credit(exc, message):
        return BackendRefused(name, 402)
    status = provider or status
    body = error_body(message)
    if is_output_cap(message):  # litellm maps only the window's wordings to its own class
        return classify_error(status, orjson.dumps(body), {}, name, secrets=secrets)
    return Rejected(message, backend=name, status=status, upstream=body, secrets=secrets)


def _out_of_credit(exc: Exception, message: str) -> bool:
    """Anthropic's billing refusal, a 400: its own message, from Anthropic. Matched anywhere
    in any provider's message, a client quoting the words (OpenAI echoes an invalid `role`)
    made its own mistake a refusal that opened the circuit for everyone (found in review)."""
    return getattr(exc, "llm_provider", None) == "anthropic" and message.startswith(OUT_OF_CREDIT)


def _provider_status(exc: Exception) -> int | None:
    """The 4xx the upstream itself answered, from the nearest reply in the chain."""
    for cause in _causes(exc):
        status = getattr(cause, "status_code", None)
        if _is_reply(cause) and isinstance(status, int) and 400 <= status < 500:
            return status
    return None


def _image_unfetched(exc: Exception, name: str) -> str | None:
    """litellm fetches a client's image URL itself (Anthropic takes images inline); its
    message names its own proxy's settings (`user_url_allowed_hosts`), which mean nothing to
    the client."""
    if type(exc).__name__ != "ImageFetchError":
        return None
    url = re.search(r"url=(\S+)", str(exc))
    where = f" ({url.group(1)[:200]})" if url else ""
    return (
        f"{name} could not fetch an image URL of this request{where}: its host does not "
        "resolve, is not allowed, or did not answer with an image; send the image inline "
        "as a base64 data: URL"
    )


def _reply_began(exc: Exception) -> bool:
    """The connection broke while the reply's body was being read (its status and headers
    had come): aiohttp's ClientPayloadError (litellm's default transport), or httpx's own
    "peer closed connection without sending complete message body"."""
    for cause in (exc, *_causes(exc)):
        if any(c.__name__ == "ClientPayloadError" for c in type(cause).__mro__):
            return True
        if isinstance(cause, httpx.RemoteProtocolError) and "message body" in str(cause):
            return True
    return False


def _never_connected(exc: Exception) -> bool:
    """The connection was never made: litellm opens some providers' streams (Gemini,
    Vertex, Codestral, Predibase, OCI) on the first chunk, so a refused connection comes
    while the stream is read and was `cut` (found in review). A box that is off is
    `unreachable`, however late litellm found out."""
    for cause in (exc, *_causes(exc)):
        if isinstance(cause, httpx.ConnectError | httpx.ConnectTimeout):
            return True
        if isinstance(cause, ConnectionRefusedError | socket.gaierror):
            return True
        if any(c.__name__ == "ClientConnectorError" for c in type(cause).__mro__):
            return True  # aiohttp's, litellm's default transport
    return False


def _told_in_band_or_wrapped(
    exc: Exception, name: str, secrets: Collection[str]
) -> UpstreamError | None:
    """An error event the upstream sent, typed as it says; else what litellm's
    MidStreamFallbackError wraps (its class says nothing of what broke); else None."""
    said = _error_event(exc)
    if said is not None:
        return in_band("chat", said, name, secrets)
    original = getattr(exc, "original_exception", None)
    if type(exc).__name__ == "MidStreamFallbackError" and isinstance(original, Exception):
        return translate(original, name, sent=True, secrets=secrets)
    return None


def _error_event(exc: Exception) -> dict[str, Any] | None:
    """The error object of an error event in an OpenAI-style stream, if one ended it.

    The OpenAI SDK raises such an event as a plain `openai.APIError` whose `body` is the
    event's error; litellm chains it under its own exception, an APIConnectionError (a 500)
    for anything but a 429, which read as a reply it could not parse: an overloaded vLLM's
    in-band 503 was `malformed`, opened the circuit and lost the upstream's message. Typed
    as the event says (`in_band`), as a `kind: openai` backend's is. Looked for under a
    MidStreamFallbackError too: its `original_exception` need not carry the chain."""
    original = getattr(exc, "original_exception", None)
    roots = (exc, original) if isinstance(original, Exception) else (exc,)
    for root in roots:
        for cause in (root, *_causes(root)):
            body = getattr(cause, "body", None)
            if _is_sdk_api_error(cause) and isinstance(body, dict):
                return body
    return None


def _is_sdk_api_error(cause: BaseException) -> bool:
    """The OpenAI SDK's base APIError itself: its subclasses are HTTP replies (a status)
    or failed connections, and litellm's classes built on it are litellm's own."""
    kind = type(cause)
    return kind.__name__ == "APIError" and kind.__module__.split(".")[0] == "openai"


def _unreadable_or_unconverted(exc: Exception, name: str, sent: bool) -> UpstreamError:
    """Without a broken connection under it, litellm's APIConnectionError is its own trouble:
    reading what the upstream sent (its JSON, or an error carrying the upstream's status, is
    in the chain; or the stream had started), else converting the request for the provider
    (a tool without `function`, a content part of an unknown type): the client's to fix,
    never retried and never the backend's failure."""
    if sent and STREAM_ENDED in first_line(exc):
        return Cut(retry_words.ended_unfinished(name), backend=name)
    if sent or any(_is_reply(cause) for cause in _causes(exc)):
        return Malformed(f"{name}: the reply could not be read", backend=name)
    message = (
        f"{name} could not convert this request for its provider: a field (tools, a content "
        "part, response_format, …) has a shape it does not accept"
    )
    return Rejected(message, backend=name, status=400, upstream=error_body(message))


def _misconfigured(exc: Exception, name: str, secrets: Collection[str]) -> BackendRefused | None:
    """What litellm found wrong with the backend's configuration before sending: no
    provider for its model (a 400 of litellm's own, which blamed the client), or no key."""
    if NO_PROVIDER in first_line(exc):
        status = int(getattr(exc, "status_code", 0) or 400)
        return BackendRefused(name, status, why=NO_PROVIDER_WHY)
    return _missing_key(exc, name, secrets)


def _missing_key(exc: Exception, name: str, secrets: Collection[str]) -> BackendRefused | None:
    """litellm found no key for the provider before sending (a backend without
    `api_key_env` whose provider's own variable is unset): some providers raise a plain
    ValueError ("Missing Gemini API key. Set the GEMINI_API_KEY ..."), which litellm wraps
    in an APIConnectionError; for `openai/...` the OpenAI SDK's client raises its base
    OpenAIError ("Missing credentials. ... set the `OPENAI_API_KEY` ..."), which litellm
    wraps in a 500 InternalServerError that was taken for the server's failure. That is the
    backend's configuration, as a 401 would be: it falls back, and the message keeps the
    library's words, which name the variable."""
    for cause in _causes(exc):
        text = first_line(cause, secrets) if isinstance(cause, Exception) else ""
        if _before_sending(cause) and "api key" in text.lower().replace("_", " "):
            return BackendRefused(name, 401, said=text)
    return None


def _before_sending(cause: BaseException) -> bool:
    """Raised by a library in the router before any request left: a plain ValueError (not
    JSON it could not read), or the OpenAI SDK's base error itself (its subclasses are
    the upstream's answers)."""
    if isinstance(cause, ValueError):
        return not isinstance(cause, json.JSONDecodeError)
    kind = type(cause)
    return kind.__name__ == "OpenAIError" and kind.__module__.split(".")[0] == "openai"


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """What `exc` was raised from or while handling, nearest first (litellm chains the
    provider's error, then httpx's, then aiohttp's or the OS's, under its own)."""
    seen = {id(exc)}
    cause = exc.__cause__ or exc.__context__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        yield cause
        cause = cause.__cause__ or cause.__context__


def _transport_error(exc: Exception) -> BaseException | None:
    """The connection failure in or under `exc`, if any (not a timeout: litellm names those)."""
    for cause in (exc, *_causes(exc)):
        if isinstance(cause, httpx.TransportError | OSError) and not isinstance(
            cause, httpx.TimeoutException | TimeoutError
        ):
            return cause
    return None


def _is_reply(cause: BaseException) -> bool:
    return isinstance(cause, json.JSONDecodeError) or isinstance(
        getattr(cause, "status_code", None), int
    )


def _overloaded(exc: Exception) -> bool:
    """Anthropic's 529 `overloaded_error`, also when it comes in-band mid-stream: litellm
    raises an InternalServerError that keeps the status in `provider_status_code`."""
    return getattr(exc, "provider_status_code", None) == 529


# Anthropic's in-band error types, by what litellm leaves of them: for an `event: error` it
# raises AnthropicError(status_code=500) with the event's message alone (its type kept only
# when the event had no message), so a type is found by its name or its message's words.
_ANTHROPIC_IN_BAND = (
    ("rate_limit_error", ("rate_limit_error", "rate limit")),
    ("overloaded_error", ("overloaded_error", *OVERLOAD_WORDS)),
)


def _named_mid_stream(exc: Exception, name: str, secrets: Collection[str]) -> UpstreamError | None:
    """A 500 that litellm made of an error event Anthropic sent mid-stream, typed as that
    event (`in_band`): a rate limit or an overload is a working backend, busy right now,
    never a failure that opens its circuit; the client's error event keeps Anthropic's name.
    None when the message names neither."""
    chain = [e for e in (exc, *_causes(exc)) if isinstance(e, Exception)]
    if not any(type(e).__name__ == "AnthropicError" for e in chain):
        return None  # another provider's 500 that mentions a rate limit stays a server error
    text = " ".join(first_line(e) for e in chain).lower()
    # the provider's own error (AnthropicError) says it without litellm's prefixes
    said = next((e for e in reversed(chain) if _is_reply(e)), exc)
    for kind, words in _ANTHROPIC_IN_BAND:
        if any(word in text for word in words):
            said_first = first_line(said, secrets)
            return in_band("messages", {"type": kind, "message": said_first}, name, secrets)
    return None


def _raised_by_adapter(exc: Exception) -> bool:
    """Neither litellm (its classes are built on the openai SDK's) nor the network under it
    raised `exc`."""
    if isinstance(exc, OSError):
        return False
    return not any(c.__module__.split(".")[0] in _NOT_OURS for c in type(exc).__mro__)


_NOT_OURS = frozenset({"litellm", "openai", "httpx", "httpcore", "aiohttp"})


def _retry_after(exc: Exception) -> float | None:
    """The upstream's headers are in `litellm_response_headers`: the response litellm attaches
    to its exception is its own, without them. Bounded by `retry_after`, as for HTTP backends."""
    headers = getattr(exc, "litellm_response_headers", None)
    return retry_after(httpx.Headers(headers)) if headers else None


def error_body(message: str) -> dict[str, Any]:
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    }
