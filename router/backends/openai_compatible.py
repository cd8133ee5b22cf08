"""OpenAI-compatible upstreams (vLLM, OpenAI, anything speaking its wire format) over httpx.

One pooled `AsyncClient` per backend; bodies relayed as bytes as they arrive.
"""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from router.backends.base import PATHS, Reply, prepare_body
from router.config import Backend as BackendSettings
from router.errors import Timeout, Unreachable, UpstreamError
from router.record import Api
from router.upstream_errors import classify_error


class OpenAICompatibleBackend:
    def __init__(
        self, settings: BackendSettings, transport: httpx.AsyncBaseTransport | None = None
    ):
        self.settings = settings
        t = settings.timeouts
        headers = {"content-type": "application/json", **settings.headers}
        if settings.api_key:
            headers["authorization"] = f"Bearer {settings.api_key}"
        self._client = httpx.AsyncClient(
            base_url=settings.base_url.rstrip("/"),
            headers=headers,
            transport=transport,
            timeout=httpx.Timeout(
                connect=t.connect_s, read=t.total_s, write=t.connect_s, pool=t.connect_s
            ),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=256),
        )
        self._stream_timeout = httpx.Timeout(
            connect=t.connect_s,
            read=max(t.first_token_s, t.idle_s),
            write=t.connect_s,
            pool=t.connect_s,
        )

    async def send(
        self, api: Api, body: dict[str, Any], headers: dict[str, str], stream: bool
    ) -> Reply:
        name = self.settings.name
        request = self._client.build_request(
            "POST",
            PATHS[api],
            content=orjson.dumps(prepare_body(self.settings, body)),
            headers=headers,
            timeout=self._stream_timeout if stream else httpx.USE_CLIENT_DEFAULT,
        )
        try:
            response = await self._client.send(request, stream=True)
        except httpx.TimeoutException as exc:
            kind = (
                "timeout"
                if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout)
                else "first_token_timeout"
            )
            raise Timeout(
                f"{name}: no response in time ({type(exc).__name__})", backend=name, kind=kind
            ) from None
        except httpx.TransportError as exc:
            raise Unreachable(f"{name}: {_describe(exc)}", backend=name) from None
        if response.status_code >= 400:
            raw = await _read(response, name)
            raise classify_error(response.status_code, raw, response.headers, name)
        if stream:
            return Reply(
                response.status_code,
                response.headers,
                stream=response.aiter_raw(),
                close=response.aclose,
            )
        raw = await _read(response, name)
        return Reply(response.status_code, response.headers, body=raw)

    async def get(self, path: str, timeout_s: float) -> httpx.Response:
        """A cheap GET against the backend's root (health, models, metrics): no billed call."""
        root = self.settings.base_url.rstrip("/")
        if root.endswith("/v1"):
            root = root[: -len("/v1")]  # paths are given from the server root: /health, /v1/models
        return await self._client.get(root + path, timeout=timeout_s)

    def warm(self) -> None:
        return None

    async def aclose(self) -> None:
        await self._client.aclose()


async def _read(response: httpx.Response, name: str) -> bytes:
    try:
        return await response.aread()
    except httpx.TimeoutException:
        raise Timeout(f"{name}: reply not finished in time", backend=name) from None
    except httpx.TransportError as exc:
        raise Unreachable(f"{name}: {_describe(exc)}", backend=name) from None
    finally:
        await response.aclose()


def _describe(exc: httpx.TransportError) -> str:
    if isinstance(exc, httpx.ConnectError):
        return "connection refused"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "connection closed by upstream"
    if isinstance(exc, httpx.ReadError):
        return "connection reset"
    return type(exc).__name__


__all__ = ["OpenAICompatibleBackend", "UpstreamError"]
