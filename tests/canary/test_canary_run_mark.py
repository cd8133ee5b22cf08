"""The mark a router's canary writes as a run starts (`router.canary_mark`,
`Schedule._mark`): only for a run that asks a case. A real schedule on a simulator, its
mark a real file in the ledger's directory."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import router.canary as canary_module
from classifier import INTENTS
from evals.suite import SHIPPED
from router.canary import Canary, load_cases
from router.canary_mark import mark_start, marked_start
from router.canary_schedule import Schedule
from router.config import Config, parse
from router.gating import GateBook
from tests.canary.servers import simulator
from tests.canary.test_canary_scheduler import Rows
from tests.harness import Running, local_backend


def math_canary(local: Running, interval_s: float = 600.0) -> Config:
    """The simulator `local` as the one backend, and a canary of one math case each run."""
    canary_section = {"enabled": True, "interval_s": interval_s, "timeout_s": 30}
    canary_section |= {"suites": str(SHIPPED / "math"), "sample_per_suite": 1}
    routes = {intent: ["local"] for intent in INTENTS}
    return parse({"backends": [local_backend(local)], "routes": routes, "canary": canary_section})


def test_a_run_stopped_before_it_asks_anything_leaves_the_last_mark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deploy's SIGTERM soon after a start stops the first run while it reads where the
    rotation stands: it asks nothing and writes no round. Its start was marked before it
    read, and the restart skipped a run for a whole `interval_s` (found in review). The
    mark is written once the run is about to ask its first case: the last one stands."""
    read = canary_module.resume
    reading = threading.Event()

    def slow_read(*args: Any, **kwargs: Any) -> Any:
        reading.set()
        time.sleep(0.5)  # a large ledger
        return read(*args, **kwargs)

    monkeypatch.setattr(canary_module, "resume", slow_read)
    ledger = tmp_path / "ledger"
    with simulator(profile="vllm", model="local-model") as local:
        config = math_canary(local)
        earlier = time.time() - 2000.0  # the last run, over `interval_s` ago: a run at once
        mark_start(ledger, earlier, config.backends)
        rows = Rows()
        canary = Canary(config, load_cases(config), GateBook({}), rows, history=ledger)
        schedule = Schedule(canary, lambda: config, ledger)

        async def stopped_while_reading() -> None:
            job = asyncio.ensure_future(schedule.run())
            await asyncio.to_thread(reading.wait, 10)
            schedule.stopping()
            await asyncio.wait_for(job, 10)
            await canary.aclose()

        asyncio.run(stopped_while_reading())
        assert local.completions() == 0
    assert rows.rows == []
    assert marked_start(ledger, config.backends, time.time()) == earlier


def test_a_run_that_asks_is_marked_with_its_start(tmp_path: Path) -> None:
    """The mark still says when the run started (`running_since`), before its first case."""
    ledger = tmp_path / "ledger"
    with simulator(profile="vllm", model="local-model") as local:
        config = math_canary(local)
        rows = Rows()
        canary = Canary(config, load_cases(config), GateBook({}), rows, history=ledger)
        schedule = Schedule(canary, lambda: config, ledger)
        starts: list[float] = []

        async def one_run() -> None:
            job = asyncio.ensure_future(schedule.run())
            for _ in range(1000):  # 10 s at most
                if schedule.running_since is not None and not starts:
                    starts.append(schedule.running_since)
                if canary.runs:
                    break
                await asyncio.sleep(0.01)
            schedule.stopping()
            await asyncio.wait_for(job, 10)
            await canary.aclose()

        asyncio.run(one_run())
        assert local.completions() == 1
    assert canary.runs == 1
    assert marked_start(ledger, config.backends, time.time()) == starts[0]
