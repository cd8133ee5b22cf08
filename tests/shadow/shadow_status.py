"""What the shadow tests wait for and read: a condition within a bounded time, and the
shadow's counters in `/v1/router/status`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx


def until(check: Callable[[], bool], seconds: float = 20.0) -> None:
    """Wait (at most `seconds`, 2,000 looks) for `check`; fail the test when it never holds."""
    end = time.monotonic() + seconds
    for _ in range(2000):
        if check() or time.monotonic() > end:
            break
        time.sleep(0.05)
    assert check(), "condition not reached"


def shadow_counts(r: Any) -> dict[str, int]:
    """The shadow's counters (`sampled`, `dropped_<reason>`, ...) of router `r`."""
    status: dict[str, Any] = httpx.get(f"{r.root}/v1/router/status", timeout=5).json()
    counts: dict[str, int] = status["extra"]["shadow"]["counts"]
    return counts
