"""A router's housekeeping pass stops at shutdown: it runs in a thread, which a SIGTERM does
not interrupt, and the interpreter waits for it at exit. A restart during the first pass over
a large backlog (a year's takes about a minute) outlasted systemd's stop timeout and was
killed (found in review). A pass told to stop begins no further day; the job tells it when
the router stops. A router's pass runs in a child process (`router.ledger_jobs`), told with
a SIGTERM: a day is slowed there by a `sitecustomize` on the child's PYTHONPATH."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from router import maintenance
from router.config import parse
from router.ledger import compaction
from router.ledger.compaction import CompactionResult
from tests.harness import config_for, router, simulator, wait_until
from tests.ledger.ledger_days import write_day
from tests.router.offline import OFFLINE


def closed_days(ledger: Path, n: int, files: int, text: bool = False) -> list[Path]:
    """`n` closed days of records (and of texts, if `text`), `files` files each to merge."""
    first = datetime.now(UTC) - timedelta(days=n + 2)
    days = [write_day(ledger, first + timedelta(days=i), files, f"d{i}", text) for i in range(n)]
    texts = [ledger / "texts" / day.name for day in days] if text else []
    return days + texts


def merged(days: list[Path]) -> list[Path]:
    return [day for day in days if len(list(day.glob("*.parquet"))) == 1]


SLOW_DAY = """
import time
from pathlib import Path
from router.ledger import compaction

HERE = Path(__file__).parent
compact_day = compaction._compact_day


def slow_day(directory, table, path, result):  # a big day's merge, as the test says
    with (HERE / "begun").open("a") as begun:
        begun.write(f"{path}\\n")
    end = time.monotonic() + float((HERE / "hold_s").read_text())
    while time.monotonic() < end and not (HERE / "release").exists():
        time.sleep(0.02)
    compact_day(directory, table, path, result)


compaction._compact_day = slow_day
"""


def slowed_children(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hold_s: float) -> Path:
    """The folder of a `sitecustomize` that holds each day of a pass's child `hold_s`
    (or until a `release` file is there) and names it in `begun` first."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SLOW_DAY)
    (hook / "hold_s").write_text(str(hold_s))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")]))
    )
    return hook


def begun_in(hook: Path) -> list[Path]:
    """The days the child's pass began, in order."""
    begun = hook / "begun"
    return [Path(line) for line in begun.read_text().splitlines()] if begun.exists() else []


def test_a_pass_told_to_stop_finishes_its_day_and_begins_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Set while the first day is merged: that day is merged, no other day of its table nor
    of the next table is begun, and the pass returns."""
    ledger = tmp_path / "ledger"
    days = closed_days(ledger, 5, 3, text=True)
    stop = threading.Event()
    begun: list[Path] = []
    compact_day = compaction._compact_day

    def first_then_stop(directory: Path, table: str, path: Path, result: CompactionResult) -> None:
        begun.append(path)
        stop.set()  # as a shutdown does, while this day is being merged
        compact_day(directory, table, path, result)

    monkeypatch.setattr(compaction, "_compact_day", first_then_stop)
    config = parse({**OFFLINE, "ledger": {"path": str(ledger)}})
    housekeeping = threading.Thread(target=maintenance.housekeep, args=(config, stop))
    housekeeping.start()
    housekeeping.join(timeout=120)  # a hang guard
    assert not housekeeping.is_alive()
    assert len(begun) == 1
    assert merged(days) == begun, "the day under way is merged, the other nine wait"


def test_a_pass_told_to_stop_before_it_begins_drops_and_merges_nothing(tmp_path: Path) -> None:
    """Retention checks it before each table, as compaction does before each day."""
    ledger = tmp_path / "ledger"
    days = closed_days(ledger, 2, 2, text=True)
    config = parse({**OFFLINE, "ledger": {"path": str(ledger), "retention_days": 1}})
    stop = threading.Event()
    stop.set()
    maintenance.housekeep(config, stop)
    assert all(day.is_dir() for day in days) and merged(days) == []
    maintenance.housekeep(config)  # no stop (`smf-router ledger compact`): all of it
    assert not any(day.exists() for day in days)


def test_a_router_stopping_stops_its_housekeeping_pass_after_the_day_under_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job cancelled at shutdown (`Components.stop`) tells the pass's thread to stop:
    before, the thread went on through every closed day after the router had stopped."""
    monkeypatch.setattr(maintenance, "FIRST_S", 0)
    ledger = tmp_path / "ledger"
    days = closed_days(ledger, 3, 2)
    slowed = slowed_children(tmp_path, monkeypatch, 0.5)  # the router stops meanwhile
    ended = threading.Event()
    housekeeping_pass = maintenance._pass

    def watched(*args: Any) -> None:
        try:
            housekeeping_pass(*args)
        finally:
            ended.set()

    monkeypatch.setattr(maintenance, "_pass", watched)
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path, ledger={"path": str(ledger)})
        with router(config):
            assert wait_until(lambda: begun_in(slowed), 60), "no housekeeping pass after start"
    assert ended.wait(60), "the pass never ended"  # a hang guard
    begun = begun_in(slowed)
    assert len(begun) == 1, f"the pass went on after the router stopped: {begun}"
    assert merged(days) == begun


def installed(config: Any) -> SimpleNamespace:
    """`maintenance.install`'s part of a router's components: its job and shutdown hook."""
    components = SimpleNamespace(
        config=config, background=[], shutdown_hooks=[], extra_endpoints=[]
    )
    maintenance.install(components)
    return components


def test_the_pass_stops_as_the_shutdown_begins_not_after_the_drain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pass was told to stop only when the job was cancelled, once the requests' drain
    was over: a SIGTERM took `drain_s` plus up to `STOP_WAIT_S`, not the longer of `drain_s`
    and the canary's 12 s as the docs say. The shutdown's hook (told as the drain starts)
    stops it after the day under way, the job not cancelled yet."""
    monkeypatch.setattr(maintenance, "FIRST_S", 0)
    ledger = tmp_path / "ledger"
    days = closed_days(ledger, 3, 2)
    slowed = slowed_children(tmp_path, monkeypatch, 0.5)  # the shutdown begins meanwhile
    components = installed(parse({**OFFLINE, "ledger": {"path": str(ledger)}}))
    (job,) = components.background

    async def drained() -> None:
        task = asyncio.create_task(job())
        in_pass = await asyncio.to_thread(wait_until, lambda: begun_in(slowed), 60)
        assert in_pass, "no housekeeping pass"
        for hook in components.shutdown_hooks:  # `Components.shutting_down`
            hook()
        await asyncio.wait_for(task, 10)  # the drain goes on: the job is not cancelled

    asyncio.run(drained())
    begun = begun_in(slowed)
    assert len(begun) == 1, f"the pass went on after the shutdown began: {begun}"
    assert merged(days) == begun


def test_the_wait_for_a_stopped_pass_counts_from_the_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelled after a drain longer than `STOP_WAIT_S`, the job waits no more for a pass
    still merging its day: its wait began with the stop."""
    monkeypatch.setattr(maintenance, "FIRST_S", 0)
    monkeypatch.setattr(maintenance, "STOP_WAIT_S", 1.0)
    ledger = tmp_path / "ledger"
    closed_days(ledger, 2, 2)
    slowed = slowed_children(tmp_path, monkeypatch, 30)  # a day merged longer than the drain
    release = slowed / "release"
    components = installed(parse({**OFFLINE, "ledger": {"path": str(ledger)}}))
    (job,) = components.background

    async def drained() -> float:
        task = asyncio.create_task(job())
        in_pass = await asyncio.to_thread(wait_until, lambda: begun_in(slowed), 60)
        assert in_pass, "no housekeeping pass"
        for hook in components.shutdown_hooks:
            hook()
        await asyncio.sleep(1.2)  # the drain, longer than STOP_WAIT_S
        task.cancel()  # `Components.stop`
        cancelled = time.monotonic()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        waited = time.monotonic() - cancelled
        release.touch()  # the pass's thread ends: the loop's close waits for it
        return waited

    try:
        waited = asyncio.run(drained())
    finally:
        release.touch()
    assert waited < 0.5, f"waited {waited:.2f} s more after the drain"
