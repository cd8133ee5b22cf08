"""Requests held until a test lets them go: the `hold` fault and `POST /sim/release`.

A test that must act while a backend is busy with a request (reload the router mid-call,
count what is in flight) cannot do it on a timer without racing. A held request has been
read and waits before admission (it takes no running slot and no KV cache); released, it
is served as usual. A client that leaves meanwhile is no longer held.
"""

from __future__ import annotations

import asyncio


class Gate:
    """Where held requests wait; `release()` lets every one of them go at once."""

    def __init__(self) -> None:
        self._waiting: set[asyncio.Future[None]] = set()

    @property
    def held(self) -> int:
        return len(self._waiting)

    async def wait(self) -> None:
        """Wait until the next `release()` (or until cancelled, when the client leaves)."""
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.add(ticket)
        try:
            await ticket
        finally:
            self._waiting.discard(ticket)

    def release(self) -> int:
        """Let every held request go; how many were held."""
        waiting, self._waiting = self._waiting, set()
        for ticket in waiting:
            if not ticket.done():
                ticket.set_result(None)
        return len(waiting)
