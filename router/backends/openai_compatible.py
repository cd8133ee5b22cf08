"""OpenAI-compatible upstreams (vLLM, OpenAI, anything speaking its wire format).

One pool of keep-alive HTTP/1.1 connections per backend (`router.backends.connection_pool`
of `router.backends.http1` connections); the request is serialised once into bytes and the
reply relayed as bytes as they arrive.
That lean client replaced aiohttp here: the router's CPU per plain request fell by about a
quarter (py-spy, wrk). httpx stays for everything off the hot path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from evals.redaction import Secrets
from evals.urls import openai_hosted
from router.attempt_errors import Cut, Malformed, Timeout, Unreachable
from router.backends import connection_pool, http1
from router.backends.base import PATHS, Reply, building, prepare_body
from router.config import Backend as BackendSettings
from router.record import Api
from router.upstream_errors import MAX_ERROR_BYTES, classify_error

_IDLE_CONNECTIONS = 256  # kept open per backend when it sets no max_concurrency


class OpenAICompatibleBackend:
    one_choice_only = False  # an OpenAI-compatible server answers the `n` it is asked

    def __init__(self, settings: BackendSettings) -> None:
        self.settings = settings
        t = settings.timeouts
        self._pool = connection_pool.Pool(
            settings.base_url, t.connect_s, settings.max_concurrency or _IDLE_CONNECTIONS
        )
        self._whole_s = t.total_s
        self._gap_s = max(t.first_token_s, t.idle_s)
        headers = {
            "host": self._pool.host_header,
            "accept": "*/*",
            "user-agent": "smf-router",
            "content-type": "application/json",
            **settings.sent_headers(),  # as the health probes send them
        }
        self._headers = headers
        self._heads = {api: _head(self._path(api), headers) for api in PATHS}
        self._renames_max_tokens = openai_hosted(settings.base_url)
        self._secrets = Secrets(settings.secret_values())

    def body_for(self, api: Api, body: dict[str, Any]) -> dict[str, Any]:
        """What this backend is sent: `prepare_body`, and on OpenAI's own API chat's
        `max_tokens` under its current name, also beside a `max_completion_tokens: null`,
        which is unset (`request_size.output_limit`): both went on, and OpenAI's reasoning
        models refuse `max_tokens` (found in review). Beside a number there, `max_tokens`
        goes: the window check reads `max_completion_tokens` then, and so does OpenAI."""
        out = prepare_body(self.settings, body, api)
        if self._renames_max_tokens and api == "chat" and "max_tokens" in out:
            max_tokens = out.pop("max_tokens")
            if out.get("max_completion_tokens") is None:
                out["max_completion_tokens"] = max_tokens
        return out

    def _path(self, api: Api) -> str:
        return self._pool.target(PATHS[api])

    async def send(
        self, api: Api, body: dict[str, Any], headers: dict[str, str], stream: bool
    ) -> Reply:
        name = self.settings.name
        with building(name):
            request = self._request(api, body, headers)
        # Streams are timed per gap between bytes, whole replies end to end.
        if stream:
            conn = await self._open(request, self._gap_s, idle_timed=True)
        else:
            conn = await self._open(request, self._whole_s, idle_timed=False)
        if conn.status >= 400:
            raw = await _read(conn, name, MAX_ERROR_BYTES + 1)  # one more: was it cut?
            stored = body.get("previous_response_id") is not None
            truncated = len(raw) > MAX_ERROR_BYTES
            raise classify_error(
                conn.status,
                raw[:MAX_ERROR_BYTES],
                conn.headers,
                name,
                stored,
                self._secrets,
                truncated=truncated,
            )
        if stream:
            return Reply(conn.status, conn.headers, stream=conn.stream(), close=conn.finish)
        return Reply(conn.status, conn.headers, body=await _read(conn, name))

    def _request(self, api: Api, body: dict[str, Any], headers: dict[str, str]) -> bytes:
        """The whole HTTP request for `body`: request line, headers and serialised body."""
        payload = orjson.dumps(self.body_for(api, body))
        head = self._heads[api]
        if headers:
            extra = {k.lower(): v for k, v in headers.items()}
            head = _head(self._path(api), {**self._headers, **extra})
        return b"%scontent-length: %d\r\n\r\n%s" % (head, len(payload), payload)

    async def post(
        self, path: str, payload: bytes, headers: Mapping[str, str], limit_s: float
    ) -> tuple[int, bytes]:
        """One JSON POST to another endpoint of this backend (`/messages/count_tokens`), on
        the same pooled connections; status and body whatever the status."""
        extra = {k.lower(): v for k, v in headers.items()}
        head = _head(self._pool.target(path), {**self._headers, **extra})
        request = b"%scontent-length: %d\r\n\r\n%s" % (head, len(payload), payload)
        conn = await self._open(request, limit_s, idle_timed=False)
        return conn.status, await _read(conn, self.settings.name)

    async def _open(self, request: bytes, limit_s: float, idle_timed: bool) -> http1.Connection:
        """Send `request` and wait for the reply's head; transport failures as UpstreamErrors."""
        name = self.settings.name
        try:
            return await self._pool.open(request, limit_s, idle_timed=idle_timed)
        except http1.ConnectTimeout:
            raise Timeout(f"{name}: no response in time", backend=name, kind="timeout") from None
        except http1.ReadTimeout:
            raise Timeout(
                f"{name}: no response in time", backend=name, kind="first_token_timeout"
            ) from None
        except http1.BadReply:
            raise Malformed(f"{name}: the reply is not HTTP", backend=name) from None
        except http1.UpstreamClosed as exc:
            why = "connection reset" if exc.reset else "connection closed by upstream"
            raise Unreachable(f"{name}: {why}", backend=name) from None
        except OSError:
            raise Unreachable(f"{name}: connection refused", backend=name) from None

    def secret_values(self) -> Secrets:
        """What its errors are cleaned of: its settings' secrets (`Backend.secret_values`),
        as they were when it was made, which is when its headers were."""
        return self._secrets

    def warm(self) -> None:
        if self._pool.secure:
            connection_pool.tls_context()  # loading the CA store is slow: not on the first request

    def retire(self) -> None:
        self._pool.retire()

    async def aclose(self) -> None:
        await self._pool.aclose()


def _head(path: str, headers: Mapping[str, str]) -> bytes:
    """The request line and headers, without Content-Length and the blank line."""
    lines = [f"POST {path} HTTP/1.1"]
    for key, value in headers.items():
        if "\r" in value or "\n" in value or "\r" in key or "\n" in key:
            raise ValueError(f"header {key!r} holds a line break")
        lines.append(f"{key}: {value}")
    return ("\r\n".join(lines) + "\r\n").encode("latin-1")


async def _read(conn: http1.Connection, name: str, limit: int | None = None) -> bytes:
    """The reply's body. A body that broke off keeps the status its head said (a 200, a
    500) for the attempt's record (`router.dispatch`); a timeout records none."""
    error: Cut | Malformed
    try:
        return await conn.read(limit)
    except http1.ReadTimeout:
        raise Timeout(f"{name}: reply not finished in time", backend=name) from None
    except http1.BadReply:
        error = Malformed(f"{name}: the reply is not HTTP", backend=name)
    except http1.UpstreamClosed:
        error = Cut(f"{name}: reply cut mid-body", backend=name)
    finally:
        conn.release()  # to the pool when read to the end, else closed
    error.upstream_status = conn.status
    raise error from None
