"""What the router's spans say: GenAI attributes from a finished record and per backend.

Pure but for litellm's own reading of a model's provider (`request_model`,
`provider_name`: cached):
`router.tracing` starts and ends the spans and asks here for their attributes. Names
follow the GenAI semantic conventions (`gen_ai.*`, opentelemetry.io/docs/specs/semconv/
gen-ai/) and the general ones (`server.*`, `error.type`); ours live under `smf.`. Never
prompt text, the caller, a key or a URL's user info, path or query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from router.backends.litellm import model_of, provider_of
from router.errors import RouterError, error_kind, refused_outcome
from router.record import Record, Usage

if TYPE_CHECKING:
    from router.config import Backend as BackendSettings
    from router.config import Config

# https://opentelemetry.io/docs/specs/semconv/gen-ai/ (gen_ai.operation.name values)
OPERATIONS = {
    "chat": "chat",
    "completions": "text_completion",
    "responses": "chat",
    "messages": "chat",
}

# `server.port` of a URL that names none: what its scheme means (an instrumented HTTP client
# says 443 for `https://api.openai.com/v1` too).
DEFAULT_PORTS = {"http": 80, "https": 443}


def record_attributes(
    record: Record,
    finish_reasons: Sequence[str] | None = None,
    answered: tuple[str, str | None] | None = None,
) -> dict[str, Any]:
    """The span attributes a finished record supplies (never prompt text or the caller). The
    request id is the ledger row's and the reply's `x-request-id`: it leads from either to
    the trace; `gen_ai.conversation.id` is the ledger's `conversation`, the keyed hash of
    the session id or the opening (never either), which groups a session's turns in a trace
    backend as in the ledger. Not `gen_ai.response.model`: the record's `served_model` is
    the config's, prefix and all; `Tracing.finish_request` names the model as the attempt
    did. `smf.attempts` counts the backends called; those passed over are events
    (`Tracing.skipped`). `answered`: `ended_on(record)`, which the caller reads too."""
    attrs: dict[str, Any] = {
        **record_usage(record),
        "smf.intent": record.intent,
        "smf.confidence": record.confidence,
        "smf.route": record.route,
        "smf.attempts": sum(a.outcome != "skipped" for a in record.attempts),
        "smf.outcome": record.outcome,
        "smf.request_id": record.request_id,
        "smf.stream": record.stream,
        "http.response.status_code": client_status(record),
    }
    if record.conversation:
        attrs["gen_ai.conversation.id"] = record.conversation
    if answered is not None:
        attrs["smf.backend"], tier = answered
        if tier:
            attrs["smf.tier"] = tier
    if record.fallback_reason:
        attrs["smf.fallback_reason"] = record.fallback_reason
    if record.intent_source:
        attrs["smf.intent_source"] = record.intent_source
    attrs.update(finish_attributes(finish_reasons or ()))
    return attrs


def record_usage(record: Record) -> dict[str, Any]:
    """The request's token counts as its ledger row has them, and whether they are the
    router's estimate (`smf.tokens_estimated`, the row's `tokens_estimated`); none when
    nothing was counted (no usage reported and nothing to estimate: a backend's 400, a
    hang-up before the first token), where the row's 0 is no count. Exported as 0, a sum of
    the tokens in traces counted them as requests that used none (found in review)."""
    if not record.counted:
        return {}
    return {
        **usage_attributes(record.usage),
        "smf.tokens_estimated": record.usage.estimated,
    }


def ended_on(record: Record) -> tuple[str, str | None] | None:
    """The backend (and tier) a request ended on, when it answered: the one that served,
    else that of the last attempt made if it gave an HTTP status (a 4xx passed through to
    the client, a 5xx). None when no backend answered (a timeout, a refused connection, a
    hang-up or the router's drain before the first byte, every backend passed over): a
    request span then names no backend, where before one that answered and did not serve
    went unnamed too, missed by a query on `smf.backend` (found in review)."""
    if record.backend is not None:
        return record.backend, record.tier
    last = next((a for a in reversed(record.attempts) if a.outcome != "skipped"), None)
    if last is None or last.status is None:
        return None
    return last.backend, last.tier


def raised_attributes(error: Exception) -> dict[str, Any]:
    """What a request span says of `error`, raised while the request was planned: what a
    refusal's ledger row says (`router.errors.refused_outcome`) as `smf.outcome`;
    `error.type` its error kind, else that outcome. Any other exception is a bug the client
    gets a 500 for."""
    status = error.status if isinstance(error, RouterError) else 500
    outcome = refused_outcome(error)
    kind = error_kind(error) if isinstance(error, RouterError) else None
    return {
        "smf.outcome": outcome,
        "http.response.status_code": status,
        "error.type": kind or outcome,
    }


def finish_attributes(reasons: Sequence[str]) -> dict[str, list[str]]:
    """`gen_ai.response.finish_reasons`, one per choice that ended, as the reply said them
    (none when it said none): of a request, a live attempt, a shadow replay, a canary call."""
    return {"gen_ai.response.finish_reasons": list(reasons)} if reasons else {}


def client_status(record: Record) -> int:
    """The HTTP status the client got. A stream that failed once a backend was committed
    ended with an in-band error event after a 200; `record.status` keeps that error's status
    (502, 504, ...) for the ledger, and the span's `error.type` and status say what failed."""
    if record.stream and record.backend is not None:
        return 200
    return record.status


def usage_attributes(usage: Usage | None) -> dict[str, int]:
    """A call's token counts as the GenAI conventions name them (none when it gave none)."""
    if usage is None:
        return {}
    return {
        "gen_ai.usage.input_tokens": usage.prompt_tokens,
        "gen_ai.usage.output_tokens": usage.completion_tokens,
    }


def server_attributes(base_url: str) -> dict[str, str | int]:
    """`server.address` and `server.port` of a backend's URL: its host and port alone (the
    port its scheme implies when it names none), never its user info, path or query, which
    may hold a key. Empty when there is no URL (a litellm backend on its provider's default)
    or it does not parse."""
    try:
        parts = urlsplit(base_url)
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:  # a port out of range or not a number, a broken IPv6 literal
        return {}
    if not parts.hostname:
        return {}
    attrs: dict[str, str | int] = {"server.address": parts.hostname}
    if port is not None:
        attrs["server.port"] = port
    return attrs


def server_addresses(config: Config) -> dict[str, dict[str, str | int]]:
    """`server_attributes` per backend URL, worked out once per config (not per attempt).
    Keyed by URL, not name: a call begun before a reload that re-pointed its backend names
    the server it calls, not the one the name now means (found in review)."""
    return {backend.base_url: server_attributes(backend.base_url) for backend in config.backends}


# litellm's provider prefixes whose provider the GenAI conventions name otherwise: their
# well-known `gen_ai.provider.name` values (GenAiProviderNameValues in
# opentelemetry-semantic-conventions; opentelemetry.io/docs/specs/semconv/registry/attributes/
# gen-ai/). Prefixes that are such values already (openai, anthropic, cohere, deepseek, groq,
# perplexity), or name a provider the conventions do not list, stay as they are.
SEMCONV_PROVIDERS = {
    "azure": "azure.ai.openai",
    "azure_ai": "azure.ai.inference",
    "bedrock": "aws.bedrock",
    "cohere_chat": "cohere",
    "gemini": "gcp.gemini",
    "mistral": "mistral_ai",
    "vertex_ai": "gcp.vertex_ai",
    "watsonx": "ibm.watsonx.ai",
    "xai": "x_ai",
}


def request_model(backend: BackendSettings) -> str:
    """`gen_ai.request.model` of a backend: the model's name at its provider. A litellm
    backend's model without litellm's provider prefix (`echo500` for `openai/echo500`, which
    the span's `gen_ai.provider.name` says), as litellm itself reads it (`model_of`: cached,
    no network); any other backend's as configured, which is what the server is sent."""
    if backend.kind == "litellm":
        return model_of(backend)
    return backend.model


def provider_name(backend: BackendSettings) -> str:
    """`gen_ai.provider.name` of a backend: the conventions' name for the provider litellm
    sends a litellm backend's model to (`provider_of`, the lookup `request_model` reads:
    cached, no network), its prefix only when litellm cannot tell; else a guess by URL. Not
    the prefix first: with `extra_body: {custom_llm_provider: hosted_vllm}`, a model named
    as on Hugging Face (`meta-llama/Llama-3.1-8B-Instruct`) said provider `meta-llama`
    (found in review). Cheap enough per call: a call names the provider of the settings it
    is made with, whatever a reload since did to the backend's name."""
    if backend.kind == "litellm":
        found = provider_of(backend)
        if found is None and "/" in backend.model:
            found = backend.model.split("/", 1)[0]
        if found is not None:
            return SEMCONV_PROVIDERS.get(found, found)
    if "api.openai.com" in backend.base_url:
        return "openai"
    if backend.tier == "local":
        return "vllm"
    return backend.name
