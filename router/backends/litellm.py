"""Providers with other wire formats (Anthropic, Gemini, Bedrock, …) through litellm.

litellm converts to and from OpenAI's chat format; this adapter turns its objects back
into the bytes an OpenAI client expects and its exceptions into our typed errors.
litellm is imported on first use only: it costs seconds and ~200 MB (FACTS.md).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import orjson

from router.backends.base import Reply, prepare_body
from router.config import Backend as BackendSettings
from router.config import ConfigError
from router.errors import (
    REFUSAL_STATUSES,
    BackendRefused,
    ContextTooLong,
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
from router.record import Api
from router.upstream_errors import in_band, retry_after

log = logging.getLogger("smf_router")

# What a client's body may carry to litellm: the fields of OpenAI's chat completions request,
# each a named parameter of `litellm.acompletion`, which maps it per provider or drops it.
# Anything else is dropped: litellm's keyword arguments steer litellm itself (`base_url` and
# `api_key` send the backend's key elsewhere, `mock_response` answers without any upstream,
# `timeout` or `num_retries` clash with the adapter's own). `metadata` is left out too:
# litellm reads it as its own logging and routing data. `model` and `stream` are the adapter's.
CHAT_FIELDS = frozenset(
    {
        "messages",
        "audio",
        "frequency_penalty",
        "function_call",
        "functions",
        "logit_bias",
        "logprobs",
        "max_completion_tokens",
        "max_tokens",
        "modalities",
        "n",
        "parallel_tool_calls",
        "prediction",
        "presence_penalty",
        "prompt_cache_key",
        "prompt_cache_retention",
        "reasoning_effort",
        "response_format",
        "safety_identifier",
        "seed",
        "service_tier",
        "stop",
        "store",
        "stream_options",
        "temperature",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "user",
        "verbosity",
        "web_search_options",
    }
)
_ADAPTERS_OWN = frozenset({"model", "stream"})
# litellm's BadRequestError for a model whose prefix names no provider it knows (a typo such
# as `antropic/`): the backend's configuration, never the client's request.
NO_PROVIDER = "LLM Provider NOT provided"
NO_PROVIDER_WHY = "litellm knows no provider for its model: check the prefix before the /"


def import_litellm() -> Any:
    """litellm, offline: the bundled price map, no hub downloads, no telemetry."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


async def stop_logging_worker() -> None:
    """Stop litellm's logging worker if it runs in this loop.

    litellm runs its logging callbacks on one global worker task, started in the loop that
    first sent through it. A router that stops must stop that task with its loop: left
    pending, it is destroyed (and reported) whenever litellm next runs in another loop.
    """
    if "litellm" not in sys.modules:
        return
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

    if getattr(GLOBAL_LOGGING_WORKER, "_bound_loop", None) is asyncio.get_running_loop():
        await GLOBAL_LOGGING_WORKER.stop(timeout=2.0)


def check_model(settings: BackendSettings, index: int) -> None:
    """A model whose prefix names no provider litellm knows (`antropic/…`) is a config error.

    `config check` passes it (it does not import litellm) and each request would fail with it
    instead: found where backends are built for `serve` and for a reload, which import
    litellm for a litellm backend anyway. Asked as a request asks: a provider given as
    `extra_body: {custom_llm_provider: ...}` serves an unprefixed model (refused before,
    found in review). Only litellm's own "no provider" answer refuses: anything else it
    raises says nothing of the model, so the backend starts and its requests will tell."""
    litellm = import_litellm()
    provider = settings.extra_body.get("custom_llm_provider")
    try:
        litellm.get_llm_provider(
            settings.model,
            custom_llm_provider=provider if isinstance(provider, str) else None,
            api_base=settings.base_url or None,
        )
    except Exception as exc:
        if NO_PROVIDER not in _first_line(exc):
            log.warning(
                "backend %r: litellm could not check the provider of its model (%s); "
                "starting it anyway",
                settings.name,
                type(exc).__name__,
            )
            return
        raise ConfigError(
            f"backends.{index}.model: litellm knows no provider for {settings.model!r}; "
            "prefix it with one such as anthropic/, gemini/, bedrock/ or openai/, or name "
            "one in extra_body: {custom_llm_provider: ...}"
        ) from None


class LiteLLMBackend:
    def __init__(self, settings: BackendSettings) -> None:
        self.settings = settings
        self._litellm: Any = None

    async def send(
        self, api: Api, body: dict[str, Any], headers: dict[str, str], stream: bool
    ) -> Reply:
        if api != "chat":
            raise Rejected(
                f"{self.settings.name} speaks chat completions only",
                backend=self.settings.name,
                status=400,
                upstream=_error_body(f"api {api} unsupported"),
            )
        if self._litellm is None:
            self.warm()  # normally done at start, off the event loop
        try:
            response = await self._litellm.acompletion(**self._arguments(body, headers, stream))
            if not stream:
                return Reply(200, {}, body=orjson.dumps(_plain(response)))
        except Exception as exc:
            raise translate(exc, self.settings.name) from None
        return Reply(200, {}, stream=_events(response, self.settings.name))

    def _arguments(
        self, body: dict[str, Any], headers: dict[str, str], stream: bool
    ) -> dict[str, Any]:
        """litellm's keyword arguments: the client's chat fields, the configured extras as
        their defaults (extras litellm does not name go on to the provider's body), then the
        adapter's own, which nothing in a body can replace."""
        settings, timeouts = self.settings, self.settings.timeouts
        dropped = [k for k in body if k not in CHAT_FIELDS and k not in _ADAPTERS_OWN]
        if dropped:  # names only: values may be anything the client sent
            log.debug("%s: fields not given to litellm: %s", settings.name, sorted(dropped))
        chat = {k: v for k, v in body.items() if k in CHAT_FIELDS}
        return {
            **prepare_body(settings, chat),
            "model": settings.model,
            "stream": stream,
            "api_base": settings.base_url or None,
            "api_key": settings.api_key,
            # litellm honours the connect part for the providers it says take an
            # httpx.Timeout (OpenAI, Azure, Bedrock); for others it keeps total_s alone
            "timeout": httpx.Timeout(timeouts.total_s, connect=timeouts.connect_s),
            "num_retries": 0,
            "drop_params": True,
            "extra_headers": {**settings.headers, **headers} or None,
        }

    def warm(self) -> None:
        """Import litellm (seconds) before traffic arrives, never on the event loop."""
        if self._litellm is None:
            self._litellm = import_litellm()

    def retire(self) -> None:
        return None  # litellm's clients are its own, shared by every adapter

    async def aclose(self) -> None:
        return None


async def _events(response: Any, name: str) -> AsyncIterator[bytes]:
    try:
        async for chunk in response:
            yield b"data: " + orjson.dumps(_plain(chunk)) + b"\n\n"
    except Exception as exc:
        raise translate(exc, name, sent=True) from None
    yield b"data: [DONE]\n\n"


def _plain(obj: Any) -> dict[str, Any]:
    data = obj.model_dump() if hasattr(obj, "model_dump") else dict(obj)
    if not isinstance(data, dict):
        return {}
    if data.get("usage") is None and "usage" in data and data.get("choices"):
        data["usage"] = None
    return data


def translate(exc: Exception, name: str, sent: bool = False) -> UpstreamError:
    """litellm's exception classes → our typed errors (by class name: litellm need not be
    imported here).

    `sent`: the request was already on its way (a stream broke), so this cannot be a request
    litellm failed to convert. Anything litellm did not raise was raised by the adapter
    itself: a bug of ours, not the backend's. Messages keep litellm's first line only (the
    rest can be a Python traceback)."""
    if _raised_by_adapter(exc):
        log.error("%s: the litellm adapter failed", name, exc_info=exc)
        return RouterFault(name)
    original = getattr(exc, "original_exception", None)
    if type(exc).__name__ == "MidStreamFallbackError" and isinstance(original, Exception):
        return translate(original, name, sent=True)  # its class says nothing of what broke
    kind = type(exc).__name__
    message = _first_line(exc)
    status = int(getattr(exc, "status_code", 0) or 0)
    if kind == "ContextWindowExceededError":
        return ContextTooLong(message, backend=name, param="messages")
    if kind == "RateLimitError" or status == 429:
        return RateLimited(message, backend=name, retry_after=_retry_after(exc))
    if kind in ("Timeout", "APITimeoutError"):
        return Timeout(message, backend=name)
    broken = _transport_error(exc)
    if broken is not None:  # litellm reports a refused or reset connection as a 500
        return Unreachable(f"{name}: connection failed ({type(broken).__name__})", backend=name)
    refused = None if sent else _misconfigured(exc, name)
    if refused is not None:
        return refused
    if kind == "APIConnectionError":  # litellm's name for whatever else went wrong
        return _unreadable_or_unconverted(exc, name, sent)
    named = _named_mid_stream(exc, name) if sent and status >= 500 else None
    if named is not None:
        return named
    if kind == "ServiceUnavailableError" or status == 503 or _overloaded(exc):
        return Overloaded(message, backend=name)
    if status >= 500 or kind in ("InternalServerError", "APIError"):
        return ServerError(message, backend=name)
    if status in REFUSAL_STATUSES:
        return BackendRefused(name, status)
    if 400 <= status < 500:
        return Rejected(message, backend=name, status=status, upstream=_error_body(message))
    return ServerError(f"{kind}: {message}", backend=name)


def _unreadable_or_unconverted(exc: Exception, name: str, sent: bool) -> UpstreamError:
    """Without a broken connection under it, litellm's APIConnectionError is its own trouble:
    reading what the upstream sent (its JSON, or an error carrying the upstream's status, is
    in the chain; or the stream had started), else converting the request for the provider
    (a tool without `function`, a content part of an unknown type): the client's to fix,
    never retried and never the backend's failure."""
    if sent or any(_is_reply(cause) for cause in _causes(exc)):
        return Malformed(f"{name}: the reply could not be read", backend=name)
    message = (
        f"{name} could not convert this request for its provider: a field (tools, a content "
        "part, response_format, …) has a shape it does not accept"
    )
    return Rejected(message, backend=name, status=400, upstream=_error_body(message))


def _misconfigured(exc: Exception, name: str) -> BackendRefused | None:
    """What litellm found wrong with the backend's configuration before sending: no
    provider for its model (a 400 of litellm's own, which blamed the client), or no key."""
    if NO_PROVIDER in _first_line(exc):
        status = int(getattr(exc, "status_code", 0) or 400)
        return BackendRefused(name, status, why=NO_PROVIDER_WHY)
    return _missing_key(exc, name)


def _missing_key(exc: Exception, name: str) -> BackendRefused | None:
    """litellm found no key for the provider before sending (a backend without
    `api_key_env` whose provider's own variable is unset): some providers raise a plain
    ValueError ("Missing Gemini API key. Set the GEMINI_API_KEY ..."), which litellm wraps
    in an APIConnectionError; for `openai/...` the OpenAI SDK's client raises its base
    OpenAIError ("Missing credentials. ... set the `OPENAI_API_KEY` ..."), which litellm
    wraps in a 500 InternalServerError that was taken for the server's failure. That is the
    backend's configuration, as a 401 would be: it falls back, and the message keeps the
    library's words, which name the variable."""
    for cause in _causes(exc):
        text = _first_line(cause) if isinstance(cause, Exception) else ""
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
    ("overloaded_error", ("overloaded_error", "overloaded")),
)


def _named_mid_stream(exc: Exception, name: str) -> UpstreamError | None:
    """A 500 that litellm made of an error event Anthropic sent mid-stream, typed as that
    event (`in_band`): a rate limit or an overload is a working backend, busy right now,
    never a failure that opens its circuit; the client's error event keeps Anthropic's name.
    None when the message names neither."""
    chain = [e for e in (exc, *_causes(exc)) if isinstance(e, Exception)]
    if not any(type(e).__name__ == "AnthropicError" for e in chain):
        return None  # another provider's 500 that mentions a rate limit stays a server error
    text = " ".join(_first_line(e) for e in chain).lower()
    # the provider's own error (AnthropicError) says it without litellm's prefixes
    said = next((e for e in reversed(chain) if _is_reply(e)), exc)
    for kind, words in _ANTHROPIC_IN_BAND:
        if any(word in text for word in words):
            return in_band("messages", {"type": kind, "message": _first_line(said)}, name)
    return None


def _first_line(exc: Exception) -> str:
    text = str(getattr(exc, "message", "") or exc).strip()
    return text.splitlines()[0][:500] if text else type(exc).__name__


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


def _error_body(message: str) -> dict[str, Any]:
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    }
