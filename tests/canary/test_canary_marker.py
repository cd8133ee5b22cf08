"""How a router's schedule writes its run marks (`router.canary_mark.Marker`): one write in
flight at a time, the newest start last, what goes wrong said once. Real files in a
temporary ledger directory; the write of each start held where a test needs it."""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest

import router.canary_mark as canary_mark
from router.canary_mark import MARK_FILE, Marker
from tests.canary.stopping import until_true


class Volume:
    """Stands in for `mark_start`: the real write, each start's held while the test holds it
    (`hold`), and each start's entry and end seen (`entered`, `written`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.real = canary_mark.mark_start
        self.hold: dict[float, threading.Event] = {}
        self.entered: defaultdict[float, threading.Event] = defaultdict(threading.Event)
        self.written: list[float] = []
        monkeypatch.setattr(canary_mark, "mark_start", self)

    def held(self, started: float) -> threading.Event:
        """Hold the write of `started` until the returned event is set."""
        self.hold[started] = threading.Event()
        return self.hold[started]

    def __call__(self, directory: Path, started: float, *args: Any) -> bytes:
        self.entered[started].set()
        if started in self.hold:
            self.hold[started].wait(10)
        wrote = self.real(directory, started, *args)
        self.written.append(started)
        return wrote


class Recording(ThreadPoolExecutor):
    """The loop's default executor, keeping the future of each write it runs."""

    def __init__(self) -> None:
        super().__init__(max_workers=4)
        self.futures: list[Future[Any]] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = super().submit(fn, *args, **kwargs)
        self.futures.append(future)
        return future


def marked(directory: Path) -> float | None:
    """The start the mark file in `directory` says; None without one."""
    path = directory / MARK_FILE
    return float(orjson.loads(path.read_bytes())["started"]) if path.exists() else None


async def settled() -> None:
    """Until the writes begun are over and their ends seen (`Marker._written`): the loop's
    executor has one worker (`one_worker`), which runs this after them, and the loop sees
    this one end after theirs."""
    await asyncio.get_running_loop().run_in_executor(None, lambda: None)


def one_worker() -> None:
    """The running loop's writes on one thread, one after the other (`settled`)."""
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=1))


def test_a_run_that_starts_as_a_write_ends_has_its_start_written_after_the_queued_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run 1's write stalled, run 2's start queued behind it. Run 3 starts in the loop turn
    the stalled write ends, before that write's callback runs: it saw the write done and
    wrote its own start at once, and the callback then started run 2's, two writes in
    flight, the older landing last (found in review). Run 3's start takes run 2's place in
    the queue, and is the one the file says."""
    monkeypatch.setattr(canary_mark, "MARK_WAIT_S", 0.05)
    volume = Volume(monkeypatch)
    stalled = volume.held(1.0)
    third_written = threading.Event()
    volume.hold[2.0] = third_written  # run 2's write, if it starts, lands after run 3's
    executor = Recording()

    async def runs() -> None:
        asyncio.get_running_loop().set_default_executor(executor)
        marker = Marker(tmp_path, lambda: "me")
        await marker.mark(1.0, [])  # past `MARK_WAIT_S`: the run goes on
        await marker.mark(2.0, [])  # queued
        ended = threading.Event()
        (first,) = executor.futures
        first.add_done_callback(lambda _: ended.set())  # after the loop was told it ended
        stalled.set()
        assert ended.wait(10)  # the loop blocked: the end is queued on it, not yet seen
        await asyncio.ensure_future(marker.mark(3.0, []))  # before the write's callback
        await until_true(lambda: 3.0 in volume.written, "run 3's start written")
        third_written.set()
        await until_true(lambda: all(f.done() for f in executor.futures), "every write over")

    asyncio.run(runs())
    executor.shutdown()
    assert volume.written == [1.0, 3.0]
    assert marked(tmp_path) == 3.0


def test_a_slow_volume_that_writes_every_mark_is_said_slow_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Each mark is written, each past `MARK_WAIT_S` (a slow network volume). The slow
    write cleared what had been said, and its end said the marks were "written again":
    two warnings every run, for as long (found in review). Slowness is said once; "written
    again" follows a write that failed."""
    monkeypatch.setattr(canary_mark, "MARK_WAIT_S", 0.05)
    volume = Volume(monkeypatch)

    async def runs() -> None:
        one_worker()
        marker = Marker(tmp_path, lambda: "me")
        for start in (1.0, 2.0, 3.0, 4.0):
            released = volume.held(start)
            await marker.mark(start, [])  # past `MARK_WAIT_S`: the run goes on
            released.set()  # and then the write lands
            await settled()
            assert marked(tmp_path) == start

    asyncio.run(runs())
    said = [r.getMessage() for r in caplog.records if "mark" in r.getMessage()]
    assert len([m for m in said if "is not written after 0.05 s" in m]) == 1, said
    assert not [m for m in said if "written again" in m], said
    assert marked(tmp_path) == 4.0


def test_slowness_is_said_again_after_a_quick_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A volume that stalls, answers quickly for a while, then stalls again: each stall is
    news. Said once more, with no "written again" between."""
    monkeypatch.setattr(canary_mark, "MARK_WAIT_S", 0.05)
    volume = Volume(monkeypatch)

    async def runs() -> None:
        one_worker()
        marker = Marker(tmp_path, lambda: "me")
        for start in (1.0, 2.0, 3.0):
            released = volume.held(start) if start != 2.0 else None
            await marker.mark(start, [])
            if released is not None:
                released.set()
            await settled()
            assert marked(tmp_path) == start

    asyncio.run(runs())
    said = [r.getMessage() for r in caplog.records if "mark" in r.getMessage()]
    assert len([m for m in said if "is not written after 0.05 s" in m]) == 2, said
    assert not [m for m in said if "written again" in m], said


def test_a_start_queued_behind_a_stalled_write_at_exit_is_said_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The router exits with run 1's write stalled and run 2's start queued behind it. As
    the loop shuts its executor down, the stalled write lands, and starting the queued one
    on that executor failed in the loop's callback ("Exception in callback ... Executor
    shutdown has been called"), run 2's start lost without a word (found in review). One
    warning says it was not written."""
    monkeypatch.setattr(canary_mark, "MARK_WAIT_S", 0.05)
    volume = Volume(monkeypatch)
    stalled = volume.held(1.0)

    async def exiting() -> None:
        marker = Marker(tmp_path, lambda: "me")
        await marker.mark(1.0, [])  # past `MARK_WAIT_S`: the run goes on
        await marker.mark(2.0, [])  # queued
        loop = asyncio.get_running_loop()
        shutdown = asyncio.ensure_future(loop.shutdown_default_executor())  # as `run` exits
        await asyncio.sleep(0)  # it has begun: the executor takes no more work
        stalled.set()
        await shutdown

    asyncio.run(exiting())
    assert volume.written == [1.0]
    assert marked(tmp_path) == 1.0
    assert not [r for r in caplog.records if r.name == "asyncio"], caplog.text
    said = [r.getMessage() for r in caplog.records if "was not written" in r.getMessage()]
    assert len(said) == 1, caplog.text
    assert "the router is exiting" in said[0]


def test_a_mark_taken_back_after_its_slow_write_lands_leaves_the_one_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run 2's write is past `MARK_WAIT_S` when the run is stopped before it asks anything
    (`Schedule._once`): the mark goes back as that write found it, once it has landed."""
    monkeypatch.setattr(canary_mark, "MARK_WAIT_S", 0.05)
    volume = Volume(monkeypatch)
    stalled = volume.held(2.0)

    async def runs() -> None:
        one_worker()
        marker = Marker(tmp_path, lambda: "me")
        await marker.mark(1.0, [])
        await marker.mark(2.0, [])  # past `MARK_WAIT_S`: the run goes on, and is stopped
        await marker.unmark()  # after the write in flight: not waited for
        assert volume.written == [1.0]
        stalled.set()
        await settled()  # run 2's write
        await settled()  # and the mark put back after it
        assert volume.written == [1.0, 2.0]

    asyncio.run(runs())
    assert marked(tmp_path) == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == [MARK_FILE]


def test_a_queued_start_taken_back_leaves_the_one_it_replaced_in_the_queue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run 1's write stalls; run 2's start queues behind it, then run 3's in its place, and
    run 3 is stopped before it asks anything: run 2's start is written after run 1's, as if
    run 3 had never been marked."""
    monkeypatch.setattr(canary_mark, "MARK_WAIT_S", 0.05)
    volume = Volume(monkeypatch)
    stalled = volume.held(1.0)

    async def runs() -> None:
        one_worker()
        marker = Marker(tmp_path, lambda: "me")
        for start in (1.0, 2.0, 3.0):
            await marker.mark(start, [])
        await marker.unmark()
        stalled.set()
        await settled()  # run 1's write
        await settled()  # and the one queued after it
        await marker.unmark()  # nothing more to take back: the last mark was taken back
        await settled()

    asyncio.run(runs())
    assert volume.written == [1.0, 2.0]
    assert marked(tmp_path) == 2.0


def test_a_mark_taken_back_leaves_another_routers_newer_mark(tmp_path: Path) -> None:
    """Routers on one ledger share the mark file. R1 marks a run (over R2's mark of run 1)
    that is stopped before it asks anything, and R2 marks its run 3 before R1's mark is
    taken back: putting run 1's mark back over run 3's had R2's restart go on from run 1
    (found in review). A mark file gone meanwhile is not brought back either."""
    canary_mark.mark_start(tmp_path, 1.0, [], "R2 :4000")
    swap = canary_mark.swap_mark(tmp_path, 2.0, [], "R1 :4000")
    canary_mark.mark_start(tmp_path, 3.0, [], "R2 :4000")
    canary_mark.restore_mark(tmp_path, swap)
    assert marked(tmp_path) == 3.0
    assert orjson.loads((tmp_path / MARK_FILE).read_bytes())["writer"] == "R2 :4000"

    swap = canary_mark.swap_mark(tmp_path, 4.0, [], "R1 :4000")
    (tmp_path / MARK_FILE).unlink()
    canary_mark.restore_mark(tmp_path, swap)
    assert marked(tmp_path) is None

    canary_mark.mark_start(tmp_path, 5.0, [], "R2 :4000")
    swap = canary_mark.swap_mark(tmp_path, 6.0, [], "R1 :4000")
    canary_mark.restore_mark(tmp_path, swap)  # untouched since: put back
    assert marked(tmp_path) == 5.0
    assert sorted(p.name for p in tmp_path.iterdir()) == [MARK_FILE]
