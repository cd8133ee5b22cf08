"""The relay's stall timer: how long a committed stream may wait for its next piece."""

from __future__ import annotations

import asyncio
from typing import Any


class Stall:
    """Cancels the wait for the next piece once it lasts longer than that wait's limit.

    Like `asyncio.timeout` around each wait, but with one timer per stream instead of one
    armed and cancelled per piece (that was ~4 % of the router's CPU on a token-by-token
    stream): the timer wakes at the earliest due time and re-arms itself when a piece
    arrived since. Time spent outside a wait (writing to a slow client) never counts.
    """

    __slots__ = ("_cancelling", "_due", "_fired", "_handle", "_loop", "_reader", "_task")

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._reader: asyncio.Task[Any] | None = None  # the task that waits (`arm`)
        self._task: asyncio.Task[Any] | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._due = 0.0
        self._cancelling = 0
        self._fired = False

    def arm(self, wait: float) -> None:
        """A wait of at most `wait` seconds begins now, in the task that armed the first one:
        a stream is read by one task (the request's), asked for once rather than per piece."""
        task = self._reader
        if task is None:
            task = self._reader = asyncio.current_task()
            assert task is not None
        self._task, self._cancelling = task, task.cancelling()
        self._due = self._loop.time() + wait
        if self._handle is None:
            self._handle = self._loop.call_at(self._due, self._check)

    def disarm(self) -> None:
        self._task = None

    def expired(self) -> bool:
        """Whether the CancelledError being handled came from this stall (and is undone)."""
        if not self._fired or self._task is None:
            return False
        self._fired = False
        return self._task.uncancel() <= self._cancelling

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _check(self) -> None:
        self._handle = None
        if self._task is None:
            return  # between waits: the next `arm` sets a timer again
        if self._loop.time() < self._due:
            self._handle = self._loop.call_at(self._due, self._check)
            return
        self._fired = True
        self._task.cancel()
