"""`GET /v1/router/status` shows the ledger writer's health (`extra.ledger`), through a running
router: a full disk or an unwritable ledger directory showed only in the log and Prometheus
(found in an operations review)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from router.ledger import LedgerWriter
from router.record import Record
from tests.harness import RunningRouter, config_for, router, sdk, simulator, wait_until
from tests.ledger.failing_disk import Disk
from tests.ledger.file_modes import unwritable
from tests.slots import status_extra

PROMPT = "Say something about ledgers, please."


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[RunningRouter]:
    """A router over one simulator, its ledger in `tmp_path/ledger`, flushed every 0.2 s."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as running,
    ):
        yield running


def ask(proxy: RunningRouter, n: int) -> None:
    client = sdk(proxy, timeout=30)
    for _ in range(n):
        client.chat.completions.create(
            model="local", messages=[{"role": "user", "content": PROMPT}]
        )


def ledger(proxy: RunningRouter) -> dict[str, Any]:
    section: dict[str, Any] = status_extra(proxy)["ledger"]
    return section


def written(proxy: RunningRouter, records: int) -> dict[str, Any]:
    """The section once `records` request records are written and nothing waits (a hang
    guard, not a timed assertion)."""
    done = wait_until(
        lambda: ledger(proxy)["written_records"] >= records and ledger(proxy)["queue_depth"] == 0
    )
    section = ledger(proxy)
    assert done, section
    return section


def test_a_healthy_router_shows_its_ledger_written_and_nothing_held(
    proxy: RunningRouter, tmp_path: Path
) -> None:
    started = time.time()
    ask(proxy, 3)
    section = written(proxy, 3)
    assert section["path"] == str(tmp_path / "ledger")
    assert section["pending_rows"] == 0 and section["queue_depth"] == 0
    assert section["written_records"] == 3
    assert section["dropped_rows"] == {
        "records": 0,
        "texts": 0,
        "canary_results": 0,
        "canary_runs": 0,
        "canary_starts": 0,
        "shadow_comparisons": 0,
    }
    assert section["last_write_failed"] is False
    assert started <= section["last_ok_flush_unix"] <= time.time()
    assert started <= section["last_write_unix"] <= section["last_ok_flush_unix"]
    # a flush with nothing to write moves the one, not the other
    idle = wait_until(lambda: ledger(proxy)["last_ok_flush_unix"] > section["last_write_unix"])
    assert idle, ledger(proxy)
    assert ledger(proxy)["last_write_unix"] == section["last_write_unix"]
    # counts and times only: no row's contents
    assert PROMPT not in httpx.get(f"{proxy.root}/v1/router/status", timeout=5).text


def test_an_unwritable_ledger_shows_its_held_rows_until_it_is_writable_again(
    proxy: RunningRouter, tmp_path: Path
) -> None:
    ask(proxy, 1)
    written(proxy, 1)
    records = tmp_path / "ledger" / "records"
    with contextlib.ExitStack() as stack:  # no new day (midnight) and no file in today's
        for day in sorted(records.iterdir()):
            stack.enter_context(unwritable(day))
        stack.enter_context(unwritable(records))
        ask(proxy, 2)
        assert wait_until(lambda: ledger(proxy)["pending_rows"] >= 2), ledger(proxy)
        failing = ledger(proxy)
        assert failing["last_write_failed"] is True
        assert failing["written_records"] == 1 and failing["queue_depth"] == 0
        assert sum(failing["dropped_rows"].values()) == 0
        ask(proxy, 1)  # a later failed flush does not pass for a successful one
        assert wait_until(lambda: ledger(proxy)["pending_rows"] >= 3), ledger(proxy)
        assert ledger(proxy)["last_ok_flush_unix"] == failing["last_ok_flush_unix"]
        assert ledger(proxy)["last_write_unix"] == failing["last_write_unix"] is not None
    assert wait_until(lambda: ledger(proxy)["pending_rows"] == 0), ledger(proxy)
    recovered = written(proxy, 4)
    assert recovered["written_records"] == 4
    assert recovered["last_write_failed"] is False
    assert recovered["last_ok_flush_unix"] > failing["last_ok_flush_unix"]
    assert recovered["last_write_unix"] > failing["last_write_unix"]
    assert sum(recovered["dropped_rows"].values()) == 0


def test_the_last_write_is_when_rows_were_written_not_the_last_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`last_ok_flush_unix` moves with every flush that leaves nothing unwritten, one with
    nothing to write too: on an idle router it said when the flush thread last ran, not when
    rows last reached the disk (found in review). `last_write_unix` says that."""
    disk = Disk(monkeypatch)
    disk.full = False
    writer = LedgerWriter(tmp_path, flush_interval_s=3600)
    assert writer.status()["last_write_unix"] is None
    assert writer.flush() == 0
    assert writer.status()["last_write_unix"] is None  # a flush, but no row written yet
    before = time.time()
    writer.submit(Record("r1", before))
    assert writer.flush() == 1
    wrote = writer.status()
    assert before <= wrote["last_write_unix"] == wrote["last_ok_flush_unix"] <= time.time()
    assert writer.flush() == 0  # nothing to write: a successful flush, no write
    idle = writer.status()
    assert idle["last_write_unix"] == wrote["last_write_unix"]
    assert idle["last_ok_flush_unix"] >= wrote["last_ok_flush_unix"]
    disk.full = True
    writer.submit(Record("r2", time.time()))
    assert writer.flush() == 0  # a failed write moves neither
    failed = writer.status()
    assert failed["last_write_unix"] == wrote["last_write_unix"]
    assert failed["last_ok_flush_unix"] == idle["last_ok_flush_unix"]
    disk.full = False
    assert writer.flush() == 1
    assert writer.status()["last_write_unix"] >= failed["last_ok_flush_unix"]
    writer.close()
