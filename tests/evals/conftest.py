"""Fixtures for the evals tests: a simulator to ask and the shared smf-bench sample."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness import Running, simulator

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def sim() -> Iterator[Running]:
    """A vLLM simulator serving `fake-model` that keeps the bodies it is sent. It answers
    the shipped cases' prompts with their references (canary answers), others as it
    composes them."""
    with simulator(model="fake-model", keep_requests=64) as server:
        yield server


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
