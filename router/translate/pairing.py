"""Which backend can serve which API, natively or through chat translation. Pure."""

from __future__ import annotations

from router.config import Backend as BackendSettings
from router.record import Api

TRANSLATED: frozenset[str] = frozenset({"messages", "responses"})
"""The APIs the router can serve from a chat-speaking backend by translation."""


def native(api: Api, settings: BackendSettings) -> bool:
    """The backend speaks `api` itself (litellm backends speak chat whatever `apis` says)."""
    return api in settings.apis or (api == "chat" and settings.kind == "litellm")


def can_serve(api: Api, settings: BackendSettings) -> bool:
    return native(api, settings) or (api in TRANSLATED and native("chat", settings))
