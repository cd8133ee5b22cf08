"""Fixtures: real simulators on 127.0.0.1 (own thread and loop), stopped after each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from router.simulator import SimSettings, SimThread
from tests.vllm.vllm_process import simulated

MODEL = "tiny"


@pytest.fixture
def start_sim() -> Iterator[Callable[..., SimThread]]:
    """`start_sim(profile="cloud", ...)` → a started SimThread (its `.url` has no /v1)."""
    started: list[SimThread] = []

    def start(**fields: object) -> SimThread:
        fields.setdefault("model", MODEL)
        cases = fields.pop("cases", [])
        thread = SimThread(SimSettings(**fields), cases=cases)  # type: ignore[arg-type]
        thread.start()
        started.append(thread)
        return thread

    yield start
    for thread in started:
        thread.stop()


@pytest.fixture
def vllm(start_sim: Callable[..., SimThread]) -> SimThread:
    return start_sim(max_model_len=512)


@pytest.fixture(scope="module")
def tiny() -> Iterator[SimThread]:
    """The vllm profile shaped like the server tests/vllm/captures/ came from, per module."""
    with simulated() as thread:
        yield thread
