"""The lean upstream client: framing, keep-alive reuse, and every way a reply can fail."""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from router.backends import connection_pool, http1

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
BODY = b'{"ok": true}'
# Connect time is not what these tests measure: generous, so a busy CI machine that stalls
# the event loop for a moment fails no test (a 1 s limit once did, on a local connect).
CONNECT_S = 10.0


class Upstream:
    """A scripted server: each connection runs `script` once per request it reads."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.connections = 0
        self.requests: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                self.requests.append(head + await reader.readexactly(length))
                await self.script(reader, writer)
                if writer.is_closing():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return

    @property
    def url(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"


Start = Callable[[Script], Awaitable[Upstream]]


@pytest.fixture
async def upstream() -> AsyncIterator[Start]:
    servers: list[asyncio.Server] = []

    async def start(script: Script) -> Upstream:
        up = Upstream(script)
        up.server = await asyncio.start_server(up._serve, "127.0.0.1", 0)
        servers.append(up.server)
        return up

    yield start
    for server in servers:
        server.close()


def _request(body: bytes = b"{}") -> bytes:
    return b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: %d\r\n\r\n%s" % (
        len(body),
        body,
    )


def _then_close(raw: bytes) -> Script:
    """Send `raw`, then close the connection (FIN)."""

    async def script(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(raw)
        await writer.drain()
        writer.close()

    return script


def _whole(extra: bytes = b"") -> Script:
    async def script(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n%s\r\n%s" % (len(BODY), extra, BODY)
        )
        if extra:
            await writer.drain()
            writer.close()

    return script


async def test_a_whole_reply_is_read_and_its_connection_reused(upstream: Start) -> None:
    up = await upstream(_whole())
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    for _ in range(3):
        conn = await pool.open(_request(), 5.0, idle_timed=False)
        assert conn.status == 200 and conn.headers["content-length"] == str(len(BODY))
        assert await conn.read() == BODY
        conn.release()
    assert up.connections == 1 and len(up.requests) == 3
    assert up.requests[0].endswith(b"\r\n\r\n{}")
    await pool.aclose()


async def test_an_idle_connection_past_the_keepalive_cap_is_not_reused(
    upstream: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    up = await upstream(_whole())
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    monkeypatch.setattr(connection_pool, "_KEEPALIVE_S", 0.05)
    for _ in range(2):
        conn = await pool.open(_request(), 5.0, idle_timed=False)
        assert await conn.read() == BODY
        conn.release()
        await asyncio.sleep(0.1)  # idle longer than the cap
    assert up.connections == 2 and len(up.requests) == 2
    await pool.aclose()


async def test_connection_close_from_upstream_is_honoured(upstream: Start) -> None:
    up = await upstream(_whole(b"connection: close\r\n"))
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    for _ in range(2):
        conn = await pool.open(_request(), 5.0, idle_timed=False)
        assert await conn.read() == BODY
        conn.release()
    assert up.connections == 2
    await pool.aclose()


async def test_a_chunked_stream_arrives_in_pieces_then_the_connection_is_reused(
    upstream: Start,
) -> None:
    async def script(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        for part in (b"data: 1\n\n", b"data: 2\n\n"):
            writer.write(b"%x\r\n%s\r\n" % (len(part), part))
            await writer.drain()
            await asyncio.sleep(0.02)
        writer.write(b"0\r\n\r\n")

    up = await upstream(script)
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    for _ in range(2):
        conn = await pool.open(_request(), 5.0, idle_timed=True)
        pieces = [piece async for piece in conn.stream()]
        assert len(pieces) == 2 and b"".join(pieces) == b"data: 1\n\ndata: 2\n\n"
        await conn.finish()
    assert up.connections == 1
    await pool.aclose()


async def test_a_body_without_length_ends_with_the_connection(upstream: Start) -> None:
    up = await upstream(_then_close(b"HTTP/1.1 200 OK\r\n\r\n" + BODY))
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    conn = await pool.open(_request(), 5.0, idle_timed=False)
    assert await conn.read() == BODY
    conn.release()
    assert not pool._idle
    await pool.aclose()


async def test_a_half_read_stream_is_closed_not_reused(upstream: Start) -> None:
    async def script(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n")
        await writer.drain()
        await asyncio.sleep(2)
        writer.write(b"0\r\n\r\n")

    up = await upstream(script)
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    conn = await pool.open(_request(), 5.0, idle_timed=True)
    assert await conn.stream().__anext__() == b"hello"
    await conn.finish()
    assert not pool._idle
    await _until(lambda: conn.closed)  # after lingering for a terminator that did not come
    assert not pool._idle
    await pool.aclose()


async def test_a_stream_released_at_its_last_event_is_reused_when_its_end_follows(
    upstream: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    """uvicorn (vLLM's server) writes the chunked terminator apart from the last event, and
    the relay releases the stream at `[DONE]`: closing it then cost every streamed turn a
    new connection (9 connections for 10 turns with a 5 ms gap, found in review). The
    terminator is sent on cue, after the release, and the linger is long: a 20 ms sleep
    against the 0.1 s linger raced a paused runner (or ended before the release)."""
    monkeypatch.setattr(http1, "LINGER_S", 30.0)
    done, released = b"data: [DONE]\n\n", asyncio.Event()

    async def script(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
        writer.write(head + b"%x\r\n%s\r\n" % (len(done), done))
        await writer.drain()
        await released.wait()
        writer.write(b"0\r\n\r\n")

    up = await upstream(script)
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    conn = await pool.open(_request(), 5.0, idle_timed=True)
    assert await conn.stream().__anext__() == done
    await conn.finish()  # at [DONE], before the terminator
    assert not pool._idle and not conn.closed  # lingering for the terminator
    released.set()
    await _until(lambda: bool(pool._idle) or conn.closed)
    assert pool._idle and not conn.closed
    await pool.aclose()


async def _until(check: Callable[[], bool], limit_s: float = 5.0) -> None:
    """Poll `check` (a hang guard, not a speed test)."""
    for _ in range(int(limit_s / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)


async def test_a_body_cut_short_raises_upstream_closed(upstream: Start) -> None:
    up = await upstream(_then_close(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n" + BODY))
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    conn = await pool.open(_request(), 5.0, idle_timed=False)
    with pytest.raises(http1.UpstreamClosed):
        await conn.read()
    conn.release()
    assert not pool._idle
    await pool.aclose()


async def test_a_reset_before_the_reply_is_a_reset(upstream: Start) -> None:
    async def script(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()

    up = await upstream(script)
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    with pytest.raises(http1.UpstreamClosed) as caught:
        await pool.open(_request(), 5.0, idle_timed=False)
    assert caught.value.reset
    await pool.aclose()


def _second_request_closes(rst: bool) -> Script:
    """Answer a connection's first request; close it on its second without a byte of reply,
    as a server does when its idle-timeout close crosses the client's next request."""
    served: set[asyncio.StreamWriter] = set()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if writer not in served:
            served.add(writer)
            await _whole()(reader, writer)
            return
        if rst:
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
        else:
            writer.close()

    return script


async def test_a_reused_connection_closed_as_the_request_went_out_is_resent_once(
    upstream: Start,
) -> None:
    up = await upstream(_second_request_closes(rst=False))
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    for _ in range(2):
        conn = await pool.open(_request(), 5.0, idle_timed=False)
        assert await conn.read() == BODY
        conn.release()
    # first reply; the second request on that connection got a FIN; resent on a new one
    assert up.connections == 2 and len(up.requests) == 3
    await pool.aclose()


async def test_a_reset_or_a_new_connection_closing_is_never_resent(upstream: Start) -> None:
    up = await upstream(_second_request_closes(rst=True))
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    conn = await pool.open(_request(), 5.0, idle_timed=False)
    assert await conn.read() == BODY
    conn.release()
    with pytest.raises(http1.UpstreamClosed) as caught:
        await pool.open(_request(), 5.0, idle_timed=False)
    assert caught.value.reset and up.connections == 1 and len(up.requests) == 2

    up = await upstream(_then_close(b""))
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    with pytest.raises(http1.UpstreamClosed) as caught:
        await pool.open(_request(), 5.0, idle_timed=False)
    assert not caught.value.reset and up.connections == 1 and len(up.requests) == 1
    await pool.aclose()


async def test_bytes_that_are_not_http_are_a_bad_reply(upstream: Start) -> None:
    async def script(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"SSH-2.0-OpenSSH\r\n\r\n")

    up = await upstream(script)
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    with pytest.raises(http1.BadReply):
        await pool.open(_request(), 5.0, idle_timed=False)
    await pool.aclose()


async def test_no_reply_times_out_and_a_slow_but_steady_stream_does_not(upstream: Start) -> None:
    async def silent(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(5)

    async def steady(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        for _tick in range(4):  # 0.4 s in all, never more than 0.1 s between bytes
            await asyncio.sleep(0.1)
            writer.write(b"1\r\nx\r\n")
        writer.write(b"0\r\n\r\n")

    up = await upstream(silent)
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    with pytest.raises(http1.ReadTimeout):
        await pool.open(_request(), 0.2, idle_timed=False)
    up = await upstream(steady)
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    conn = await pool.open(_request(), 0.25, idle_timed=True)
    assert b"".join([piece async for piece in conn.stream()]) == b"xxxx"
    await conn.finish()
    await pool.aclose()


async def test_closing_the_pool_under_a_stream_wakes_its_reader(upstream: Start) -> None:
    """`aclose` (at shutdown, or a reload retiring the backend) closed a busy connection
    but its reader slept on until the idle limit and ended as a stall (found in review)."""
    done = asyncio.Event()

    async def first_piece_then_silence(_: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        w.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\nx\r\n")
        await done.wait()

    up = await upstream(first_piece_then_silence)
    pool = connection_pool.Pool(up.url, CONNECT_S, 4)
    conn = await pool.open(_request(), 60.0, idle_timed=True)
    pieces = conn.stream()
    assert await anext(pieces) == b"x"
    waiting = asyncio.ensure_future(anext(pieces))
    await asyncio.sleep(0)  # the reader is waiting for the next piece
    await pool.aclose()
    try:
        with pytest.raises(http1.UpstreamClosed):
            await asyncio.wait_for(waiting, 10)  # a hang guard: the idle limit is 60 s
    finally:
        done.set()


async def test_a_closed_port_refuses() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    pool = connection_pool.Pool(f"http://127.0.0.1:{port}", CONNECT_S, 4)
    with pytest.raises(OSError):
        await pool.open(_request(), 1.0, idle_timed=False)


def test_the_host_header_and_path_come_from_the_base_url() -> None:
    assert (
        connection_pool.Pool("https://api.example.com/v1/", 1.0, 1).host_header == "api.example.com"
    )
    pool = connection_pool.Pool("http://[::1]:8000/openai/v1", 1.0, 1)
    assert (pool.host_header, pool.port, pool.prefix, pool.secure) == (
        "[::1]:8000",
        8000,
        "/openai/v1",
        False,
    )
