"""Replies to clients written once per event-loop turn: one send for a reply's head and body.

uvicorn writes a response's status line and headers, then each body piece, with one
`transport.write` apiece; with TCP_NODELAY (uvloop and asyncio set it) each write is its own
syscall and its own packet. py-spy put those writes at about a tenth of the router's CPU
on a plain request, the head alone more than the body. Here the writes made during one turn
of the event loop are joined and sent when that turn's callbacks are done: the same bytes in
the same order, microseconds later. A streamed reply's head goes out with its first chunk,
and chunks that arrive from upstream together leave together.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# Past this much pending data a write goes out at once: corking saves syscalls on small
# writes and has nothing to win on large ones (and flow control should see them).
EAGER_BYTES = 64 * 1024


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

    def __getattr__(self, name: str) -> Any:
        # pause_reading, resume_reading, is_closing, get_extra_info, abort, ...
        return getattr(self._transport, name)


class CorkedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, writing through a `CorkedTransport`."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        corked = CorkedTransport(cast(asyncio.Transport, transport), self.loop)
        super().connection_made(cast(asyncio.Transport, corked))
