"""Keep-alive HTTP/1.1 connections to one upstream origin: reuse, connect (TLS), one resend.

The pool hands out an idle connection that is still fresh and open, else connects a new one
(`router.backends.http1.Connection`, whose errors these are too), and keeps at most
`max_idle` connections that were read to the end. An upstream that closes an idle connection
sends a FIN, which drops it from the pool; when that close crosses our next request on the
wire, the request never reached the server, so it is sent once more on a new connection (a
reused connection, closed cleanly before a single reply byte). A reset is never resent: that
is how a server that fails on the request itself looks.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from urllib.parse import urlsplit

from evals import urls
from router.backends.http1 import Connection, ConnectTimeout, UpstreamClosed

# An idle connection older than this is not reused: under the 60 s idle timeout of common
# load balancers, so a cloud backend keeps its TLS session between an agent's turns. Servers
# that close sooner (uvicorn and vLLM after 5 s) say so with a FIN, and the one race that
# leaves (their close crossing our request) is resent, see the module docstring.
_KEEPALIVE_S = 30.0
_ssl_context: ssl.SSLContext | None = None


def tls_context() -> ssl.SSLContext:
    """The system's default verifying context, built once (loading CAs takes ~10 ms)."""
    global _ssl_context
    if _ssl_context is None:
        _ssl_context = ssl.create_default_context()
    return _ssl_context


class Pool:
    """Keep-alive connections to one origin (scheme, host, port), at most `max_idle` idle."""

    def __init__(self, base_url: str, connect_timeout: float, max_idle: int) -> None:
        parts = urlsplit(base_url)
        secure = parts.scheme == "https"
        self.host = parts.hostname or "localhost"
        self.port = parts.port or (443 if secure else 80)
        self.secure = secure
        default_port = parts.port is None or parts.port == (443 if secure else 80)
        name = f"[{self.host}]" if ":" in self.host else self.host
        self.host_header = name if default_port else f"{name}:{self.port}"
        self.prefix = parts.path.rstrip("/")
        self.query = parts.query  # on every request: Azure's `?api-version=...`
        self.connect_timeout = connect_timeout
        self.max_idle = max_idle
        self._idle: list[Connection] = []
        self._open: set[Connection] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

    def target(self, path: str) -> str:
        """The request target for `path` under the base URL, the base's query first."""
        return urls.target(self.prefix, self.query, path)

    async def open(self, request: bytes, limit_s: float, idle_timed: bool) -> Connection:
        """Send `request` on a pooled or new connection; return once headers arrived.

        `limit_s` bounds the whole reply, or each gap between bytes when `idle_timed`.
        """
        conn = await self._acquire()
        try:
            return await self._exchange(conn, request, limit_s, idle_timed)
        except UpstreamClosed as closed:
            if not (conn.reused and conn.silent and not closed.reset):
                raise
        # the server closed this idle connection as the request went out: it never arrived
        return await self._exchange(await self._new(), request, limit_s, idle_timed)

    @staticmethod
    async def _exchange(
        conn: Connection, request: bytes, limit_s: float, idle_timed: bool
    ) -> Connection:
        conn.start(request, limit_s, idle_timed)
        try:
            await conn.response()
        except BaseException:
            conn.close()
            raise
        return conn

    def put(self, conn: Connection) -> None:
        if len(self._idle) >= self.max_idle or conn.loop is not self.loop:
            conn.close()
            return
        conn.idle_since = conn.loop.time()
        self._idle.append(conn)

    def forget(self, conn: Connection) -> None:
        self._open.discard(conn)

    async def _acquire(self) -> Connection:
        loop = asyncio.get_running_loop()
        if loop is not self.loop:  # connections belong to the loop that opened them
            self.loop, self._idle = loop, []
        idle = self._idle
        now = loop.time()
        while idle:
            conn = idle.pop()
            transport = conn.transport
            fresh = now - conn.idle_since < _KEEPALIVE_S
            if fresh and not conn.closed and transport is not None and not transport.is_closing():
                conn.reused = True
                return conn
            conn.close()
        return await self._new()

    async def _new(self) -> Connection:
        conn = await self._connect(asyncio.get_running_loop())
        self._open.add(conn)
        return conn

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> Connection:
        deadline = asyncio.timeout(self.connect_timeout)
        try:
            async with deadline:
                _, conn = await loop.create_connection(
                    lambda: Connection(self, loop),
                    self.host,
                    self.port,
                    ssl=tls_context() if self.secure else None,
                    server_hostname=self.host if self.secure else None,
                )
        except TimeoutError:
            if deadline.expired():
                raise ConnectTimeout("no connection in time") from None
            raise
        return conn

    def retire(self) -> None:
        """No request will start here again: close the idle connections now, and each busy
        one when its reply is done (`put` keeps none)."""
        self.max_idle = 0
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    async def aclose(self) -> None:
        """Close every connection, idle or busy; a busy one's reader gets `UpstreamClosed`."""
        for conn in [*self._idle, *self._open]:
            with contextlib.suppress(RuntimeError):  # a loop that is already closed
                conn.close()
        self._idle, self._open = [], set()
