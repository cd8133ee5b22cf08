"""What the router process itself uses, read when `/metrics` is scraped: memory, CPU time and
the garbage collector. A router runs for months; these are the series that show a slow leak
or a collector stopping the event loop again (see `router.heap`)."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

from router import heap

_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True, slots=True)
class ProcessStats:
    resident_bytes: int | None  # None where /proc is missing (not Linux)
    cpu_seconds: float  # user + system, every thread
    collections: tuple[int, ...]  # per generation, since start (`heap.collections`)
    arrow_bytes: int  # held by Arrow's memory pool: ledger flushes and merges


def read() -> ProcessStats:
    return ProcessStats(
        resident_bytes=_resident_bytes(),
        cpu_seconds=time.process_time(),
        collections=heap.collections(),
        arrow_bytes=_arrow_bytes(),
    )


def _arrow_bytes() -> int:
    """What Arrow's pool holds now. Outside the Python heap and invisible to the collector,
    it is where a ledger merge's memory goes (the 1 GB spike of 2026-12-01 was here). Zero
    until the ledger's first flush loads Arrow: reading it must not import it, and while
    that import runs in the writer's thread the module is there without its functions."""
    allocated = getattr(sys.modules.get("pyarrow"), "total_allocated_bytes", None)
    return int(allocated()) if allocated is not None else 0


def _resident_bytes() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return None
