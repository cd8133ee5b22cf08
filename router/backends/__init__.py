"""Backends: how the router talks to upstreams."""

from __future__ import annotations

from router.backends.base import Backend, Reply
from router.config import Backend as BackendSettings
from router.config import Config


def check(config: Config) -> None:
    """What only a backend's adapter can check (a ConfigError), before any is built for
    `serve` or a reload: litellm is imported only when a litellm backend is configured."""
    for index, settings in enumerate(config.backends):
        if settings.kind == "litellm":
            from router.backends.litellm import check_model

            check_model(settings, config.field_name("backends", index, "model"))


def create(settings: BackendSettings) -> Backend:
    """The adapter for a backend's `kind`; litellm is imported only when one is configured."""
    if settings.kind == "litellm":
        from router.backends.litellm import LiteLLMBackend

        backend: Backend = LiteLLMBackend(settings)
        return backend
    from router.backends.openai_compatible import OpenAICompatibleBackend

    return OpenAICompatibleBackend(settings)


__all__ = ["Backend", "Reply", "check", "create"]
