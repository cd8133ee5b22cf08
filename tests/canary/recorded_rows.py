"""A stand-in for the ledger writer that keeps the rows submitted to it, for the canary tests
that look at a round's rows without a ledger on disk."""

from __future__ import annotations

import threading
from typing import Any


class Rows:
    def __init__(self) -> None:
        self.rows: list[tuple[str, dict[str, Any]]] = []

    def submit_row(self, table: str, row: dict[str, Any]) -> None:
        self.rows.append((table, row))

    def flush_soon(self) -> threading.Event:
        """Nothing to flush: the rows are kept as submitted (a run's start waits for it)."""
        written = threading.Event()
        written.set()
        return written
