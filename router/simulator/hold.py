"""Requests held until a test lets them go: the `hold` fault and `POST /sim/release`.

A test that must act while a backend is busy with a request (reload the router mid-call,
count what is in flight) cannot do it on a timer without racing. A held request has been
read and waits before admission (it takes no running slot and no KV cache); released, it
is served as usual, or as the fault the release names (`{"fault": "rate_limit:600"}`): a
backend that takes its time, then refuses, at the moment the test chooses (a reload between
the request's arrival and its answer). A client that leaves meanwhile is no longer held.
"""

from __future__ import annotations

import asyncio

from router.simulator.faults import Fault


class Gate:
    """Where held requests wait; `release()` lets every one of them go at once."""

    def __init__(self) -> None:
        self._waiting: set[asyncio.Future[Fault | None]] = set()

    @property
    def held(self) -> int:
        return len(self._waiting)

    async def wait(self) -> Fault | None:
        """Wait until the next `release()` (or until cancelled, when the client leaves): the
        fault it names for the held requests, None to serve them as usual."""
        ticket: asyncio.Future[Fault | None] = asyncio.get_running_loop().create_future()
        self._waiting.add(ticket)
        try:
            return await ticket
        finally:
            self._waiting.discard(ticket)

    def release(self, fault: Fault | None = None) -> int:
        """Let every held request go, to meet `fault` (None: none); how many were held."""
        waiting, self._waiting = self._waiting, set()
        for ticket in waiting:
            if not ticket.done():
                ticket.set_result(fault)
        return len(waiting)
