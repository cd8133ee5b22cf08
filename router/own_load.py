"""The router's own calls (shadow replays, their judge, canary cases) as a backend's load.

None is a live attempt, yet each holds one of the backend's sequence slots while it runs:
uncounted, a live request was sent to a backend they filled, to queue behind them. Capacity
(`router.capacity`) is told of each through the `ReplayObserver`s, for as long as its call
to the backend runs and no longer: comparing, grading or judging after it holds no slot, and
counted, it sent live traffic to the paid cloud while the backend sat idle.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class ReplayObserver(Protocol):
    """Told when a call of the router's own takes one of a backend's slots; what it returns
    is called when the call gives it back. Not told the name again at the end: a reload
    between the two may have made the name another server's, whose count the end must not
    lower (`Capacity.forget`)."""

    def replay_started(self, backend: str) -> Callable[[], None]: ...


class Slot:
    """One of `backend`'s slots, taken when made; `release` gives it back once, however
    many paths (the call's end, an early return, a cancellation) reach it."""

    def __init__(self, observers: Sequence[ReplayObserver], backend: str) -> None:
        self.backend = backend
        self.held = True
        # Those told of the start are told of the end.
        self._ends = [observer.replay_started(backend) for observer in observers]

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        for end in self._ends:
            end()

    def __enter__(self) -> Slot:
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def counted(
    observers: Sequence[ReplayObserver], backend: str, call: Callable[[T], Awaitable[R]]
) -> Callable[[T], Awaitable[R]]:
    """`call` holding one of `backend`'s slots while it runs (the canary's cases)."""

    async def holding(argument: T) -> R:
        with Slot(observers, backend):
            return await call(argument)

    return holding
