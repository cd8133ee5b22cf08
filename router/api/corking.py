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
the client slept, overflowing local traffic to the paid cloud. While writes are paused (the
transport's own buffer past its high-water mark, 64 KiB, the socket's send queue full) the
connection is checked for progress; after `CLIENT_STALL_S` in which the client's end took
none of the router's bytes it is aborted, and the request's hang-up watcher
(`router.api.hangup`) then cancels it, which closes the upstream and records `cancelled`.
A client that takes some is not cut (`CorkedTransport.bytes_taken`: timing the pause alone
cut a reader of 600 B/s at 60 s), as far as its kernel tells: a full receive buffer reopens
only once the client has read about a segment's worth, ~64 KiB on loopback (a reader of
under ~1 KB/s there is seen taking nothing for 60 s, and cut), ~1.4 KB on a network. An
answer that fits in the kernel's
buffers (MBs on loopback) is never paused: it has left the router, and a client that reads
none of it is not told from one that reads it all.

Each request's head is limited in size and time by the base class (`router.api.request_head`).
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import struct
import sys
import termios
from typing import Any, cast

from router.api.request_head import HeadLimitedProtocol

# Past this much pending data a write goes out at once: corking saves syscalls on small
# writes and has nothing to win on large ones (and flow control should see them).
EAGER_BYTES = 64 * 1024
# A client whose end takes none of our bytes for this long, once our buffer for it is full,
# is treated as gone (the backend's default stall timeout, `idle_s`, is the same: silence
# that long is not a slow network).
CLIENT_STALL_S = 60.0
# How often a paused connection is checked for bytes taken: it is closed between
# `CLIENT_STALL_S` and a quarter more after its client last took one (one check per stall
# would leave up to twice as long, when the client took its last bytes just after a pause).
STALL_CHECKS = 4
# Linux's SIOCOUTQ (the same number as TIOCOUTQ): a TCP socket's bytes not yet acknowledged.
SIOCOUTQ: int | None = termios.TIOCOUTQ if sys.platform == "linux" else None

log = logging.getLogger("smf_router.api")


class CorkedTransport:
    """A transport whose writes are joined per loop turn; all else is the real transport's."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._size = 0
        self._handed = 0  # bytes given to the real transport

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
            # counted first: the transport calls `pause_writing` from inside `write`, and
            # the stall check's baseline taken there must see these bytes handed over
            self._handed += len(data)
            self._transport.write(data)

    def get_write_buffer_size(self) -> int:
        return self._size + self._transport.get_write_buffer_size()

    def bytes_taken(self) -> int:
        """Bytes the client's end has taken so far: what the real transport was given less
        what still waits in its buffer and, on Linux, in the socket's send queue (once the
        client's receive buffer is full, its kernel acknowledges bytes only as the client
        reads them). It grows whenever the client reads, even while more is written, which
        the buffer's size alone would not tell; and the kernel takes from that buffer only
        once a third of its send queue has drained: for a queue of MBs (loopback's), many
        minutes of a client reading 600 B/s."""
        return self._handed - self._transport.get_write_buffer_size() - self._unacknowledged()

    def _unacknowledged(self) -> int:
        """The socket's send queue (0 where the kernel does not tell: the buffer alone is
        measured there)."""
        sock = self._transport.get_extra_info("socket")
        if SIOCOUTQ is None or sock is None:
            return 0
        try:
            queued: int = struct.unpack("i", fcntl.ioctl(sock.fileno(), SIOCOUTQ, bytes(4)))[0]
        except OSError:  # closed meanwhile, or not a TCP socket
            return 0
        return queued

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

    _corked: CorkedTransport
    _stalled: asyncio.TimerHandle | None = None
    _taken = 0  # `bytes_taken` at the last stall check (or when writes paused)
    _idle_checks = 0  # stall checks in a row that found nothing more taken

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._corked = CorkedTransport(cast(asyncio.Transport, transport), self.loop)
        super().connection_made(cast(asyncio.Transport, self._corked))

    def pause_writing(self) -> None:
        super().pause_writing()
        self._taken, self._idle_checks = self._corked.bytes_taken(), 0
        self._arm_stall_timer()

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

    def _arm_stall_timer(self) -> None:
        self._stalled = self.loop.call_later(CLIENT_STALL_S / STALL_CHECKS, self._check_stalled)

    def _check_stalled(self) -> None:
        self._stalled = None
        taken = self._corked.bytes_taken()
        if taken > self._taken:  # slow, not gone
            self._taken, self._idle_checks = taken, 0
        else:
            self._idle_checks += 1
        if self._idle_checks < STALL_CHECKS:
            self._arm_stall_timer()
            return
        log.warning("a client took no data for %.0f s; closing its connection", CLIENT_STALL_S)
        self.transport.abort()  # connection_lost follows: the request sees a hang-up
