"""A restart recalls each gate's last `window` results from the ledger however old they are,
back to the ledger's `retention_days`: it read yesterday's and today's rounds only, and a
gate whose last graded rounds were older opened while a running router kept it closed."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from evals.suite import SHIPPED, load
from router import canary_follow, reload
from router.canary import Canary
from router.canary_follow import Follower
from router.canary_judge import Judge, gate_book
from router.canary_schedule import Schedule
from router.config import Config, parse
from router.ledger import checksum
from router.ledger.recent import RECALL_DAYS, RecentRows
from tests.canary.past_rounds import CANARY, CLOUD, LOCAL, write_rounds
from tests.canary.servers import router
from tests.resilience.conftest import status as router_status
from tests.resilience.conftest import until


def settings(ledger: Path, **ledger_settings: Any) -> Config:
    return parse(
        {
            "backends": [LOCAL, CLOUD],
            "ledger": {"path": str(ledger), **ledger_settings},
            "canary": CANARY,
        }
    )


def follower_gates(config: Config) -> dict[str, frozenset[str]]:
    """The gates of a router without a canary of its own, started on `config`'s ledger."""
    judge = Judge(gate_book(config.canary), None, lambda: [b.name for b in config.backends])
    asyncio.run(Follower(judge, Path(config.ledger.path), lambda: config).follow_once())
    return judge.gated()


def canary_gates(config: Config) -> dict[str, frozenset[str]]:
    """The gates of a router running its own canary, as its schedule recalls them at start."""
    canary = Canary(config, load(SHIPPED / "math"), gate_book(config.canary))
    asyncio.run(Schedule(canary, lambda: config, Path(config.ledger.path)).recall())
    return canary.gated()


@pytest.mark.parametrize("gates", [follower_gates, canary_gates])
def test_a_gate_closed_by_rounds_five_days_old_stays_closed_at_a_restart(
    tmp_path: Path, gates: Any
) -> None:
    """Rounds that failed cloud's math five days ago (a router stopped since, or rounds that
    only erred since) closed its gate: a restart opened it, reading yesterday and today."""
    write_rounds(tmp_path, 5, {"cloud": ["fail"] * 3, "local": ["pass"] * 3})
    write_rounds(tmp_path, 0.5, {"cloud": ["error"] * 3}, n=1)  # no quality signal
    assert gates(settings(tmp_path)) == {"cloud": frozenset({"math"})}


def test_the_recall_stops_at_the_ledgers_retention(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Days past `retention_days`, which compaction drops, are not read at all."""
    write_rounds(tmp_path, 5, {"cloud": ["fail"] * 3})
    read = spy_days(monkeypatch)
    assert follower_gates(settings(tmp_path, retention_days=4)) == {}
    assert not any(day <= ago(5) for day in read)
    assert follower_gates(settings(tmp_path, retention_days=6)) == {"cloud": frozenset({"math"})}
    assert ago(5) in read


def test_the_recall_reads_no_further_back_than_recall_days(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gate that never fills (here local's: it has no rounds) sends every start to the
    bound: `RECALL_DAYS`, not the 730 days the ledger keeps by default."""
    write_rounds(tmp_path, RECALL_DAYS + 2, {"cloud": ["fail"] * 3})
    write_rounds(tmp_path, RECALL_DAYS - 2, {"cloud": ["pass"] * 3}, n=1)
    read = spy_days(monkeypatch)
    assert follower_gates(settings(tmp_path)) == {}
    assert ago(RECALL_DAYS - 2) in read
    assert not any(day <= ago(RECALL_DAYS + 1) for day in read)


def test_the_recall_stops_once_every_window_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Older results could only be pushed out of what a gate depends on: a day with the 59
    results of each gate that a window of 20 keeps (`GateBook.memory`) ends the walk, and
    the failures before it are not read (nor gate)."""
    write_rounds(tmp_path, 9, {"cloud": ["fail"] * 3, "local": ["fail"] * 3})
    write_rounds(tmp_path, 3, {"cloud": ["pass"] * 30, "local": ["pass"] * 30})
    read = spy_days(monkeypatch)
    assert follower_gates(settings(tmp_path)) == {}
    assert ago(3) in read and not any(day <= ago(9) for day in read)


def test_a_floor_on_a_suite_the_job_does_not_run_sends_no_start_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A floor on a suite the CronJob does not run (here coding; or one learned from a
    baseline of more suites): its gate never fills, and a router following the job, which
    loaded none of its suites at start, read back every day on disk to the bound at every
    start (12 s over 30 uncompacted days, `/readyz` waiting). It knows the job's suites
    from its start now, as after a reload: math's full windows end the recall."""
    data = coding_floor_on_math_rounds(tmp_path)
    read = spy_days(monkeypatch)
    with router(parse(data)) as proxy:
        readyz = f"{proxy.root}/readyz"
        until(lambda: httpx.get(readyz, timeout=5).status_code == 200, what="the recall")
        section = router_status(proxy.root)["extra"]["canary"]
    assert section["gated"] == {} and section["runs"] == 1
    assert read and min(read) == ago(1)  # yesterday's and today's rounds, no older day


def test_a_reload_whose_suites_fail_during_the_starts_load_keeps_the_starts_suites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reload (the canary off) whose suites do not load says "the canary gates stay as
    they are": landing while the start still loaded the job's suites, it had the start
    throw them away, and the coding floor the job does not run sent the recall back to
    every day on disk. Deterministic: the start's load waits until the reload is done."""
    data = coding_floor_on_math_rounds(tmp_path)
    broken = tmp_path / "broken"
    (broken / "math").mkdir(parents=True)
    (broken / "math" / "cases.yaml").write_text("this: [is not\n")
    started, reloaded = threading.Event(), threading.Event()
    calls: list[str | None] = []
    loads = canary_follow.job_suites

    def held(config: Config, *meanwhile: str) -> set[str] | None:
        calls.append(config.canary.suites)
        if len(calls) == 1:  # the start's: it waits for the reload, its own bounded
            started.set()
            reloaded.wait(30)
        return loads(config, *meanwhile)

    monkeypatch.setattr(canary_follow, "job_suites", held)
    read = spy_days(monkeypatch)
    with router(parse(data)) as proxy:
        assert started.wait(30), "the start loaded no suites"
        path = tmp_path / "router.yaml"
        canary = {**data["canary"], "suites": str(broken)}  # a directory, its math breaks
        path.write_text(yaml.safe_dump({**data, "canary": canary}))
        reload.reloader_of(proxy.components).source = path
        answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
        reloaded.set()
        assert answer.status_code == 200, answer.text
        readyz = f"{proxy.root}/readyz"
        until(lambda: httpx.get(readyz, timeout=5).status_code == 200, what="the recall")
        section = router_status(proxy.root)["extra"]["canary"]
    assert calls == [str(SHIPPED / "math"), str(broken)]  # the start's, then the reload's
    assert section["gated"] == {} and section["runs"] == 1
    assert read and min(read) == ago(1)  # the start's suites count: no older day read


def coding_floor_on_math_rounds(ledger: Path) -> dict[str, Any]:
    """A follower's config with a coding floor, on a ledger of math rounds only (the job
    runs the shipped math suite): a start that knows the job's suites reads today's 59
    results per gate (`GateBook.memory`) and no older day; one that does not walks to the
    failures 3 and 6 days back."""
    write_rounds(ledger, 6, {"cloud": ["fail"] * 3, "local": ["fail"] * 3}, n=1)
    write_rounds(ledger, 3, {"cloud": ["fail"] * 3, "local": ["fail"] * 3}, n=1)
    write_rounds(ledger, 0.1, {"cloud": ["pass"] * 59, "local": ["pass"] * 59}, n=1)
    canary = {**CANARY, "suites": str(SHIPPED / "math"), "floors": {"math": 0.6, "coding": 0.6}}
    backends = {"backends": [LOCAL, CLOUD], "ledger": {"path": str(ledger)}}
    return backends | {"canary": canary, "resilience": {"enabled": False}}


def test_a_window_is_recalled_across_several_old_days(tmp_path: Path) -> None:
    """Three failures on each of two days, six and eight days back: six results, a gate
    neither day closes alone (min_samples 5), read together, oldest first."""
    write_rounds(tmp_path, 8, {"cloud": ["fail"] * 3}, n=1)
    write_rounds(tmp_path, 6, {"cloud": ["fail"] * 3}, n=1)
    assert follower_gates(settings(tmp_path)) == {"cloud": frozenset({"math"})}


def spy_days(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The first days `RecentRows.read` is asked for, from now on."""
    days: list[str] = []
    read = RecentRows.read

    def spy(self: RecentRows, first_day: str, *rest: Any, **named: Any) -> Any:
        days.append(first_day)
        return read(self, first_day, *rest, **named)

    monkeypatch.setattr(RecentRows, "read", spy)
    return days


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).date().isoformat()


def erring_days(ledger: Path, days: int) -> None:
    """A round of cloud math errors on each of `days` days from two days back: a gate that
    never fills, so a recall walks every one of them."""
    for days_ago in range(2, 2 + days):
        write_rounds(ledger, days_ago, {"cloud": ["error"] * 3}, n=1)


def older_days_read(monkeypatch: pytest.MonkeyPatch, each: Callable[[int], None]) -> list[str]:
    """The older days a recall reads (`canary_runs` ones), `each(count)` called after each."""
    days: list[str] = []
    read = RecentRows.read

    def spy(
        self: RecentRows, first_day: str, last_day: str | None = None, now: float | None = None
    ) -> Any:
        rows = read(self, first_day, last_day, now)
        if last_day is not None and self.table == "canary_runs":
            days.append(first_day)
            each(len(days))
        return rows

    monkeypatch.setattr(RecentRows, "read", spy)
    return days


def test_a_stopped_recall_reads_no_further_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`stop` (a shutdown hook) ends the walk at the next day: it could not be stopped, and
    a shutdown waited for its worker thread, 9 s over 30 uncompacted days."""
    erring_days(tmp_path, 10)
    config = settings(tmp_path)
    judge = Judge(gate_book(config.canary), None, lambda: ["local", "cloud"])
    follower = Follower(judge, tmp_path, lambda: config)
    read = older_days_read(monkeypatch, lambda n: follower.stop() if n == 3 else None)
    asyncio.run(follower.follow_once())
    assert len(read) == 3


def test_a_cancelled_recall_reads_no_further_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job cancelled at stop (`Components.stop`, a harness without shutdown hooks):
    its thread ends at the next day, and `asyncio.run` returns then, not after the walk."""
    erring_days(tmp_path, 10)
    config = settings(tmp_path)
    judge = Judge(gate_book(config.canary), None, lambda: ["local", "cloud"])
    first = threading.Event()
    read = older_days_read(monkeypatch, lambda n: (first.set(), time.sleep(0.1)))

    async def cancelled() -> None:
        task = asyncio.ensure_future(Follower(judge, tmp_path, lambda: config).follow_once())
        await asyncio.to_thread(first.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancelled())
    assert 1 <= len(read) <= 2


def test_the_canarys_stop_ends_its_recall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`Schedule.stopping` (the shutdown hook, as the drain starts) ends the recall too."""
    erring_days(tmp_path, 10)
    config = settings(tmp_path)
    canary = Canary(config, load(SHIPPED / "math"), gate_book(config.canary))
    schedule = Schedule(canary, lambda: config, tmp_path)
    first = threading.Event()
    read = older_days_read(monkeypatch, lambda n: (first.set(), time.sleep(0.1)))

    async def stopped() -> None:
        recall = asyncio.ensure_future(schedule.recall())
        await asyncio.to_thread(first.wait, 10)
        schedule.stopping()
        await recall

    asyncio.run(stopped())
    assert 1 <= len(read) <= 2


def test_what_the_listing_leaves_out_is_said_once_per_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A copy someone kept (`day=...bak`) is no day: said once, not once by the follower's
    reader and again by the recall's own (found in re-review)."""
    erring_days(tmp_path, 3)
    (tmp_path / "canary_runs" / "day=2026-11-20.bak").mkdir()
    with caplog.at_level(logging.WARNING, "smf_router.ledger.recent"):
        follower_gates(settings(tmp_path))
    said = [r for r in caplog.records if "not a day partition" in r.getMessage()]
    assert len(said) == 1


def test_the_recall_keeps_the_latest_days_files_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recall reads older days with the follower's readers, one-offs: the latest days'
    files stay read, and the next read reads none of them again."""
    erring_days(tmp_path, 3)
    write_rounds(tmp_path, 0, {"cloud": ["error"] * 3}, n=1)
    config = settings(tmp_path)
    judge = Judge(gate_book(config.canary), None, lambda: ["local", "cloud"])
    follower = Follower(judge, tmp_path, lambda: config)
    asyncio.run(follower.follow_once())
    verified: list[Path] = []
    verify = checksum.verify
    monkeypatch.setattr(checksum, "verify", lambda path: (verified.append(path), verify(path)))
    asyncio.run(follower.follow_once())
    assert verified == []
