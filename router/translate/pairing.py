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
