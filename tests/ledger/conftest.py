"""The ledger tests' shared fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from router.ledger import LedgerWriter


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[LedgerWriter]:
    """A writer over `tmp_path`; its flush thread, once started, flushes every 50 ms."""
    writer = LedgerWriter(tmp_path, flush_interval_s=0.05)
    try:
        yield writer
    finally:
        writer.close()
