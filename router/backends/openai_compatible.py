"""OpenAI-compatible upstreams (vLLM, OpenAI, anything speaking its wire format) over aiohttp.

One pooled `ClientSession` per backend; bodies relayed as bytes as they arrive. aiohttp
rather than httpx on this path: its C HTTP parser made the upstream call the cheaper half
of the router's CPU per request instead of the dearer one (profiled with py-spy; numbers
in docs/benchmarks.md). httpx stays for everything off the hot path.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import orjson

from router.backends.base import PATHS, Reply, prepare_body
from router.config import Backend as BackendSettings
from router.errors import Timeout, Unreachable
from router.record import Api
from router.upstream_errors import classify_error


class OpenAICompatibleBackend:
    def __init__(self, settings: BackendSettings) -> None:
        self.settings = settings
        self._root = settings.base_url.rstrip("/")
        self._headers = {"content-type": "application/json", **settings.headers}
        if settings.api_key:
            self._headers["authorization"] = f"Bearer {settings.api_key}"
        t = settings.timeouts
        self._whole_timeout = aiohttp.ClientTimeout(total=t.total_s, sock_connect=t.connect_s)
        self._stream_timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=t.connect_s, sock_read=max(t.first_token_s, t.idle_s)
        )
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        # Created on first use: a session belongs to the event loop that serves requests.
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=30, ttl_dns_cache=60)
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, trust_env=False
            )
        return self._session

    async def send(
        self, api: Api, body: dict[str, Any], headers: dict[str, str], stream: bool
    ) -> Reply:
        name = self.settings.name
        payload = orjson.dumps(prepare_body(self.settings, body))
        timeout = self._stream_timeout if stream else self._whole_timeout
        try:
            response = await self._client().post(
                self._root + PATHS[api], data=payload, headers=headers or None, timeout=timeout
            )
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
            kind = (
                "timeout"
                if isinstance(exc, aiohttp.ConnectionTimeoutError)
                else "first_token_timeout"
            )
            raise Timeout(f"{name}: no response in time", backend=name, kind=kind) from None
        except aiohttp.ClientError as exc:
            raise Unreachable(f"{name}: {_describe(exc)}", backend=name) from None
        if response.status >= 400:
            raw = await _read(response, name)
            raise classify_error(response.status, raw, response.headers, name)
        if stream:
            return Reply(
                response.status, response.headers, stream=_pieces(response), close=_closer(response)
            )
        raw = await _read(response, name)
        return Reply(response.status, response.headers, body=raw)

    def warm(self) -> None:
        return None

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


async def _pieces(response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    async for piece in response.content.iter_any():
        yield piece


def _closer(response: aiohttp.ClientResponse) -> Any:
    async def close() -> None:
        response.release()  # back to the pool if fully read, else the connection is dropped

    return close


async def _read(response: aiohttp.ClientResponse, name: str) -> bytes:
    try:
        return await response.read()
    except (TimeoutError, aiohttp.ServerTimeoutError):
        raise Timeout(f"{name}: reply not finished in time", backend=name) from None
    except aiohttp.ClientError as exc:
        raise Unreachable(f"{name}: {_describe(exc)}", backend=name) from None
    finally:
        response.release()


def _describe(exc: aiohttp.ClientError) -> str:
    if isinstance(exc, aiohttp.ClientConnectorError):
        return "connection refused"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "connection closed by upstream"
    if isinstance(exc, aiohttp.ClientPayloadError):
        return "reply cut mid-body"
    if isinstance(exc, aiohttp.ClientOSError):
        return "connection reset"
    return type(exc).__name__
