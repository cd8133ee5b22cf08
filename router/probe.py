"""Probing a backend: one cheap GET of its health path (vLLM `/health`) or `/v1/models`,
never a billed completion, and the server root and headers it (and a capacity read) uses.

Its own module because it is the I/O edge: `router.health` judges backends from what it is
told (an attempt's end, a probe's verdict) on a clock it is given, and reads no network; a
probe's answer is one thing it is told (`router.resilience`).
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import httpx

from evals.urls import joined
from router.config import Backend as BackendSettings


def root_of(settings: BackendSettings) -> str:
    """The server root: vLLM serves `/health` and `/metrics` beside `/v1`, not under it.
    The base URL's query stays (`evals.urls.joined` puts a path before it)."""
    parts = urlsplit(settings.base_url)
    path = parts.path.rstrip("/")
    path = path.removesuffix("/v1")
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def auth_headers(settings: BackendSettings) -> dict[str, str]:
    """What a probe or capacity read sends: what every request sends (`sent_headers`)."""
    return settings.sent_headers()


def can_probe(settings: BackendSettings) -> bool:
    return bool(settings.base_url)


async def probe(
    client: httpx.AsyncClient, settings: BackendSettings, use_health: bool, timeout_s: float
) -> tuple[bool, bool]:
    """One cheap GET. Returns (up, whether the health path exists there).

    vLLM's `/health` is 200 when fine and 503 when the engine is dead; a refused connection
    means down or still loading. A cloud API has no `/health` (404): then `/v1/models`,
    which is free. Other 4xx (401, 429) come from a server that is up.
    """
    headers = auth_headers(settings)
    try:
        if use_health:
            url = joined(root_of(settings), settings.health_path)
            response = await client.get(url, headers=headers, timeout=timeout_s)
            if response.status_code != 404:
                return response.status_code < 500, True
        url = joined(settings.base_url, "/models")
        response = await client.get(url, headers=headers, timeout=timeout_s)
    except httpx.HTTPError:
        return False, use_health
    return response.status_code < 500, False
