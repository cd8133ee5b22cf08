"""What code keeps in memory, measured with tracemalloc: the tests that a long answer
streamed in small deltas is held joined, not one string per delta (60 bytes for 4
characters)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(slots=True)
class Traced:
    held: int = 0  # bytes allocated inside the block and still held at its end


@contextmanager
def traced() -> Iterator[Traced]:
    """Traces the block; `held` is set as it ends, before tracing stops."""
    seen = Traced()
    tracemalloc.start()
    try:
        yield seen
        seen.held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()


def small_deltas(count: int, prefix: str = "ab") -> Iterator[str]:
    """`count` 4-character pieces, each made as it is asked for: a str of its own, as each
    parsed chunk's is."""
    return (f"{prefix}{n % 100:02d}" for n in range(count))
