"""A router's shutdown stops its canary's run as the requests' drain starts, not after it
(`router.canary_schedule`, `Components.shutting_down`): `smf-router serve` as a process."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest

from classifier import INTENTS
from evals.suite import SHIPPED
from router.canary import Canary, load_cases
from router.canary_schedule import Schedule
from router.config import Config, parse
from router.gating import GateBook
from router.ledger import Ledger
from tests.canary.recorded_rows import Rows
from tests.canary.servers import served, simulator
from tests.canary.stopping import slow_resume
from tests.harness import Running, config_for, local_backend, wait_until
from tests.resilience.conftest import status, until

STORY = [{"role": "user", "content": "Tell me a long story."}]


def canary_runs(ledger: Path) -> list[tuple[str, int, int]]:
    """The `canary_runs` rows on disk now: (backend, cases, errors)."""
    if not ledger.exists():
        return []
    with Ledger(ledger) as read:
        rows: list[tuple[str, int, int]] = read.sql(
            "SELECT backend, cases, errors FROM canary_runs ORDER BY backend"
        )
    return rows


def test_the_canary_stops_as_the_drain_starts_not_after_it(tmp_path: Path) -> None:
    """`Canary.stop` was called from the lifespan's shutdown, once uvicorn's drain was over:
    a SIGTERM took `server.drain_s` plus up to `STOP_WAIT_S` (12 s), not the longer of the
    two (found in review). Now the run under way stops as the drain starts: the rows of its
    round cut short are on disk while a live stream is still being drained, and that stream
    ends as its client leaves (499), not cut by the drain's end (503)."""
    canary = {"enabled": True, "interval_s": 600, "timeout_s": 60}
    canary |= {"suites": str(SHIPPED / "math"), "sample_per_suite": 1}
    timeouts = {"first_token_s": 10, "idle_s": 10, "total_s": 300}
    with (
        simulator(profile="vllm", model="local-model", tokens_per_s=5) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        cloud.control("faults", {"fault": "hold"})  # the canary's round of cloud stays in flight
        config = config_for(
            {"local": local, "cloud": cloud},
            tmp_path,
            timeouts,
            canary=canary,
            server={"drain_s": 60},  # longer than the test waits: the stream outlasts it
        )
        ledger = tmp_path / "ledger"
        with served(config, tmp_path) as (root, serve):
            until(lambda: cloud.stats()["held"] >= 1, 30, what="the canary's case held")
            assert status(root)["extra"]["canary"]["running_since"] is not None
            body: dict[str, Any] = {"model": "local", "messages": STORY, "stream": True}
            body |= {"max_tokens": 600, "ignore_eos": True}  # 120 s of tokens
            with httpx.stream(
                "POST", f"{root}/v1/chat/completions", json=body, timeout=30
            ) as stream:
                lines = stream.iter_lines()
                assert next(line for line in lines if line.startswith("data: {"))
                serve.send_signal(signal.SIGTERM)
                until(
                    lambda: any(run[0] == "cloud" for run in canary_runs(ledger)),
                    20,
                    what="the cut-short round's row on disk while the stream is drained",
                )
                assert next(line for line in lines if line.startswith("data: "))  # drained
                assert serve.poll() is None
            assert serve.wait(timeout=30) == 0  # the stream's client left: the drain ended
    runs = canary_runs(ledger)
    assert ("cloud", 1, 1) in runs  # its case an error: "no reply before the round ended"
    with Ledger(ledger) as read:
        records = read.sql("SELECT stream, status, outcome FROM records")
    assert records == [(True, 499, "cancelled")]  # not the drain's 503: it had not run out


def _math_canary(local: Running, interval_s: float, timeout_s: float, sample: int = 1) -> Config:
    """The simulator `local` as the one backend, and a canary of `sample` math cases each run."""
    canary_section = {"enabled": True, "interval_s": interval_s, "timeout_s": timeout_s}
    canary_section |= {"suites": str(SHIPPED / "math"), "sample_per_suite": sample}
    routes = {intent: ["local"] for intent in INTENTS}
    return parse({"backends": [local_backend(local)], "routes": routes, "canary": canary_section})


def test_no_run_starts_after_the_stop(tmp_path: Path) -> None:
    """Stopped as the drain starts, the job goes on until the lifespan cancels it: a run
    longer than `interval_s` was followed at once by the next, every case of it "not
    asked", a round of errors written for each backend. None starts after the stop, and
    the job ends on its own once the stopped run has written its rows."""
    with simulator(profile="vllm", model="local-model") as local:
        local.control("faults", {"fault": "hold"})
        config = _math_canary(local, 0.5, 60)
        rows = Rows()
        canary = Canary(config, load_cases(config), GateBook({}), rows)
        schedule = Schedule(canary, lambda: config, tmp_path)

        async def stopped() -> None:
            job = asyncio.ensure_future(schedule.run())
            await asyncio.to_thread(until, lambda: local.stats()["held"] >= 1, 30, "held")
            await asyncio.sleep(0.6)  # the run under way is now longer than `interval_s`
            schedule.stopping()
            try:
                await asyncio.wait_for(job, 10)
            finally:
                await canary.aclose()

        asyncio.run(stopped())
    runs = [row for table, row in rows.rows if table == "canary_runs"]
    assert [(r["cases"], r["errors"]) for r in runs] == [(1, 1)]


def test_a_run_started_in_the_stops_loop_turn_records_nothing(tmp_path: Path) -> None:
    """The schedule checks for a stop, then its run starts a loop turn later: a shutdown
    in between (its hook runs in that turn) found `Canary.run_once` stopped on entry, and
    a round of "not asked" errors was written for each backend, the rotation and
    `last_run` moved. A run stopped before it starts records nothing."""
    with simulator(profile="vllm", model="local-model") as local:
        config = _math_canary(local, 0.3, 30)
        rows = Rows()
        canary = Canary(config, load_cases(config), GateBook({}), rows)
        starts: list[bool] = []

        class Racy(Schedule):
            async def _once(self) -> None:
                starts.append(True)
                if len(starts) == 2:
                    self.stopping()  # the SIGTERM's hook ran in the turn before this run
                await super()._once()

        schedule = Racy(canary, lambda: config, tmp_path)

        async def raced() -> None:
            try:
                await asyncio.wait_for(schedule.run(), 20)
            finally:
                await canary.aclose()

        asyncio.run(raced())
    runs = [row for table, row in rows.rows if table == "canary_runs"]
    assert [(r["cases"], r["passed"], r["errors"]) for r in runs] == [(1, 1, 0)]
    assert canary.runs == 1


def test_a_run_stopped_while_it_reads_the_ledgers_history_records_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first run reads where the rotation stands from the ledger, on a thread: a stop
    then (a SIGTERM at the start of `canary run`, a shutdown just after a router's recall)
    found the run past its check, and each backend's round was written with every case
    "not asked", the rotation and `last_run` moved (found in re-review)."""
    reading = slow_resume(monkeypatch)
    with simulator(profile="vllm", model="local-model") as local:
        config = _math_canary(local, 600, 30, sample=2)
        rows = Rows()
        canary = Canary(config, load_cases(config), GateBook({}), rows, history=tmp_path)

        async def stopped_while_reading() -> None:
            run = asyncio.ensure_future(canary.run_once())
            await asyncio.to_thread(reading.wait, 10)
            canary.stop("SIGTERM")
            await asyncio.wait_for(run, 10)
            await canary.aclose()

        asyncio.run(stopped_while_reading())
    assert (rows.rows, canary.runs, canary.last_run, canary.last_results) == ([], 0, {}, {})


def _on(urls: dict[str, str]) -> Config:
    """Backends named as `urls` says, and a canary of one math case each."""
    backends = [{"name": n, "tier": "local", "base_url": u, "model": "m"} for n, u in urls.items()]
    canary_section = {"enabled": True, "interval_s": 600, "timeout_s": 30}
    canary_section |= {"suites": str(SHIPPED / "math"), "sample_per_suite": 1}
    routes = {intent: [next(iter(urls))] for intent in INTENTS}
    return parse({"backends": backends, "routes": routes, "canary": canary_section})


def test_a_backend_a_reload_removed_during_its_round_leaves_no_error_details() -> None:
    """`last_results` (what `canary run` shows per backend) is pruned at a reload, and a round
    still running then put the removed backend back (found in re-review), as `last_run`
    did not."""
    slowly = simulator(profile="vllm", model="m", tokens_per_s=5)
    with simulator(profile="vllm", model="m") as fast, slowly as slow:
        current = _on({"fast": fast.url, "slow": slow.url})
        canary = Canary(lambda: current, load_cases(current), GateBook({}), Rows())

        async def reloaded_mid_round() -> None:
            nonlocal current
            run = asyncio.ensure_future(canary.run_once())
            assert await asyncio.to_thread(wait_until, lambda: "fast" in canary.last_run, 30)
            new = _on({"fast": fast.url})
            apply = canary.prepare(new)
            current = new
            apply()
            await asyncio.wait_for(run, 60)
            await canary.aclose()

        asyncio.run(reloaded_mid_round())
    assert sorted(canary.last_results) == sorted(canary.last_run) == ["fast"]
