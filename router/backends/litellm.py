"""Providers with other wire formats (Anthropic, Gemini, Bedrock, …) through litellm.

litellm converts to and from OpenAI's chat format; this adapter turns its objects back
into the bytes an OpenAI client expects; its exceptions become our typed errors in
`router.backends.litellm_errors`.
litellm is imported on first use only: it costs seconds and ~200 MB (FACTS.md).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import re
import sys
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from typing import Any

import httpx
import orjson

from evals.redaction import Secrets
from router.attempt_errors import Rejected
from router.backends.base import Reply, prepare_body, reasoning_for
from router.backends.claude_samplers import keep_one_sampler, one_sampler_only
from router.backends.litellm_errors import NO_PROVIDER, error_body, translate
from router.backends.litellm_fields import also_given, given, litellm_arguments
from router.backends.litellm_words import first_line
from router.config import Backend as BackendSettings
from router.config import ConfigError
from router.logs import adopt_litellm
from router.record import Api
from router.reply_checks import UNFINISHED

log = logging.getLogger("smf_router")

# The words of a Bedrock model naming the API litellm calls it by (`bedrock/converse/<id>`)
BEDROCK_ROUTES = ("converse/", "invoke/")
# The variables litellm may read a credential from for a backend without `api_key_env`, by
# the ends of their names: its providers' own are not `<PROVIDER>_API_KEY` alone (Azure's
# AZURE_OPENAI_API_KEY comes first, then HF_TOKEN, CO_API_KEY, TOGETHER_API_KEY,
# ANTHROPIC_AUTH_TOKEN, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, ...; litellm's own
# `SENTRY_DENYLIST` lists such names by the same words), nor end in those words alone:
# AWS_BEARER_TOKEN_BEDROCK, WATSONX_APIKEY, WATSONX_ZENAPIKEY, SNOWFLAKE_JWT,
# *_CREDENTIALS (found in review).
_CREDENTIAL_VARIABLE = re.compile(
    r"\w+_(?:KEY|TOKEN|SECRET|PASSWORD)|\w*(?:_TOKEN_|APIKEY|_JWT|CREDENTIALS)\w*", re.I
)
# A value shorter than this in such a variable is a setting, not a credential (`1`, `true`).
_MIN_CREDENTIAL_CHARS = 8
# A value under this length counts only with a digit in it: a container's stock
# POSTGRES_PASSWORD=postgres or MINIO_SECRET_KEY=minioadmin is a word the error's own text
# holds ("could not connect to postgres"), masked there (found in review).
_WORDLIKE_BELOW = 16


def import_litellm() -> Any:
    """litellm, offline: the bundled price map, no hub downloads, no telemetry; its loggers
    writing through the router's JSON logs only (`logs.adopt_litellm`)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    adopt_litellm()
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


def check_model(settings: BackendSettings, field: str) -> None:
    """A model whose prefix names no provider litellm knows (`antropic/…`) is a config error.

    `config check` passes it (it does not import litellm) and each request would fail with it
    instead: found where backends are built for `serve` and for a reload, which import
    litellm for a litellm backend anyway. Asked as a request asks: a provider given as
    `extra_body: {custom_llm_provider: ...}` serves an unprefixed model (refused before,
    found in review). Only litellm's own "no provider" answer refuses: anything else it
    raises says nothing of the model, so the backend starts and its requests will tell.
    `field` names the setting as the config's errors do (`Config.field_name`)."""
    litellm = import_litellm()
    try:
        litellm.get_llm_provider(
            settings.model,
            custom_llm_provider=_named_provider(settings),
            api_base=settings.base_url or None,
        )
    except Exception as exc:
        if NO_PROVIDER not in first_line(exc):
            log.warning(
                "backend %r: litellm could not check the provider of its model (%s); "
                "starting it anyway",
                settings.name,
                type(exc).__name__,
            )
            return
        raise ConfigError(
            f"{field}: litellm knows no provider for {settings.model!r}; "
            "prefix it with one such as anthropic/, gemini/, bedrock/ or openai/, or name "
            "one in extra_body: {custom_llm_provider: ...}"
        ) from None


def provider_of(settings: BackendSettings) -> str | None:
    """The provider litellm sends the backend's model to (`anthropic` for `anthropic/…`, for
    a plain `claude-…` it knows, or for `extra_body: {custom_llm_provider: anthropic}`);
    None when it cannot tell. Asked once per model (no network: litellm's own tables)."""
    return _provider(settings.model, _named_provider(settings), settings.base_url)[1]


def model_of(settings: BackendSettings) -> str:
    """litellm's name for the backend's model at its provider (`echo500` for
    `openai/echo500`, `anthropic/claude-3` for `openrouter/anthropic/claude-3`): the prefix
    only when it names a provider litellm knows; the model as configured when litellm cannot
    tell. Asked once per model, as `provider_of` (no network: litellm's own tables). On
    Bedrock, without the word naming the API litellm calls (`converse/`, `invoke/`), which
    litellm leaves in: a routing word of litellm's, no part of the Bedrock model id."""
    model, found = _provider(settings.model, _named_provider(settings), settings.base_url)
    if found == "bedrock":
        for route in BEDROCK_ROUTES:
            if model.startswith(route):
                return model.removeprefix(route)
    return model


def _named_provider(settings: BackendSettings) -> str | None:
    """The provider the config names in `extra_body: {custom_llm_provider: ...}`, if any."""
    provider = settings.extra_body.get("custom_llm_provider")
    return provider if isinstance(provider, str) else None


@functools.lru_cache(maxsize=256)
def _provider(model: str, provider: str | None, base_url: str) -> tuple[str, str | None]:
    """litellm's model name and provider for a backend; the provider None when it knows no
    provider for the model (its requests fail, and say so)."""
    litellm = import_litellm()
    try:
        name, found, _, _ = litellm.get_llm_provider(
            model, custom_llm_provider=provider, api_base=base_url or None
        )
    except Exception:
        return model, None
    return str(name), found if isinstance(found, str) else None


def _one_choice_only(litellm: Any, settings: BackendSettings) -> bool:
    """Whether litellm's provider for the backend's model takes no `n`: litellm then drops it
    (`drop_params`) and answers one choice to a request for two, with a 200 (found in review
    for Anthropic). The policy skips such a backend for `n` > 1. litellm's list of the OpenAI
    fields a provider maps says so; a provider it cannot tell about sends `n` on, as before."""
    model, found = _provider(settings.model, _named_provider(settings), settings.base_url)
    if found is None:  # a provider litellm does not know fails its requests anyway
        return False
    try:
        supported = litellm.get_supported_openai_params(model=model, custom_llm_provider=found)
    except Exception:
        return False
    return isinstance(supported, list) and "n" not in supported


def _one_sampler_only(settings: BackendSettings) -> bool:
    """Whether the backend's model takes one of `temperature` and `top_p` only
    (`router.backends.claude_samplers`), by litellm's name for it."""
    model, _ = _provider(settings.model, _named_provider(settings), settings.base_url)
    return one_sampler_only(model)


class LiteLLMBackend:
    def __init__(self, settings: BackendSettings) -> None:
        self.settings = settings
        self._litellm: Any = None
        self.one_choice_only = False  # known once warmed (`_one_choice_only`)
        self.one_sampler_only = False  # likewise (`_one_sampler_only`)
        self._also_given: frozenset[str] = frozenset()  # likewise (`also_given`)
        self._secrets = Secrets(settings.secret_values(*credential_variables(os.environ)))

    async def send(
        self, api: Api, body: dict[str, Any], headers: dict[str, str], stream: bool
    ) -> Reply:
        if api != "chat":
            raise Rejected(
                f"{self.settings.name} speaks chat completions only",
                backend=self.settings.name,
                status=400,
                upstream=error_body(f"api {api} unsupported"),
            )
        if self._litellm is None:
            self.warm()  # normally done at start, off the event loop
        try:
            response = await self._litellm.acompletion(**self._arguments(body, headers, stream))
            if not stream:
                return Reply(200, {}, body=orjson.dumps(_plain(response)))
        except Exception as exc:
            raise translate(exc, self.settings.name, secrets=self.secret_values()) from None
        return Reply(200, {}, stream=_events(response, self.settings.name, self.secret_values))

    def secret_values(self) -> Secrets:
        """What its errors are cleaned of (`Backend.secret_values`), and the value of every
        variable litellm may take a credential from (`credential_variables`); read when the
        adapter was made (at start, at a reload), not at each error."""
        return self._secrets

    def _arguments(
        self, body: dict[str, Any], headers: dict[str, str], stream: bool
    ) -> dict[str, Any]:
        """litellm's keyword arguments: the client's chat fields and those the backend's
        `extra_body` names (`router.backends.litellm_fields`), the configured extras as their
        defaults (extras litellm does not name go on to the provider's body), then the
        adapter's own, which nothing in a body can replace."""
        settings, timeouts = self.settings, self.settings.timeouts
        # `reasoning` as OpenAI's fields before `given` picks them, which leave it out; the
        # call in `prepare_body` then finds none (kept there for the other backends)
        picked = given(reasoning_for(settings, body, "chat"), settings.name, self._also_given)
        chat = prepare_body(settings, picked, "chat")
        if self.one_sampler_only:
            keep_one_sampler(chat, body)
        return {
            **chat,
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
            self.one_choice_only = _one_choice_only(self._litellm, self.settings)
            self.one_sampler_only = _one_sampler_only(self.settings)
            arguments = litellm_arguments(self._litellm)
            self._also_given = also_given(self.settings.extra_body, arguments)

    def retire(self) -> None:
        return None  # litellm's clients are its own, shared by every adapter

    async def aclose(self) -> None:
        return None


def credential_variables(environ: Mapping[str, str]) -> list[str]:
    """The values of the variables named like credentials (`_CREDENTIAL_VARIABLE`): what
    litellm may send a backend without `api_key_env`, whichever of them its provider reads
    (found in review: Azure's key, read first, was not hidden)."""
    found = (
        value.strip() for name, value in environ.items() if _CREDENTIAL_VARIABLE.fullmatch(name)
    )
    return [value for value in found if _credential_like(value)]


def _credential_like(value: str) -> bool:
    """Long enough to be a credential, and not a word: a digit in it, or long."""
    if len(value) < _MIN_CREDENTIAL_CHARS:
        return False
    return len(value) >= _WORDLIKE_BELOW or any(c.isdigit() for c in value)


async def _events(
    response: Any, name: str, secrets: Callable[[], Collection[str]]
) -> AsyncIterator[bytes]:
    try:
        async for chunk in response:
            data = _plain(chunk)
            _restore_streamed_stop(data, getattr(response, "received_finish_reason", None))
            yield b"data: " + orjson.dumps(data) + b"\n\n"
    except Exception as exc:
        raise translate(exc, name, sent=True, secrets=secrets()) from None
    yield b"data: [DONE]\n\n"


def _plain(obj: Any) -> dict[str, Any]:
    data = obj.model_dump() if hasattr(obj, "model_dump") else dict(obj)
    if not isinstance(data, dict):
        return {}
    if data.get("usage") is None and "usage" in data and data.get("choices"):
        data["usage"] = None
    _restore_stops(data)
    return data


def _restore_stops(data: dict[str, Any]) -> None:
    """Put back a whole reply's finish reason that says the answer was stopped.

    litellm turns a reason it does not know (vLLM's "abort" and "error", DeepSeek's
    "insufficient_system_resource") into "stop", keeping the upstream's own only in the
    choice's `provider_specific_fields.native_finish_reason`: a truncated answer went to the
    client as complete, recorded ok, never falling back. With the reason back, the router
    sees what a `kind: openai` backend's client sees (`unfinished`)."""
    for choice in data.get("choices") or ():
        if not isinstance(choice, dict):
            continue
        fields = choice.get("provider_specific_fields")
        native = fields.get("native_finish_reason") if isinstance(fields, dict) else None
        if native in UNFINISHED:
            choice["finish_reason"] = native


def _restore_streamed_stop(data: dict[str, Any], received: Any) -> None:
    """The same for a stream: litellm's chunks keep no native reason, only its stream
    wrapper does (`received_finish_reason`, the upstream's reason before mapping). A
    DeepSeek stream that ended "insufficient_system_resource" ended "stop" for the client.
    ("abort" and "error" litellm raises for itself: those streams end in an error.)"""
    if received not in UNFINISHED:
        return
    for choice in data.get("choices") or ():
        if isinstance(choice, dict) and choice.get("finish_reason") == "stop":
            choice["finish_reason"] = received
