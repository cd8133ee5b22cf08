"""A record's `ended_at` is its `started_at` plus its monotonic `duration_s`: a wall clock
stepped back mid-request (NTP) wrote rows that ended two hours before they began (found in
review), for the served path and for a refusal alike."""

from __future__ import annotations

import time
import types
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from router import gateway
from router.api import refusal
from router.auth import Caller
from router.errors import BadRequest
from tests.harness import Collect, RunningRouter, config_for, router, simulator

STEP_S = 7200.0


class SteppedBack:
    """`time` as the module sees it, but each wall-clock read after the first `unstepped`
    is two hours earlier, as after an NTP step."""

    def __init__(self, unstepped: int) -> None:
        self.unstepped = unstepped
        self.reads = 0

    def time(self) -> float:
        self.reads += 1
        return time.time() - (STEP_S if self.reads > self.unstepped else 0.0)


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[RunningRouter]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as running,
    ):
        yield running


def clock(module: types.ModuleType, monkeypatch: pytest.MonkeyPatch, unstepped: int) -> SteppedBack:
    stepped = SteppedBack(unstepped)
    fake = types.SimpleNamespace(
        time=stepped.time, monotonic=time.monotonic, perf_counter=time.perf_counter
    )
    monkeypatch.setattr(module, "time", fake)
    return stepped


def test_a_served_request_ends_after_it_began(
    proxy: RunningRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    stepped = clock(gateway, monkeypatch, unstepped=1)  # the request's start
    body = {"model": "local", "messages": [{"role": "user", "content": "hi"}]}
    assert httpx.post(f"{proxy.url}/chat/completions", json=body, timeout=30).status_code == 200
    record = records.wait(30)
    assert stepped.reads >= 1
    assert record.ended_at == pytest.approx(record.started_at + record.duration_s)
    assert record.ended_at >= record.started_at


def test_a_refusal_ends_after_it_began(monkeypatch: pytest.MonkeyPatch) -> None:
    arrival = refusal.Arrival(api="chat")  # its start read before the step
    clock(refusal, monkeypatch, unstepped=0)
    record = arrival.record(BadRequest("no"), Caller("alice"))
    assert record.ended_at == pytest.approx(record.started_at + record.duration_s)
