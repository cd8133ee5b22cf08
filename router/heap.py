"""The cyclic garbage collector, set for a long-running server.

Python's collector examines every container object it tracks whenever its oldest
generation is collected, and a router process holds ~80,000 of them before the first
request: modules, classes, FastAPI's route analysis, the classifier. Examining them took
~80 ms per full collection here (~1 µs an object: they are spread over the heap), and
under load a full collection came every ~3 s, because records waiting for the ledger's
next flush live long enough to be promoted to the oldest generation. Each one stopped the
event loop, so every stream in flight stalled with it, and collections cost ~25 µs of CPU
per request in all (measured: `docs/benchmarks.md`, "Garbage collection").

So, once the server is up, what exists then is moved out of the collector's sight
(`gc.freeze`: it lives as long as the process anyway), and young collections run less
often, so that fewer short-lived objects are promoted and full collections become rare.
Objects frozen here are still freed when their reference count drops to zero; only a
reference cycle among them would never be collected. What a hot reload replaces is such an
object at most once per reload: 500 reloads grew the process by the same ~6 KB each with
and without freezing (the retired backends wait out their longest request either way).
"""

from __future__ import annotations

import gc
from typing import Any

YOUNG_THRESHOLD = 10_000  # Python's default is 700 allocations between young collections


def settle() -> None:
    """Collect start-up garbage, then freeze the survivors and space out young collections.

    Called once, when the server has started; never in a process that builds and drops
    many apps (tests), where frozen objects would pile up.
    """
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def collections() -> tuple[int, ...]:
    """Collections per generation since start; the last one counts full collections."""
    return tuple(generation["collections"] for generation in gc.get_stats())


def status() -> dict[str, Any]:
    """For `/v1/router/status`: whether `settle` ran, and how often each generation was
    collected (full collections are the third number; they should stay rare)."""
    return {
        "frozen_objects": gc.get_freeze_count(),
        "young_threshold": gc.get_threshold()[0],
        "collections": list(collections()),
    }
