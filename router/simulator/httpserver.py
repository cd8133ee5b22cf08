"""A small HTTP/1.1 server on asyncio + httptools, with the socket in our hands.

Why not uvicorn: the simulator must fail the way real networks fail — a TCP RST with no
response, a request read and never answered, a chunked body cut mid-stream, a port that
refuses connections — and an ASGI server hides the socket behind its own error handling.
httptools (uvicorn's own parser, already a dependency) keeps it fast: one `transport.write`
per response, keep-alive, Content-Length and chunked request and response bodies.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from email.utils import formatdate
from http import HTTPStatus

import httptools

log = logging.getLogger(__name__)


class ClientGone(ConnectionError):
    """The peer closed the connection (or we did) while a response was being written."""


class Request:
    """One parsed request. Header names are lower-case; the body is fully read."""

    __slots__ = ("body", "headers", "method", "path", "query")

    def __init__(self, method: str, url: bytes, headers: dict[str, str], body: bytes) -> None:
        parsed = httptools.parse_url(url)
        self.method = method
        self.path = parsed.path.decode("latin-1")
        self.query = (parsed.query or b"").decode("latin-1")
        self.headers = headers
        self.body = body


Handler = Callable[[Request, "Response"], Awaitable[None]]
_REASONS = {s.value: s.phrase for s in HTTPStatus}
_date_cache: tuple[int, bytes] = (0, b"")


def _date() -> bytes:
    global _date_cache
    now = int(time.time())
    if _date_cache[0] != now:
        _date_cache = (now, formatdate(now, usegmt=True).encode())
    return _date_cache[1]


def _head(status: int, headers: list[tuple[str, str]], extra: bytes) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Unknown')}".encode()]
    lines.append(b"date: " + _date())
    lines.append(b"server: uvicorn")
    lines.extend(f"{k}: {v}".encode("latin-1") for k, v in headers)
    return b"\r\n".join(lines) + b"\r\n" + extra + b"\r\n"


def _chunked(frames: list[bytes]) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(f), f) for f in frames if f)


class Response:
    """Writes one response on a connection: whole, chunked, or deliberately broken."""

    def __init__(self, conn: Connection, keep_alive: bool, head: bool = False) -> None:
        self._conn = conn
        self._base = conn.base_headers
        self.keep_alive = keep_alive
        self._head = head  # a HEAD request: the headers of the reply, never its body
        self.started = False
        self.finished = False

    @property
    def connection(self) -> Connection:
        return self._conn

    def _conn_header(self) -> bytes:
        return b"" if self.keep_alive else b"connection: close\r\n"

    async def send(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        """A complete response with Content-Length (a HEAD gets the length, not the body:
        bytes after it would be read as the next response on the connection)."""
        extra = b"content-length: %d\r\n" % len(body) + self._conn_header()
        self.started = self.finished = True
        await self._conn.write(
            _head(status, headers + self._base, extra) + (b"" if self._head else body)
        )

    async def send_partial(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        """Headers announcing `body` in full, then only the first half of it."""
        extra = b"content-length: %d\r\n" % len(body) + self._conn_header()
        self.started = True
        await self._conn.write(_head(status, headers + self._base, extra) + body[: len(body) // 2])

    async def write(self, data: bytes) -> None:
        """Raw bytes after `send_partial` (the rest of a stalled body)."""
        await self._conn.write(data)
        self.finished = True

    async def start(self, status: int, headers: list[tuple[str, str]]) -> None:
        """Begin a chunked (streamed) response."""
        self.started = True
        extra = b"transfer-encoding: chunked\r\n" + self._conn_header()
        await self._conn.write(_head(status, headers + self._base, extra))

    async def stream_all(
        self, status: int, headers: list[tuple[str, str]], frames: Iterable[bytes], batch: int
    ) -> None:
        """A whole chunked response, each frame its own chunk, `batch` frames a write as they
        are made: a short stream goes out in one write with the head, a long one starts
        before its last frame exists."""
        self.started = True
        extra = b"transfer-encoding: chunked\r\n" + self._conn_header()
        out = _head(status, headers + self._base, extra)
        pending: list[bytes] = []
        for frame in frames:
            pending.append(frame)
            if len(pending) == batch:
                await self._conn.write(out + _chunked(pending))
                out, pending = b"", []
        self.finished = True
        await self._conn.write(out + _chunked(pending) + b"0\r\n\r\n")

    async def chunks(self, frames: list[bytes]) -> None:
        """Send several frames, each as its own HTTP chunk, in one write."""
        await self._conn.write(_chunked(frames))

    async def end(self) -> None:
        self.finished = True
        await self._conn.write(b"0\r\n\r\n")

    def reset(self) -> None:
        """Abort with a TCP RST: SO_LINGER 0, then close. The client gets no HTTP response."""
        self._conn.abort(rst=True)

    def cut(self) -> None:
        """Close the connection (FIN) without finishing the body."""
        self._conn.abort(rst=False)

    async def hang(self) -> None:
        """Never answer: wait until the client (or shutdown) closes the connection."""
        await self._conn.lost


class Connection(asyncio.Protocol):
    """One client connection: parses requests and runs the handler for each, in order."""

    def __init__(
        self,
        handler: Handler,
        registry: set[Connection],
        base_headers: list[tuple[str, str]] | None = None,
    ) -> None:
        self._handler = handler
        self.base_headers = base_headers or []
        self._registry = registry
        self._parser = httptools.HttpRequestParser(self)
        self._queue: deque[tuple[Request, bool]] = deque()
        self._task: asyncio.Task[None] | None = None
        self._writable = asyncio.Event()
        self._writable.set()
        self._url = b""
        self._headers: dict[str, str] = {}
        self._body: list[bytes] = []
        self.transport: asyncio.Transport | None = None
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no subclass
        self._registry.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self._registry.discard(self)
        if not self.lost.done():
            self.lost.set_result(None)
        self._writable.set()
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    def data_received(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError:
            if self.transport is not None:
                self.transport.write(_head(400, [], b"content-length: 0\r\nconnection: close\r\n"))
                self.transport.close()

    def on_message_begin(self) -> None:
        self._url, self._headers, self._body = b"", {}, []

    def on_url(self, url: bytes) -> None:
        self._url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        method = self._parser.get_method().decode("ascii")
        request = Request(method, self._url, self._headers, b"".join(self._body))
        self._queue.append((request, self._parser.should_keep_alive()))
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        with contextlib.suppress(asyncio.CancelledError, ClientGone):
            while self._queue:
                request, keep_alive = self._queue.popleft()
                response = Response(self, keep_alive, request.method == "HEAD")
                await self._serve(request, response)
                if not keep_alive or self.transport is None or self.transport.is_closing():
                    self.abort(rst=False)
                    return

    async def _serve(self, request: Request, response: Response) -> None:
        try:
            await self._handler(request, response)
        except (asyncio.CancelledError, ClientGone):
            raise
        except Exception:
            log.exception("simulator handler failed on %s %s", request.method, request.path)
            if not response.started:
                await response.send(500, [("content-type", "text/plain")], b"simulator bug")
            else:
                self.abort(rst=False)

    async def write(self, data: bytes) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            raise ClientGone("connection closed")
        transport.write(data)
        if not self._writable.is_set():
            await self._writable.wait()

    def abort(self, rst: bool) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if rst:
            sock = transport.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            transport.abort()
        else:
            transport.close()


class HttpServer:
    """Listens on one port; can stop listening (connection refused) and listen again.

    `base_headers` go on every response (vLLM's CORS middleware adds `vary: Origin`).
    """

    def __init__(self, handler: Handler, base_headers: list[tuple[str, str]] | None = None) -> None:
        self._handler = handler
        self._base_headers = base_headers or []
        self.connections: set[Connection] = set()
        self._server: asyncio.Server | None = None
        self._resume_handle: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.host = "127.0.0.1"
        self.port = 0

    async def listen(self, host: str, port: int) -> int:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: Connection(self._handler, self.connections, self._base_headers),
            host,
            port,
            reuse_address=True,
            backlog=1024,
        )
        self.host = host
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    @property
    def listening(self) -> bool:
        return self._server is not None

    async def stop_listening(self, drop_connections: bool, spare: Connection | None = None) -> None:
        """Close the listening socket so new connections are refused, like a dead process.

        Open connections are reset too (except `spare`, the one that asked for this).
        """
        if self._server is not None:
            self._server.close()
            self._server = None
        if drop_connections:
            for conn in list(self.connections):
                if conn is not spare:
                    conn.abort(rst=True)

    async def resume_listening(self) -> None:
        if self._server is None:
            await self.listen(self.host, self.port)

    def resume_later(self, delay_s: float) -> None:
        loop = asyncio.get_running_loop()
        self._resume_handle = loop.call_later(
            delay_s, lambda: self._tasks.add(loop.create_task(self.resume_listening()))
        )

    async def close(self) -> None:
        if self._resume_handle is not None:
            self._resume_handle.cancel()
        await self.stop_listening(drop_connections=True)
