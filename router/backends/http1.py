"""A lean HTTP/1.1 client for the upstream hot path: one keep-alive connection on asyncio.

Why not aiohttp: per request it builds a dozen objects (request, payload, writer, stream
reader, timer contexts, tasks); py-spy put the upstream call at ~20 % of the router's CPU,
only a third of that the socket write itself. This client writes one pre-serialised
request, parses with httptools (uvicorn's own C parser, the simulator's too) and hands the
body over as it arrives. It does only what the router needs: POST, Content-Length, chunked
or read-until-close bodies; connecting, TLS and the pool of idle keep-alive connections per
upstream are `router.backends.connection_pool`'s.

A connection goes back to its pool only after its response was read to the end and the
upstream allowed keep-alive; a half-read, failed or timed-out one is closed. An upstream that
closes an idle connection sends a FIN, which drops it from the pool. The client's errors, the
pool's included:

    ConnectionError
    └── UpstreamClosed        closed or reset before the reply was complete (`reset`)
        └── BadReply          bytes that are not HTTP
    TimeoutError
    ├── ConnectTimeout        no TCP (or TLS) connection within the connect timeout
    └── ReadTimeout           no reply (or no next byte, when idle-timed) in time
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Protocol

import httptools

_PAUSE_AT = 256 * 1024  # buffered stream bytes before the socket stops being read
LINGER_S = 0.1  # how long a released stream waits for its chunked terminator


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


class Owner(Protocol):
    """Where a connection reports back (its pool): done with a reply, or gone."""

    def put(self, conn: Connection) -> None: ...

    def forget(self, conn: Connection) -> None: ...


class Connection(asyncio.Protocol):
    """One upstream connection; while busy it is also the response being read.

    Callbacks from the transport and httptools only set flags and wake the one waiter;
    the reading side (`read`, `__anext__`) runs in the request's task.
    """

    def __init__(self, pool: Owner, loop: asyncio.AbstractEventLoop) -> None:
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

    async def read(self, limit: int | None = None) -> bytes:
        """The whole body; or, past `limit` bytes, its first `limit` bytes, the connection
        then closed (the rest is not worth waiting for: an error page of megabytes)."""
        while not self.complete:
            if self.error is not None:
                raise self.error
            if limit is not None and self._buffered > limit:
                self.close()
                break
            await self._wait()
        pieces = self._pieces
        self._pieces = []
        body = pieces[0] if len(pieces) == 1 else b"".join(pieces)
        return body if limit is None else body[:limit]

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
