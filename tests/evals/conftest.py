"""Fixtures for the evals tests: a simulator to ask, the shared smf-bench sample, and the
sandbox with its guard as the only layer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evals import landlock, sandbox
from tests.harness import Running, simulator

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def sim() -> Iterator[Running]:
    """A vLLM simulator serving `fake-model` that keeps the bodies it is sent. It answers
    the shipped cases' prompts with their references (canary answers), others as it
    composes them."""
    with simulator(model="fake-model", keep_requests=64) as server:
        yield server


BENCH_SAMPLE = REPO / "tests" / "fixtures" / "smf-bench-sample"


@pytest.fixture
def bench_sample() -> Path:
    """The smf-bench format sample, copied into the repo with its MIT licence (SOURCE.txt):
    read from ../shared, the tests that need it skipped in a clean clone, as CI runs."""
    assert (BENCH_SAMPLE / "FORMAT.md").is_file(), BENCH_SAMPLE
    return BENCH_SAMPLE


@pytest.fixture(params=["every-layer", "guard-only"])
def layers(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a test twice: with every layer of the sandbox this machine offers, and with the
    guard alone, Landlock and namespaces off as on a kernel or container without them.
    Where they are on, they refuse what the guard should refuse whether it does or not, so
    only the second run shows the guard's own rule holds on this machine. `run_python`
    decides the layers in this process and starts the sandbox from it, so patching them
    here is what such a machine would see."""
    if request.param == "guard-only":
        monkeypatch.setattr(landlock, "abi", lambda: 0)
        monkeypatch.setattr(sandbox, "namespaces_available", lambda: False)
    return str(request.param)
