"""Fixtures for the evals tests: the fake chat server and the shared smf-bench sample."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_chat_server import FakeServer, serve

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    with serve() as state:
        yield state


@pytest.fixture
def bench_sample() -> Path:
    """The smf-bench sample: /work/shared locally, ../shared next to the repo in CI."""
    for candidate in (
        REPO.parent / "shared" / "smf-bench-sample",
        Path("/work/shared/smf-bench-sample"),
    ):
        if (candidate / "FORMAT.md").is_file():
            return candidate
    pytest.skip(f"smf-bench sample not found at {REPO.parent / 'shared' / 'smf-bench-sample'}")
