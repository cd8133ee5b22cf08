"""A restarted router's canary goes on where the last run left off
(`router.canary_schedule`): every start ran a run at once, whatever `interval_s`, and under
systemd's `Restart=on-failure` (`RestartSec=2`) a crash loop sent a full run to every backend
every few seconds (found in an operations review). Through a real router on simulators, on
a ledger holding a round written as a router writes it, or after a router process that was
killed mid-run; and the reading of a router's own run starts (`router.canary_starts`) on
real ledger files."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import router.canary_resume as canary_resume
from router.canary import Canary, load_cases
from router.canary_resume import last_start, resumed_from
from router.canary_schedule import Schedule
from router.canary_starts import write_start
from router.config import Config
from router.gating import GateBook
from router.ledger import SCHEMAS, Ledger, LedgerWriter
from router.ledger.recent import RecentRows
from tests import harness
from tests.canary.past_rounds import write_rounds
from tests.canary.servers import math_gating_canary, reloaded, router, served, simulator
from tests.canary.stopping import stopped_at
from tests.harness import Running, RunningRouter, config_for
from tests.resilience.conftest import status, until

INTERVAL = 900.0
ME = "this-host 127.0.0.1:4000"  # the router that reads its starts (`router_name`)


def canary_of(proxy: RunningRouter) -> dict[str, Any]:
    section: dict[str, Any] = status(proxy.root)["extra"]["canary"]
    return section


def unix(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


@contextmanager
def backends(tmp_path: Path) -> Iterator[tuple[Config, Running, Running]]:
    """local and cloud simulators, and a canary config (math, a floor: `/readyz` waits for
    the recall) every `INTERVAL` on the ledger in `tmp_path`."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        canary = math_gating_canary(INTERVAL, 20, timeout_s=30)
        yield config_for({"local": local, "cloud": cloud}, tmp_path, canary=canary), local, cloud


def recalled(proxy: RunningRouter) -> dict[str, Any]:
    """The canary section once the recall is over (`/readyz` 200)."""
    ready = f"{proxy.root}/readyz"
    until(lambda: httpx.get(ready, timeout=5).status_code == 200, what="the recall")
    return canary_of(proxy)


def ledger_runs(tmp_path: Path) -> int:
    with Ledger(tmp_path / "ledger") as ledger:
        ((runs,),) = ledger.sql("SELECT count(DISTINCT run_id) FROM canary_runs")
    return int(runs)


def passes(seconds_ago: float) -> tuple[float, dict[str, list[str]]]:
    """`write_rounds`' days back for a round `seconds_ago`, and both backends passing."""
    return seconds_ago / 86400, {"local": ["pass"] * 3, "cloud": ["pass"] * 3}


def test_a_restart_a_minute_after_a_run_waits_out_its_interval(tmp_path: Path) -> None:
    """A run a minute ago, `interval_s` 900: the restart sends the backends nothing, the
    status counts the recalled run and shows the next one 900 s after its start, and the
    ledger holds no new run when the router stops (before: a run at once, whose rows the
    shutdown wrote)."""
    write_rounds(tmp_path / "ledger", *passes(60), n=1)
    with backends(tmp_path) as (config, local, cloud), router(config) as proxy:
        section = recalled(proxy)
        started = section["last_run"]["local"]["ts"]
        assert section["runs"] == 1 and section["running_since"] is None
        assert abs(unix(section["next_run_at"]) - (started + INTERVAL)) < 1.0
        assert local.completions() == 0 and cloud.completions() == 0
    assert ledger_runs(tmp_path) == 1


def test_a_reload_recounts_the_wait_for_the_first_run(tmp_path: Path) -> None:
    """The wait for the first run is the one between runs: a reload wakes it and counts the
    new `interval_s` from the recalled run's start, 600 s (later still), then 30 s (past: a
    run at once)."""
    write_rounds(tmp_path / "ledger", *passes(60), n=1)
    with backends(tmp_path) as (config, local, _), router(config) as proxy:
        started = recalled(proxy)["last_run"]["local"]["ts"]
        data = config.model_dump(mode="json")

        def every(interval_s: float) -> dict[str, Any]:
            return {**data, "canary": {**data["canary"], "interval_s": interval_s}}

        reloaded(proxy, tmp_path, every(600.0))
        section = canary_of(proxy)
        assert section["runs"] == 1 and section["running_since"] is None
        assert abs(unix(section["next_run_at"]) - (started + 600.0)) < 1.0
        reloaded(proxy, tmp_path, every(30.0))
        until(lambda: canary_of(proxy)["runs"] >= 2, 30, what="a run on the shorter interval")
        assert canary_of(proxy)["last_run"]["local"]["ts"] > started
        assert local.completions() > 0


def test_a_restart_after_a_run_older_than_interval_s_runs_at_once(tmp_path: Path) -> None:
    """A run 1000 s ago, `interval_s` 900: the first run starts at once, as before."""
    write_rounds(tmp_path / "ledger", *passes(1000), n=1)
    with backends(tmp_path) as (config, local, cloud), router(config) as proxy:
        until(lambda: canary_of(proxy)["runs"] == 2, 30, what="a run at start")
        section = canary_of(proxy)
        assert local.completions() > 0 and cloud.completions() > 0
        started = section["last_run"]["local"]["ts"]
        assert abs(unix(section["next_run_at"]) - (started + INTERVAL)) < 1.0


@pytest.mark.parametrize(
    ("floors", "cases"),
    [({}, ["pass"] * 3), ({"math": 0.4}, ["error"] * 3)],
    ids=["no-floor", "rounds-of-errors"],
)
def test_a_restart_two_days_after_a_run_waits_out_an_interval_of_three(
    tmp_path: Path, floors: dict[str, float], cases: list[str]
) -> None:
    """`interval_s` three days, a run two days ago: the recall reads yesterday and today,
    and earlier days only for the results the gates still need (none without a floor, none
    in rounds of errors), so the restart saw no run and ran at once. The newest earlier day
    holding a run is read: the next run is three days after its start. The ledger holds no
    run start (rounds of `canary run`, or of a version before the starts)."""
    write_rounds(tmp_path / "ledger", 2, {"local": cases, "cloud": cases}, n=1)
    with Ledger(tmp_path / "ledger") as ledger:
        ((earliest,),) = ledger.sql("SELECT min(ts) FROM canary_runs")
    started = earliest.replace(tzinfo=UTC).timestamp()
    days = 3 * 86400.0
    with backends(tmp_path) as (config, local, cloud):
        canary = config.canary.model_copy(update={"interval_s": days, "floors": floors})
        with router(config.model_copy(update={"canary": canary})) as proxy:
            until(
                lambda: unix(recalled(proxy)["next_run_at"]) > time.time() + 3600,
                10,
                what="the next run hours away",
            )
            section = canary_of(proxy)
            assert section["running_since"] is None and section["runs"] == 0
            assert abs(unix(section["next_run_at"]) - (started + days)) < 1.0
            assert local.completions() == 0 and cloud.completions() == 0
    assert ledger_runs(tmp_path) == 1


def test_a_shutdown_during_the_walk_of_earlier_days_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`interval_s` 30 days and rounds on five earlier days, none of a configured backend:
    the walk for the last run's start reads each day, on a worker thread that a shutdown
    cannot cancel, and the shutdown waited for all of it. A stop ends it at the next day,
    as it ends a recall's walk."""
    write_rounds(tmp_path / "ledger", 2, {"gone": ["pass"]}, n=1)
    for days in range(3, 7):
        write_rounds(tmp_path / "ledger", days, {"gone": ["pass"]}, n=1)
    reading, stopped = threading.Event(), threading.Event()
    days_read: list[str] = []

    class Held(RecentRows):
        """The walk's reads of rounds: the first waits for the test's stop."""

        def read(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
            if self.table == "canary_runs":
                days_read.append(args[0])
                reading.set()
                stopped.wait(10)
            return super().read(*args, **kwargs)

    monkeypatch.setattr(canary_resume, "RecentRows", Held)
    down = Running("http://127.0.0.1:9/v1", "http://127.0.0.1:9")  # never asked
    config = config_for({"local": down}, tmp_path, canary=math_gating_canary(30 * 86400.0, 20))
    canary = Canary(config, load_cases(config), GateBook({}))
    schedule = Schedule(canary, lambda: config, tmp_path / "ledger")
    asyncio.run(stopped_at(schedule, canary, reading, stopped))
    assert len(days_read) == 1 and canary.runs == 0


def test_a_restart_on_an_empty_ledger_runs_at_once(tmp_path: Path) -> None:
    with backends(tmp_path) as (config, local, _), router(config) as proxy:
        until(lambda: canary_of(proxy)["runs"] == 1, 30, what="a run at start")
        assert local.completions() > 0


def test_the_last_start_is_the_newest_runs_earliest_round() -> None:
    """A run's rounds start a few milliseconds apart; a backend whose round of the newest
    run is missing (a crash cut the run) shows an earlier run's round, left out."""
    rounds = [
        {"run_id": "b", "ts": 1000.02, "backend": "local"},
        {"run_id": "b", "ts": 1000.01, "backend": "cloud"},
        {"run_id": "a", "ts": 100.0, "backend": "other"},
    ]
    assert last_start(rounds) == 1000.01
    assert last_start(rounds[2:]) == 100.0
    assert last_start([]) is None


def test_a_restart_after_a_kill_before_any_round_landed_waits_out_that_run(
    tmp_path: Path,
) -> None:
    """A router killed (SIGKILL) mid-run, before any of its rounds reached the ledger, left
    no trace of the run: its restart ran a full run at once, and so did each restart of a
    crash loop. The run's start reaches the ledger before its first case is asked, long
    before the writer's interval (60 s here): the restart asks the backends nothing and
    shows the next run `interval_s` after the killed run's start."""
    with backends(tmp_path) as (config, local, cloud):
        for sim in (local, cloud):
            sim.control("faults", {"fault": "hold"})  # no round ends: no row is written
        ledger_section = config.ledger.model_copy(update={"flush_interval_s": 60.0})
        config = config.model_copy(update={"ledger": ledger_section})
        with served(config, tmp_path) as (root, serve):
            until(
                lambda: min(local.stats()["held"], cloud.stats()["held"]) >= 1,
                30,
                what="the run's cases in flight",
            )
            started = status(root)["extra"]["canary"]["running_since"]
            serve.kill()
            assert serve.wait(timeout=20) == -9
        assert not (tmp_path / "ledger" / "canary_runs").exists()  # the run left no round
        asked = local.completions(), cloud.completions()
        port = int(root.rsplit(":", 1)[1])  # restarted where it served: its start names it
        with harness.router(config, port) as proxy:
            section = recalled(proxy)
            assert section["runs"] == 0 and section["running_since"] is None
            assert abs(unix(section["next_run_at"]) - (unix(started) + INTERVAL)) < 1.0
            assert (local.completions(), cloud.completions()) == asked


def started_by(ledger: Path, config: Config, writer: str, started: float) -> None:
    """A run's start in `ledger`, written as a router's schedule writes it."""
    rows = LedgerWriter(ledger, flush_interval_s=60)
    write_start(rows, "r-1", started, config.backends, writer)
    rows.close()


def test_a_start_another_router_wrote_is_not_waited_for(tmp_path: Path) -> None:
    """Two canary routers on one ledger: the other one started a run 5 s ago. Its start
    counted, and this router waited out a run whose results it never sees (it reads the
    ledger's rounds only at its start), its gates an `interval_s` behind (found in review).
    A router honours the starts it wrote alone: on an empty ledger it runs at once."""
    with backends(tmp_path) as (config, local, _):
        other = "another-host 127.0.0.1:4000"
        started_by(tmp_path / "ledger", config, other, time.time() - 5)
        with router(config) as proxy:
            until(lambda: canary_of(proxy)["runs"] == 1, 30, what="a run at start")
            assert local.completions() > 0


def test_a_restart_with_an_unreadable_start_file_runs_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A `canary_starts` file that does not read is skipped with a warning: the first run
    starts at once on an empty ledger, as before."""
    day = datetime.now(UTC).date().isoformat()
    broken = tmp_path / "ledger" / "canary_starts" / f"day={day}" / "x-1.parquet"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"PAR1 cut short")
    with backends(tmp_path) as (config, local, _), router(config) as proxy:
        until(lambda: canary_of(proxy)["runs"] == 1, 30, what="a run at start")
        assert local.completions() > 0
    assert f"canary_starts: skipped unreadable segment {broken}" in caplog.text


def offline(tmp_path: Path) -> Config:
    """A config of two backends no test asks: reading starts needs their servers only."""
    down = Running("http://127.0.0.1:9/v1", "http://127.0.0.1:9")
    return config_for({"local": down, "cloud": down}, tmp_path / "config")


def test_a_start_counts_for_the_servers_it_names_and_its_writer(tmp_path: Path) -> None:
    """Written and read back; not for a config whose backends point elsewhere, nor stamped
    over a minute ahead of now (a clock that ran ahead), nor by another router."""
    config = offline(tmp_path)
    servers, ledger, now = config.backends, tmp_path / "ledger", time.time()
    started_by(ledger, config, ME, now - 100.5)

    def found(backends: Any = servers, at: float = now, writer: str = ME) -> float | None:
        start = resumed_from(ledger, None, backends, at, INTERVAL, 30, writer)
        return None if start is None else start[0]

    assert found() == pytest.approx(now - 100.5, abs=1e-3)
    assert found(servers[1:]) == pytest.approx(now - 100.5, abs=1e-3)
    assert found([b.model_copy(update={"model": "other"}) for b in servers]) is None
    assert found(at=now - 200.0) is None
    assert found(writer="other") is None
    assert resumed_from(tmp_path / "none", None, servers, now, INTERVAL, 30, ME) is None


def test_a_restart_goes_on_from_the_later_of_its_start_and_the_rounds(tmp_path: Path) -> None:
    """The rounds say a run 60 s ago, this router's start one 10 s ago (killed before its
    rounds landed), or the other way round: the later one counts, and says why."""
    config, ledger, now = offline(tmp_path), tmp_path / "ledger", time.time()
    started_by(ledger, config, ME, now - 10.0)
    start, why = resumed_from(ledger, now - 60.0, config.backends, now, INTERVAL, 30, ME) or (0, "")
    assert (start, why) == (pytest.approx(now - 10.0, abs=1e-3), "its start in the ledger")
    later = resumed_from(ledger, now - 5.0, config.backends, now, INTERVAL, 30, ME)
    assert later == (now - 5.0, "its rounds in the ledger")


def test_a_start_two_days_ago_counts_within_an_interval_of_three(tmp_path: Path) -> None:
    """A run killed two days ago before its rounds landed, `interval_s` three days: the walk
    of earlier days reads this router's starts as well as the rounds; with `interval_s`
    under two days, that day is not read."""
    config, ledger, now = offline(tmp_path), tmp_path / "ledger", time.time()
    started_by(ledger, config, ME, now - 2 * 86400.0)
    days = 3 * 86400.0
    found = resumed_from(ledger, None, config.backends, now, days, 30, ME)
    assert found == (
        pytest.approx(now - 2 * 86400.0, abs=1e-3),
        "its rounds or start of an earlier day in the ledger",
    )
    assert resumed_from(ledger, None, config.backends, now, 86400.0, 30, ME) is None


def test_a_start_row_with_no_time_stops_no_restart_witness(tmp_path: Path) -> None:
    """A `canary_starts` file of today holding a row with no time (written by hand, or by
    another tool): compared with now, it raised, and the restart lost this router's starts
    and the walk of earlier days with it (found in review). It is no row: this router's
    start of two days ago still counts within an interval of three days."""
    config, ledger, now = offline(tmp_path), tmp_path / "ledger", time.time()
    started_by(ledger, config, ME, now - 2 * 86400.0)
    day = datetime.fromtimestamp(now, UTC).date().isoformat()
    odd = ledger / "canary_starts" / f"day={day}" / "by-hand-1.parquet"
    odd.parent.mkdir(parents=True)
    row = {"run_id": "x", "ts": None, "backend": "local", "writer": ME}
    pq.write_table(pa.Table.from_pylist([row], schema=SCHEMAS["canary_starts"]), odd)
    found = resumed_from(ledger, None, config.backends, now, 3 * 86400.0, 30, ME)
    assert found is not None and found[0] == pytest.approx(now - 2 * 86400.0, abs=1e-3)
