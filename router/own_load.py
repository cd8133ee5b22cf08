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
    """Told when a call of the router's own takes one of a backend's slots and when it gives
    it back."""

    def replay_started(self, backend: str) -> None: ...

    def replay_finished(self, backend: str) -> None: ...


class Slot:
    """One of `backend`'s slots, taken when made; `release` gives it back once, however
    many paths (the call's end, an early return, a cancellation) reach it."""

    def __init__(self, observers: Sequence[ReplayObserver], backend: str) -> None:
        self.observers = tuple(observers)  # those told of the start are told of the end
        self.backend = backend
        self.held = True
        for observer in self.observers:
            observer.replay_started(backend)

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        for observer in self.observers:
            observer.replay_finished(self.backend)

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
