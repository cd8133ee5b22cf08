"""Replies to clients written once per event-loop turn: one send for a reply's head and body.

uvicorn writes a response's status line and headers, then each body piece, with one
`transport.write` apiece; with TCP_NODELAY (uvloop and asyncio set it) each write is its own
syscall and its own packet. py-spy put those writes at about a tenth of the router's CPU
on a plain request, the head alone more than the body. Here the writes made during one turn
of the event loop are joined and sent when that turn's callbacks are done: the same bytes in
the same order, microseconds later. A streamed reply's head goes out with its first chunk,
and chunks that arrive from upstream together leave together.

The protocol also ends a connection whose client stopped reading (an agent suspended with
Ctrl-Z): once the socket's buffers are full uvicorn waits for the client without limit, and
a stream's attempt kept its backend slot, its upstream and its record open for as long as
the client slept, overflowing local traffic to the paid cloud. After `CLIENT_STALL_S` with
writes paused the connection is aborted; the request's hang-up watcher
(`router.api.hangup`) then cancels it, which closes the upstream and records `cancelled`.

Each request's head is limited in size and time by the base class (`router.api.request_head`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from router.api.request_head import HeadLimitedProtocol

# Past this much pending data a write goes out at once: corking saves syscalls on small
# writes and has nothing to win on large ones (and flow control should see them).
EAGER_BYTES = 64 * 1024
# A client that takes none of our bytes for this long is treated as gone (the backend's
# default stall timeout, `idle_s`, is the same: silence that long is not a slow network).
CLIENT_STALL_S = 60.0

log = logging.getLogger("smf_router.api")


class CorkedTransport:
    """A transport whose writes are joined per loop turn; all else is the real transport's."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._size = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(bytes(data))
        self._size += len(data)
        if self._size >= EAGER_BYTES:
            self.flush()

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def flush(self) -> None:
        """Send what is pending now (a no-op when nothing is, or the connection is gone)."""
        if not self._pending:
            return
        pending = self._pending
        data = pending[0] if len(pending) == 1 else b"".join(pending)
        self._pending, self._size = [], 0
        if not self._transport.is_closing():  # the client left: nobody to send it to
            self._transport.write(data)

    def get_write_buffer_size(self) -> int:
        return self._size + self._transport.get_write_buffer_size()

    def close(self) -> None:
        self.flush()  # the last reply before `connection: close` must still go out
        self._transport.close()

    def write_eof(self) -> None:
        self.flush()  # the reply goes out before the end of the stream
        self._transport.write_eof()

    def __getattr__(self, name: str) -> Any:
        # pause_reading, resume_reading, is_closing, get_extra_info, abort, ...
        return getattr(self._transport, name)


class CorkedHttpToolsProtocol(HeadLimitedProtocol):
    """uvicorn's httptools protocol, writing through a `CorkedTransport`, with limits on
    each request's head (`HeadLimitedProtocol`)."""

    _stalled: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        corked = CorkedTransport(cast(asyncio.Transport, transport), self.loop)
        super().connection_made(cast(asyncio.Transport, corked))

    def pause_writing(self) -> None:
        super().pause_writing()
        self._stalled = self.loop.call_later(CLIENT_STALL_S, self._abort_stalled)

    def resume_writing(self) -> None:
        self._stop_timer()
        super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    def _stop_timer(self) -> None:
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None

    def _abort_stalled(self) -> None:
        self._stalled = None
        log.warning("a client took no data for %.0f s; closing its connection", CLIENT_STALL_S)
        self.transport.abort()  # connection_lost follows: the request sees a hang-up
