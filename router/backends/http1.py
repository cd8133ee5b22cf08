"""A lean HTTP/1.1 client for the upstream hot path: keep-alive connections on asyncio.

Why not aiohttp: per request it builds a dozen objects (request, payload, writer, stream
reader, timer contexts, tasks); py-spy put the upstream call at ~20 % of the router's CPU,
only a third of that the socket write itself. This client writes one pre-serialised
request, parses with httptools (uvicorn's own C parser, the simulator's too) and hands the
body over as it arrives. It does only what the router needs: POST, Content-Length, chunked
or read-until-close bodies, TLS, a pool of idle keep-alive connections per upstream.

A connection goes back to the pool only after its response was read to the end and the
upstream allowed keep-alive; a half-read, failed or timed-out one is closed. An upstream that
closes an idle connection sends a FIN, which drops it from the pool; when that close crosses
our next request on the wire, the request never reached the server, so it is sent once more
on a new connection (a reused connection, closed cleanly before a single reply byte). A
reset is never resent: that is how a server that fails on the request itself looks.

    ConnectionError
    └── UpstreamClosed        closed or reset before the reply was complete (`reset`)
        └── BadReply          bytes that are not HTTP
    TimeoutError
    ├── ConnectTimeout        no TCP (or TLS) connection within the connect timeout
    └── ReadTimeout           no reply (or no next byte, when idle-timed) in time
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import httptools

_PAUSE_AT = 256 * 1024  # buffered stream bytes before the socket stops being read
LINGER_S = 0.1  # how long a released stream waits for its chunked terminator
# An idle connection older than this is not reused: under the 60 s idle timeout of common
# load balancers, so a cloud backend keeps its TLS session between an agent's turns. Servers
# that close sooner (uvicorn and vLLM after 5 s) say so with a FIN, and the one race that
# leaves (their close crossing our request) is resent, see the module docstring.
_KEEPALIVE_S = 30.0
_ssl_context: ssl.SSLContext | None = None


class UpstreamClosed(ConnectionError):
    """The upstream closed (`reset` False) or reset the connection mid-reply."""

    def __init__(self, message: str, *, reset: bool = False) -> None:
        super().__init__(message)
        self.reset = reset


class BadReply(UpstreamClosed):
    """The upstream sent bytes that do not parse as an HTTP/1.1 response."""


class ConnectTimeout(TimeoutError):
    """No connection within the connect timeout."""


class ReadTimeout(TimeoutError):
    """No reply, or no further byte when the exchange is idle-timed, in time."""


def tls_context() -> ssl.SSLContext:
    """The system's default verifying context, built once (loading CAs takes ~10 ms)."""
    global _ssl_context
    if _ssl_context is None:
        _ssl_context = ssl.create_default_context()
    return _ssl_context


class Connection(asyncio.Protocol):
    """One upstream connection; while busy it is also the response being read.

    Callbacks from the transport and httptools only set flags and wake the one waiter;
    the reading side (`read`, `__anext__`) runs in the request's task.
    """

    def __init__(self, pool: Pool, loop: asyncio.AbstractEventLoop) -> None:
        self._pool = pool
        self.loop = loop
        self._parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self.status = 0
        self.headers: dict[str, str] = {}
        self._pieces: list[bytes] = []
        self._buffered = 0
        self._paused = False
        self._streaming = False
        self.headers_done = False
        self.complete = False
        self._keep_alive = False
        self._until_eof = False
        self.error: Exception | None = None
        self.closed = False
        self.busy = False
        self.idle_since = 0.0
        self._waiter: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._limit = 0.0
        self._idle_timed = False
        self._last_read = 0.0
        self.reused = False  # taken from the idle pool rather than freshly connected
        self.silent = True  # not one byte arrived since the current request was sent
        self._lingering = False  # released at its last event, waiting for the terminator

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no subclass

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._pool.forget(self)
        if self.busy and not self.complete and self.error is None:
            if self.headers_done and self._until_eof:
                self.complete = True  # a body without length ends when the connection does
            elif exc is not None:
                self.error = UpstreamClosed("connection reset", reset=True)
            else:
                self.error = UpstreamClosed("connection closed by upstream")
        self._wake()

    def data_received(self, data: bytes) -> None:
        if not self.busy:  # nothing may arrive between replies: the connection is unusable
            self.close()
            return
        self._last_read = self.loop.time()
        self.silent = False
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError:
            if not self.complete:
                self.error = BadReply("the reply is not HTTP/1.1")
            self.close()
            self._wake()

    # httptools callbacks

    def on_message_begin(self) -> None:
        if self.complete:  # a second reply to one request: stop parsing, drop the connection
            raise BadReply("more than one reply")
        self.headers = {}

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        if status < 200:
            return  # an informational reply (100 Continue): the real one follows
        self.status = status
        self.headers_done = True
        headers = self.headers
        self._until_eof = (
            "content-length" not in headers
            and "chunked" not in headers.get("transfer-encoding", "").lower()
            and status not in (204, 304)
        )
        self._wake()

    def on_body(self, body: bytes) -> None:
        if self._lingering:  # more of an answer nobody reads: not just its terminator
            self.close()
            return
        self._pieces.append(body)
        self._buffered += len(body)
        if self._streaming and self._buffered > _PAUSE_AT and not self._paused:
            self._paused = True
            if self.transport is not None:
                self.transport.pause_reading()
        self._wake()

    def on_message_complete(self) -> None:
        if self.headers_done:
            # Asked here: httptools forgets the answer once the callback returns.
            self._keep_alive = self._parser.should_keep_alive()
            self.complete = True
            self._wake()
            if self._lingering:  # the terminator of a released stream: pool it now
                self._cancel_timer()
                self.loop.call_soon(self._settle)

    # the request's side

    def start(self, request: bytes, limit_s: float, idle_timed: bool) -> None:
        """Send one request; `limit_s` bounds the whole reply, or each gap if `idle_timed`."""
        assert self.transport is not None
        self.busy = True
        self.status, self.headers, self._pieces, self._buffered = 0, {}, [], 0
        self.headers_done = self.complete = self._until_eof = self._streaming = False
        self._keep_alive = False
        self.error = None
        self.silent = True
        now = self.loop.time()
        self._limit, self._idle_timed, self._last_read = limit_s, idle_timed, now
        self._timer = self.loop.call_at(now + limit_s, self._on_timer)
        self.transport.write(request)

    async def response(self) -> None:
        """Wait for the status line and headers."""
        while not self.headers_done:
            if self.error is not None:
                raise self.error
            await self._wait()

    async def read(self) -> bytes:
        """The whole body."""
        while not self.complete:
            if self.error is not None:
                raise self.error
            await self._wait()
        pieces = self._pieces
        self._pieces = []
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def stream(self) -> AsyncIterator[bytes]:
        """The body as it arrives: everything buffered so far, each time."""
        self._streaming = True
        return self

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        # A class, not an async generator: an abandoned generator costs a finaliser task.
        while True:
            pieces = self._pieces
            if pieces:
                self._pieces, self._buffered = [], 0
                if self._paused and self.transport is not None:
                    self._paused = False
                    self.transport.resume_reading()
                return pieces[0] if len(pieces) == 1 else b"".join(pieces)
            if self.complete:
                raise StopAsyncIteration
            if self.error is not None:
                raise self.error
            await self._wait()

    async def finish(self) -> None:
        """`release`, as the awaitable a streamed `Reply` closes with."""
        self.release()

    def release(self) -> None:
        """Back to the pool if the reply was read to its end and keep-alive holds; else close.

        A stream released at its last event (the relay stops at `[DONE]`) usually has its
        chunked terminator still on the way: uvicorn writes it separately. It lingers up to
        `LINGER_S` for it instead of being closed, or every streamed turn would pay a new
        connection (and TLS handshake)."""
        if not self.busy or self._lingering:
            return
        self._cancel_timer()
        if self._may_still_end():
            self._lingering = True
            if self._paused and self.transport is not None:
                self._paused = False
                self.transport.resume_reading()
            self._timer = self.loop.call_later(LINGER_S, self._end_linger)
            return
        self._settle()

    def _may_still_end(self) -> bool:
        return (
            self.headers_done
            and not self.complete
            and self.error is None
            and not self.closed
            and not self._until_eof
            and not self._pieces
        )

    def _settle(self) -> None:
        self.busy = self._lingering = False
        if (
            self.complete
            and not self._pieces
            and not self.closed
            and not self._until_eof
            and self._keep_alive
        ):
            self._pool.put(self)
        else:
            self.close()

    def _end_linger(self) -> None:
        self._timer = None
        self._settle()

    def close(self) -> None:
        self._cancel_timer()
        if self.busy and not self._lingering and not self.complete and self.error is None:
            # Closed under its reader (`Pool.aclose`): `connection_lost` will not see it busy,
            # so without an error here the reader waited for bytes that could never come.
            self.error = UpstreamClosed("connection closed by the router")
            self._wake()
        self.busy = self._lingering = False
        if self.transport is not None and not self.closed:
            self.closed = True
            self.transport.close()

    async def _wait(self) -> None:
        waiter = self._waiter = self.loop.create_future()
        try:
            await waiter
        finally:
            self._waiter = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _on_timer(self) -> None:
        # One timer per exchange: when idle-timed, it re-arms from the last byte instead
        # of being replaced on every read.
        self._timer = None
        if self.complete or self.error is not None or not self.busy:
            return
        if self._paused:  # we stopped reading (a slow client), not the upstream
            self._last_read = self.loop.time()
        if self._idle_timed:
            due = self._last_read + self._limit
            if due > self.loop.time():
                self._timer = self.loop.call_at(due, self._on_timer)
                return
        self.error = ReadTimeout("no reply in time")
        self._cancel_timer()
        if self.transport is not None and not self.closed:
            self.closed = True
            self.transport.close()
        self._wake()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


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
        self.connect_timeout = connect_timeout
        self.max_idle = max_idle
        self._idle: list[Connection] = []
        self._open: set[Connection] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

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
