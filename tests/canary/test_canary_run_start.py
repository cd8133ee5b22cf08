"""The start a router's canary writes to the ledger as a run is about to ask its first case
(`router.canary_starts`, `Schedule._starting`): only for a run that asks, on disk before
the run asks rather than at the writer's interval, and a run held up by a stalled ledger
for `START_WAIT_S` at most. A real schedule on a simulator, its starts in a real ledger."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import router.canary_schedule as canary_schedule
from classifier import INTENTS
from evals.suite import SHIPPED
from router.canary import Canary, load_cases
from router.canary_judge import fingerprint
from router.canary_schedule import Schedule
from router.canary_starts import own_start, router_name, write_start
from router.config import Config, parse
from router.gating import GateBook
from router.ledger import LedgerWriter
from router.ledger.appender import Appender
from router.ledger.recent import RecentRows
from tests.canary.recorded_rows import Rows
from tests.canary.servers import simulator
from tests.canary.stopping import slow_resume, stopped_at, until_true
from tests.harness import Running, local_backend

ME = router_name("")  # a schedule run outside `serve`


def math_canary(local: Running, interval_s: float = 600.0) -> Config:
    """The simulator `local` as the one backend, and a canary of one math case each run."""
    canary_section = {"enabled": True, "interval_s": interval_s, "timeout_s": 30}
    canary_section |= {"suites": str(SHIPPED / "math"), "sample_per_suite": 1}
    routes = {intent: ["local"] for intent in INTENTS}
    return parse({"backends": [local_backend(local)], "routes": routes, "canary": canary_section})


def rows_of(ledger: Path, table: str) -> list[dict[str, Any]]:
    return RecentRows(ledger, table).read("2000-01-01")


def files_of(ledger: Path, table: str) -> int:
    return len(list((ledger / table).rglob("*.parquet")))


class Recorded(Schedule):
    """A schedule that keeps each run's start (`running_since`)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.starts: list[float] = []

    async def _once(self) -> None:
        assert self.running_since is not None
        self.starts.append(self.running_since)
        await super()._once()


def test_a_run_stopped_before_it_asks_anything_leaves_no_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deploy's SIGTERM soon after a start stops the first run while it reads where the
    rotation stands: it asks nothing and writes no round. Had its start been written before
    it read, the restart skipped a run for a whole `interval_s` (found in review). The
    start is written once the run is about to ask its first case: the last one stands."""
    reading = slow_resume(monkeypatch)
    ledger = tmp_path / "ledger"
    with simulator(profile="vllm", model="local-model") as local:
        config = math_canary(local)
        earlier = time.time() - 2000.0  # the last run, over `interval_s` ago: a run at once
        writer = LedgerWriter(ledger)
        write_start(writer, "before", earlier, config.backends, ME)
        writer.close()
        rows = Rows()
        canary = Canary(config, load_cases(config), GateBook({}), rows, history=ledger)
        schedule = Schedule(canary, lambda: config, ledger)
        asyncio.run(stopped_at(schedule, canary, reading))
        assert local.completions() == 0
    assert rows.rows == []
    found = own_start(rows_of(ledger, "canary_starts"), config.backends, ME)
    assert found == pytest.approx(earlier, abs=1e-3)


@contextmanager
def ledgered(tmp_path: Path, interval_s: float = 600.0) -> Iterator[tuple[Running, Config, Canary]]:
    """A simulator and a canary on it (`math_canary`) whose rows go to a started ledger
    writer in `tmp_path / "ledger"` flushing every 60 s, closed on leaving."""
    ledger = tmp_path / "ledger"
    writer = LedgerWriter(ledger, flush_interval_s=60)
    writer.start()
    try:
        with simulator(profile="vllm", model="local-model") as local:
            config = math_canary(local, interval_s)
            canary = Canary(config, load_cases(config), GateBook({}), writer, history=ledger)
            yield local, config, canary
    finally:
        writer.close()


def test_a_run_that_asks_has_its_start_written_at_once(tmp_path: Path) -> None:
    """The start says when the run started (`running_since`), of which server, by which
    router, under the run's id; it reaches the disk as the run asks, while the round's rows
    wait for the writer's interval (60 s here): a kill meanwhile still leaves the start."""
    ledger = tmp_path / "ledger"
    with ledgered(tmp_path) as (local, config, canary):
        schedule = Recorded(canary, lambda: config, ledger)

        async def one_run() -> None:
            job = asyncio.ensure_future(schedule.run())
            try:
                await until_true(lambda: canary.runs == 1, "a run")
                await until_true(lambda: files_of(ledger, "canary_starts") == 1, "its start")
                assert files_of(ledger, "canary_runs") == 0  # its round waits for the interval
            finally:
                schedule.stopping()
                await asyncio.wait_for(job, 10)
                await canary.aclose()

        asyncio.run(one_run())
        assert local.completions() == 1
    ((start,), (round_,)) = rows_of(ledger, "canary_starts"), rows_of(ledger, "canary_runs")
    (backend,) = config.backends
    assert start["run_id"] == round_["run_id"] and start["backend"] == "local"
    assert (start["server"], start["writer"]) == (fingerprint(backend), ME)
    assert own_start([start], config.backends, ME) == pytest.approx(schedule.starts[0], abs=1e-3)


def stalled_ledger(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """The ledger's first write stalls (a stalled volume) until the second event is set;
    the first is set once it stalls."""
    stalled, released = threading.Event(), threading.Event()
    append = Appender.append

    def stalling(self: Appender, *args: Any) -> Any:
        if not stalled.is_set():
            stalled.set()
            released.wait(30)  # set by the test
        return append(self, *args)

    monkeypatch.setattr(Appender, "append", stalling)
    return stalled, released


def test_a_stalled_ledger_holds_up_no_run_and_loses_no_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The ledger's first write does not return (a stalled volume): runs go on meanwhile,
    each after `START_WAIT_S`, as they did not while a run awaited its start's write with no
    limit (found in review), said once; once the volume answers every run's start is
    written, the newest last."""
    stalled, released = stalled_ledger(monkeypatch)
    monkeypatch.setattr(canary_schedule, "START_WAIT_S", 0.2)
    ledger = tmp_path / "ledger"
    with ledgered(tmp_path, interval_s=0.3) as (_, config, canary):
        schedule = Recorded(canary, lambda: config, ledger)

        async def stalled_then_released() -> None:
            job = asyncio.ensure_future(schedule.run())
            try:
                await until_true(stalled.is_set, "the first start's write")
                await until_true(lambda: canary.runs >= 3, "three runs with the ledger stalled")
            finally:
                schedule.stopping()
                await asyncio.wait_for(job, 10)
                await canary.aclose()
                released.set()

        asyncio.run(stalled_then_released())
    starts = rows_of(ledger, "canary_starts")
    assert len({row["run_id"] for row in starts}) == len(schedule.starts) >= 3
    found = own_start(starts, config.backends, ME)
    assert found == pytest.approx(schedule.starts[-1], abs=1e-3)
    said = [r.getMessage() for r in caplog.records if "run's start is not in" in r.getMessage()]
    assert len(said) == 1, said


def test_a_run_stopped_while_its_start_is_written_asks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SIGTERM while the run's start is being written (a slow volume): the run asks
    nothing and writes no round; its start stays, so a restart waits out that run once."""
    stalled, released = stalled_ledger(monkeypatch)
    ledger = tmp_path / "ledger"
    with ledgered(tmp_path) as (local, config, canary):
        schedule = Schedule(canary, lambda: config, ledger)
        asyncio.run(stopped_at(schedule, canary, stalled, released))
        assert local.completions() == 0
    assert rows_of(ledger, "canary_runs") == [] and canary.runs == 0
    assert len(rows_of(ledger, "canary_starts")) == 1
