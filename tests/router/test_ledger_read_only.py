"""A ledger on a filesystem that is read-only when the router starts (remounted read-only
after a disk error, a USB disk), under real `smf-router` processes and a real read-only
mount (`tests.ledger.read_only_mount`).

While running, the router goes on through a read-only remount: rows held in memory, one
warning, written back once writes work. At start the same remount was "can never hold the
ledger" and exit 2, which systemd's RestartPreventExitStatus=2 took for a bad config: a
crash or a `systemctl restart` during the remount left the gateway down until someone
came (found in a long-running-operation review). A directory that holds a ledger is now
served as at runtime; one that holds none (most likely systemd's ProtectSystem=strict over
a path outside ReadWritePaths=) is still refused, with exit 2, saying what it is.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from router.ledger import LedgerWriter
from router.ledger.conversation_key import conversation_secret
from router.ledger.unwritable import Unwritable
from router.record import Record
from tests.harness import VENV_BIN, config_for, free_port, sdk, simulator
from tests.ledger.failing_disk import ids
from tests.ledger.file_modes import unwritable
from tests.ledger.read_only_mount import read_only, writable_again
from tests.processes import router_process
from tests.router.test_ledger_path import write_config
from tests.slots import status_extra
from tests.waiting import wait_until

ASKED = 3


def made_ledger(folder: Path) -> None:
    """A ledger as a router left it: a day of records and the conversation key."""
    writer = LedgerWriter(folder)
    writer.submit(Record("before", time.time()))
    writer.close()
    conversation_secret(folder)


def smf_router(wrapper: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*wrapper, str(VENV_BIN / "smf-router"), *args],
        capture_output=True,
        text=True,
        timeout=60,  # bounded below the test's own timeout
        check=False,
    )


def log_lines(tmp_path: Path, root: str) -> list[dict[str, Any]]:
    log = tmp_path / f"router-{root.rsplit(':', 1)[1]}.log"
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]


def test_serve_starts_on_a_read_only_ledger_and_writes_its_rows_once_it_is_writable(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "ledger"
    made_ledger(ledger)
    wrapper = read_only(ledger)
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path).model_dump(mode="json")
        with router_process(config, tmp_path, wrapper=wrapper) as (proxy, process):
            section = status_extra(proxy)["ledger"]  # before any traffic: nothing failed yet
            assert section["last_write_failed"] is True, section
            assert section["last_ok_flush_unix"] is None and section["pending_rows"] == 0
            client = sdk(proxy, timeout=30)
            for _ in range(ASKED):
                client.chat.completions.create(
                    model="local", messages=[{"role": "user", "content": "hi"}], max_tokens=5
                )
            held = wait_until(lambda: status_extra(proxy)["ledger"]["pending_rows"] == ASKED)
            assert held, status_extra(proxy)["ledger"]
            section = status_extra(proxy)["ledger"]
            assert section["written_records"] == 0 and section["last_write_failed"] is True
            writable_again(process.pid, ledger)
            written = wait_until(
                lambda: status_extra(proxy)["ledger"]["written_records"] == ASKED, seconds=30
            )
            section = status_extra(proxy)["ledger"]
            assert written, section
            assert section["pending_rows"] == 0 and section["last_write_failed"] is False
            assert section["dropped_rows"]["records"] == 0
        assert process.wait(timeout=30) == 0
        lines = log_lines(tmp_path, proxy.root)
    [said] = [line for line in lines if "is read-only now" in line["msg"]]
    assert said["level"] == "warning" and f"ledger.path: {str(ledger)!r}" in said["msg"]
    assert "held in memory until it is writable again" in said["msg"]
    assert not [line for line in lines if line["level"] in ("error", "critical")], lines
    assert len(ids(ledger)) == 1 + ASKED and "before" in ids(ledger)


@pytest.mark.parametrize("kind", ["empty", "still to be made"])
def test_serve_refuses_a_read_only_directory_that_holds_no_ledger_saying_so(
    tmp_path: Path, kind: str
) -> None:
    """The ProtectSystem=strict case, and a read-only disk never written: exit 2 still, but
    "read-only now", not "can never hold", with where to look."""
    state = tmp_path / "state"
    state.mkdir()
    ledger = state if kind == "empty" else state / "ledger"
    wrapper = read_only(state)
    config = write_config(tmp_path, str(ledger))
    done = smf_router(wrapper, "serve", "--config", str(config), "--port", str(free_port()))
    assert done.returncode == 2, done.stderr
    assert f"error: ledger.path: {str(ledger)!r} is read-only now (" in done.stderr
    assert "Read-only file system), and holds no ledger yet" in done.stderr
    assert "ProtectSystem=strict" in done.stderr and "ReadWritePaths=" in done.stderr
    assert "can never hold" not in done.stderr and "chown" not in done.stderr
    assert "Traceback" not in done.stderr and "listening on" not in done.stderr
    checked = smf_router(wrapper, "config", "check", "--config", str(config))
    assert checked.returncode == 0, checked.stderr
    assert "holds no ledger yet: `serve` would refuse to start" in checked.stderr


def test_canary_run_and_config_check_on_a_read_only_ledger(tmp_path: Path) -> None:
    """`canary run` shares the start's check: it runs as `serve` starts, warned, its rows
    held until the exit (lost then, if still read-only: said as an error)."""
    ledger = tmp_path / "ledger"
    made_ledger(ledger)
    wrapper = read_only(ledger)
    config = write_config(tmp_path, str(ledger))
    done = smf_router(wrapper, "canary", "run", "--config", str(config))
    assert done.returncode == 3, done.stdout + done.stderr  # nothing graded: a dead backend
    assert f"warning: ledger.path: {str(ledger)!r} is read-only now (" in done.stderr
    assert "rows it could not write: they are lost" in done.stderr
    assert "error: ledger.path" not in done.stderr and "Traceback" not in done.stderr
    checked = smf_router(wrapper, "config", "check", "--config", str(config))
    assert checked.returncode == 0, checked.stderr
    assert "is read-only now: `serve` would start anyway" in checked.stderr
    assert ids(ledger) == ["before"]


def test_an_idle_writer_finds_the_ledger_writable_again_without_a_row(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With no traffic no write fails, nor succeeds: the status said all was well on a
    read-only ledger, or stayed failed after it came back. An idle flush probes it."""
    writer = LedgerWriter(tmp_path / "ledger", flush_interval_s=3600)
    doing = "cannot create a file in it"
    writer.failed_at_start(Unwritable(str(writer.directory), writer.directory, doing, "X", True))
    with unwritable(writer.directory):
        assert writer.flush() == 0
        assert writer.last_write_failed and writer.last_ok_flush_unix is None
    assert not caplog.records
    assert writer.flush() == 0
    assert not writer.last_write_failed and writer.last_ok_flush_unix is not None
    [said] = [r.getMessage() for r in caplog.records]
    assert f"ledger writes work in {writer.directory} again" in said
    assert writer.flush() == 0 and len(caplog.records) == 1  # said once
    writer.close()
    assert not list(writer.directory.rglob(".probe.*"))
