"""Which backend can serve which API, natively or through chat translation. Pure."""

from __future__ import annotations

from typing import TYPE_CHECKING

from router.record import Api

if TYPE_CHECKING:  # `router.config_checks` imports this module: no import cycle at run time
    from router.config_backend import Backend as BackendSettings

TRANSLATED: frozenset[str] = frozenset({"messages", "responses"})
"""The APIs the router can serve from a chat-speaking backend by translation."""


def native(api: Api, settings: BackendSettings) -> bool:
    """The backend speaks `api` itself (litellm backends speak chat whatever `apis` says)."""
    return api in settings.apis or (api == "chat" and settings.kind == "litellm")


def can_serve(api: Api, settings: BackendSettings) -> bool:
    return native(api, settings) or (api in TRANSLATED and native("chat", settings))


def anthropic_own(settings: BackendSettings) -> bool:
    """Whether a backend is taken for Anthropic's own API: one that speaks Messages only
    (`kind: openai`, `apis: [messages]`), as docs/agents/backends.md configures it and as `config
    check` reads it (`router.config_warnings`). Any other backend that speaks Messages (vLLM,
    declared with chat beside it) serves it over its chat engine: it runs no server tools
    and takes at most 4 stop sequences (vLLM refuses a body with either)."""
    return settings.kind == "openai" and set(settings.apis) == {"messages"}
