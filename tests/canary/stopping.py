"""Stopping a canary at a chosen step, and waiting within a running event loop: shared by
the tests of runs stopped midway (a deploy's SIGTERM) and of the runs' starts."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

import router.canary as canary_module
from router.canary import Canary
from router.canary_schedule import Schedule


async def until_true(check: Any, what: str) -> None:
    """Until `check()`, 10 s at most, the event loop running meanwhile."""
    for _ in range(1000):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def slow_resume(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """`router.canary.resume` (where a run reads the rotation from the ledger) slowed as a
    large ledger's read is; the event is set once a run begins it, a moment to stop in."""
    read = canary_module.resume
    reading = threading.Event()

    def slow_read(*args: Any, **kwargs: Any) -> Any:
        reading.set()
        time.sleep(0.5)  # a large ledger
        return read(*args, **kwargs)

    monkeypatch.setattr(canary_module, "resume", slow_read)
    return reading


async def stopped_at(
    schedule: Schedule,
    canary: Canary,
    reached: threading.Event,
    release: threading.Event | None = None,
) -> None:
    """Runs `schedule` until `reached` is set (10 s at most), stops it there, then sets
    `release` (what held the run at that step, so that the stop finds it there), and waits
    for the run to end and closes `canary`."""
    job = asyncio.ensure_future(schedule.run())
    await asyncio.to_thread(reached.wait, 10)
    schedule.stopping()
    if release is not None:
        release.set()
    await asyncio.wait_for(job, 10)
    await canary.aclose()
