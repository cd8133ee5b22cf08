"""Retired backends: the ones a reload replaced or removed, closed once nothing uses them.

A request keeps the gateway it started with, so after a reload it may still start an
attempt on a backend the reload retired: a fallback once its first backend failed.
Closing retired backends at a fixed time (the reload plus `total_s` plus a margin) cut such
a fallback mid-stream. So the dispatcher counts the attempts running on each backend
object, and a retired one is closed when its last attempt ends, though not before the
grace its requests from before the reload always had (shadow and canary jobs send without
the dispatcher), and at the latest at a cap (an attempt count that never came down).

Attempts on a retired backend whose name the reload removed or pointed at another server
(`router.server_identity`) no longer judge the health of the backend that bears its name
now (`Dispatcher.judges`): failures of a server the reload moved away from opened the
circuit of the new one, nor count in its load: the old server's streams kept a re-pointed
backend full. Those of one retired for any other change (a timeout, its concurrency, a
header) still do: they run on the server the name still points at, whose load and circuit
resilience keeps, and uncounted, a reload that lowered `max_concurrency` from 6 to 3 under
six streams sent three more to a backend capped at 3 (found in review). Retired is for
good, closed or not: a request from before the reload may still fall back onto the backend
after its grace; and so is elsewhere (`moved`), even if a later reload points the name back.
A wait a retired backend's attempt met is told for the backend its name has now only if the
attempt was sent to that server with its credentials (`now`, `router.backend_waits`).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field

from router.backends.base import Backend
from router.config import Backend as BackendSettings
from router.server_identity import same_server

log = logging.getLogger("smf_router.reload")


@dataclass(slots=True)
class _Retiring:
    timers: list[asyncio.TimerHandle] = field(default_factory=list)
    grace_over: bool = False


class Retirement:
    """Attempts running per backend object, and the retired backends waiting to close."""

    def __init__(self) -> None:
        self._attempts: dict[Backend, int] = {}
        self._retiring: dict[Backend, _Retiring] = {}
        # Weak: the backend goes when the last gateway that names it goes, and with it this.
        self._retired: weakref.WeakSet[Backend] = weakref.WeakSet()
        # Retired ones on a server no running backend is: their attempts judge nothing.
        self._elsewhere: weakref.WeakSet[Backend] = weakref.WeakSet()
        self._closing: set[asyncio.Task[None]] = set()
        # The backends the last reload left running, by name (`moved`); none before one.
        self._running: Mapping[str, Backend] = {}

    def __len__(self) -> int:
        """Retired backends not closed yet."""
        return len(self._retiring)

    def started(self, backend: Backend) -> None:
        self._attempts[backend] = self._attempts.get(backend, 0) + 1

    def finished(self, backend: Backend) -> None:
        left = self._attempts.get(backend, 0) - 1
        if left > 0:
            self._attempts[backend] = left
            return
        self._attempts.pop(backend, None)
        retiring = self._retiring.get(backend)
        if retiring is not None and retiring.grace_over:
            self._close(backend)

    def elsewhere(self, backend: Backend) -> bool:
        """Whether attempts on `backend` run on a server that no running backend of its name
        is (`moved`): the old server's, which judge nothing of the new one."""
        return backend in self._elsewhere

    def now(self, backend: Backend) -> BackendSettings | None:
        """The settings `backend`'s name has now: its own while it runs, for a retired one
        those of the backend the last reload left under its name (None: removed). What a
        wait its attempt met is told against (`router.backend_waits.speaks_for`): unlike
        `elsewhere`, which must stay as it was when the attempt started (its start and end
        count the same load), a wait is the current backend's or nobody's."""
        if backend not in self._retired:
            return backend.settings
        running = self._running.get(backend.settings.name)
        return None if running is None else running.settings

    def moved(self, running: Mapping[str, Backend]) -> None:
        """After a reload's swap: each retired backend whose name `running` no longer has, or
        gives to another server, is elsewhere from now on. All of them, not only those this
        reload retired: one retired earlier for a new timeout is on the server a second
        reload may move the name away from."""
        self._running = running
        for backend in list(self._retired):
            if backend in self._elsewhere:
                continue
            now = running.get(backend.settings.name)
            if now is None or not same_server(backend.settings, now.settings):
                self._elsewhere.add(backend)

    def retire(self, backend: Backend, grace_s: float, cap_s: float) -> None:
        """`backend` takes no new work from new requests: its idle connections go now; it
        closes when its attempts are over, not before `grace_s`, at the latest at `cap_s`."""
        backend.retire()
        self._retired.add(backend)
        loop = asyncio.get_running_loop()
        retiring = self._retiring[backend] = _Retiring()
        retiring.timers = [
            loop.call_later(grace_s, self._end_grace, backend),
            loop.call_later(max(cap_s, grace_s), self._close, backend),
        ]

    async def close(self) -> None:
        """At shutdown: close every retired backend now, attempts or not."""
        retiring, self._retiring = self._retiring, {}
        for backend, entry in retiring.items():
            for timer in entry.timers:
                timer.cancel()
            await backend.aclose()

    def _end_grace(self, backend: Backend) -> None:
        retiring = self._retiring.get(backend)
        if retiring is None:
            return
        retiring.grace_over = True
        if not self._attempts.get(backend):
            self._close(backend)

    def _close(self, backend: Backend) -> None:
        retiring = self._retiring.pop(backend, None)
        if retiring is None:
            return
        for timer in retiring.timers:
            timer.cancel()
        running = self._attempts.get(backend, 0)
        if running:
            log.warning(
                "retired backend %s closed at its cap with %d attempt(s) still counted",
                backend.settings.name,
                running,
            )
        task = asyncio.get_running_loop().create_task(backend.aclose())
        self._closing.add(task)  # a reference, or the task may be collected half-way
        task.add_done_callback(self._closed)

    def _closed(self, task: asyncio.Task[None]) -> None:
        self._closing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("closing a retired backend failed: %r", task.exception())
