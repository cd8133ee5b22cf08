"""The mark a router's canary writes as a run starts (`router.canary_mark`,
`Schedule._mark`): only for a run that asks a case. A real schedule on a simulator, its
mark a real file in the ledger's directory."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import router.canary_mark as canary_mark
from classifier import INTENTS
from evals.suite import SHIPPED
from router.canary import Canary, load_cases
from router.canary_mark import MARK_FILE, mark_start, marked_start, router_name
from router.canary_schedule import Schedule
from router.config import Config, parse
from router.gating import GateBook
from tests.canary.recorded_rows import Rows
from tests.canary.servers import simulator
from tests.canary.stopping import slow_resume, stopped_at, until_true
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
    reading = slow_resume(monkeypatch)
    ledger = tmp_path / "ledger"
    with simulator(profile="vllm", model="local-model") as local:
        config = math_canary(local)
        earlier = time.time() - 2000.0  # the last run, over `interval_s` ago: a run at once
        mark_start(ledger, earlier, config.backends, router_name(""))
        rows = Rows()
        canary = Canary(config, load_cases(config), GateBook({}), rows, history=ledger)
        schedule = Schedule(canary, lambda: config, ledger)
        asyncio.run(stopped_at(schedule, canary, reading))
        assert local.completions() == 0
    assert rows.rows == []
    assert marked_start(ledger, config.backends, time.time(), router_name("")) == earlier


@pytest.mark.parametrize("before", ["a mark", "no mark"])
def test_a_run_stopped_while_its_mark_is_written_leaves_the_last_mark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: str
) -> None:
    """A SIGTERM arrives while the run's mark is being written (a slow volume's fsync): the
    run then asks nothing, but the write landed, and the restart waited a whole
    `interval_s` for a run that never asked (found in review). The mark goes back as the
    write found it: the last one, or none."""
    real = canary_mark.mark_start
    writing, released = threading.Event(), threading.Event()

    def slow(*args: Any) -> bytes:
        writing.set()
        released.wait(10)  # until the stop
        return real(*args)  # what it wrote: the mark is put back only over that

    ledger = tmp_path / "ledger"
    with simulator(profile="vllm", model="local-model") as local:
        config = math_canary(local)
        earlier = time.time() - 2000.0  # the last run, over `interval_s` ago: a run at once
        if before == "a mark":
            mark_start(ledger, earlier, config.backends, router_name(""))
        monkeypatch.setattr(canary_mark, "mark_start", slow)
        rows = Rows()
        canary = Canary(config, load_cases(config), GateBook({}), rows, history=ledger)
        schedule = Schedule(canary, lambda: config, ledger)
        asyncio.run(stopped_at(schedule, canary, writing, released))
        assert writing.is_set() and local.completions() == 0
    assert rows.rows == []
    marked = marked_start(ledger, config.backends, time.time(), router_name(""))
    assert marked == (earlier if before == "a mark" else None)
    assert not any(ledger.glob(f".{MARK_FILE}.*"))
    if before == "no mark":
        assert not (ledger / MARK_FILE).exists()


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
    assert marked_start(ledger, config.backends, time.time(), router_name("")) == starts[0]


class Recorded(Schedule):
    """A schedule that keeps each run's start (`running_since`)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.starts: list[float] = []

    async def _once(self) -> None:
        assert self.running_since is not None
        self.starts.append(self.running_since)
        await super()._once()


def test_a_stalled_mark_holds_up_no_run_and_is_not_left_over_a_newer_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The first run's mark does not reach the disk (a stalled ledger volume): awaited with
    no limit, every run stopped there while the status showed one under way (found in
    review). Runs go on after `MARK_WAIT_S`; once the volume answers, the newest run's
    start is written after the stalled one, never under it."""
    stalled = threading.Event()
    fsyncs: list[int] = []

    class Stalling:
        """The `os` the mark is written with: its first fsync waits for the test."""

        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def fsync(self, fd: int) -> None:
            fsyncs.append(fd)
            if len(fsyncs) == 1:
                stalled.wait(30)  # released by the test
            os.fsync(fd)

    monkeypatch.setattr(canary_mark, "os", Stalling())
    monkeypatch.setattr(canary_mark, "MARK_WAIT_S", 0.2)
    ledger = tmp_path / "ledger"
    with simulator(profile="vllm", model="local-model") as local:
        config = math_canary(local, interval_s=0.3)
        canary = Canary(config, load_cases(config), GateBook({}), Rows(), history=ledger)
        schedule = Recorded(canary, lambda: config, ledger)

        async def stalled_then_released() -> None:
            job = asyncio.ensure_future(schedule.run())
            try:
                await until_true(lambda: canary.runs >= 3, "three runs with the mark stalled")
                assert len(fsyncs) == 1  # one write in flight, none piled up behind it
            finally:
                schedule.stopping()
                await asyncio.wait_for(job, 10)
                await canary.aclose()
                assert not (ledger / MARK_FILE).exists()
                stalled.set()  # the volume answers: the stalled write lands, and then?
            await until_true(lambda: len(fsyncs) == 2, "the newest start written after it")
            await until_true(lambda: not any(ledger.glob(".*")), "both writes over")

        asyncio.run(stalled_then_released())
    assert "is not written after 0.2 s" in caplog.text
    assert (
        marked_start(ledger, config.backends, time.time(), router_name("")) == schedule.starts[-1]
    )


def test_a_mark_that_cannot_be_written_is_said_once_and_again_when_it_is(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The mark's path is a directory (any write fails alike): warned at every run, the
    same failure was said every `interval_s` for as long. Said once, runs go on, and once
    a mark is written the log says so."""
    ledger = tmp_path / "ledger"
    (ledger / MARK_FILE).mkdir(parents=True)
    with simulator(profile="vllm", model="local-model") as local:
        config = math_canary(local, interval_s=0.2)
        canary = Canary(config, load_cases(config), GateBook({}), Rows(), history=ledger)
        schedule = Recorded(canary, lambda: config, ledger)

        async def failing_then_fixed() -> None:
            job = asyncio.ensure_future(schedule.run())
            try:
                await until_true(lambda: canary.runs >= 3, "three runs, none marked")
                (ledger / MARK_FILE).rmdir()
                await until_true(lambda: (ledger / MARK_FILE).is_file(), "a mark written")
            finally:
                schedule.stopping()
                await asyncio.wait_for(job, 10)
                await canary.aclose()

        asyncio.run(failing_then_fixed())
    said = [r.getMessage() for r in caplog.records if "mark" in r.getMessage()]
    assert len([m for m in said if "could not mark the run's start" in m]) == 1, said
    assert said[-1] == f"canary: the run's mark in {ledger} is written again", said
