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

`canary run` is not `serve`: it exits within minutes, and rows still held then are lost.
It is refused on a ledger it cannot write now (exit 2, as before), and a round whose rows
the ledger did not take by its exit fails (exit 1).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from router.ledger import LedgerWriter
from router.ledger.conversation_key import conversation_secret
from router.ledger.unwritable import Unwritable
from router.record import Record
from tests.canary.servers import math_gating_canary
from tests.harness import INTENTS, VENV_BIN, Running, config_for, sdk, simulator
from tests.ledger.failing_disk import ids
from tests.ledger.file_modes import unwritable
from tests.ledger.read_only_mount import (
    full,
    no_space,
    own_mount,
    read_only,
    read_only_again,
    room_again,
    writable_again,
)
from tests.ports import ran
from tests.processes import router_process
from tests.router.test_ledger_path import write_config
from tests.slots import must_reach, status_extra
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
            held = wait_until(lambda: status_extra(proxy)["ledger"]["pending_rows"] == ASKED, 30)
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


def test_serve_warns_at_start_of_a_disk_out_of_space_and_writes_once_there_is_room(
    tmp_path: Path,
) -> None:
    """A disk full of data with inodes to spare: the start's probe created (and removed) an
    empty file, found the ledger writable, and said nothing; the status said all was well
    until traffic came (found in a durability review). The probe writes a block now."""
    ledger = tmp_path / "ledger"
    ledger.mkdir()
    wrapper = no_space(ledger)
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path).model_dump(mode="json")
        config["ledger"] = {"path": str(ledger), "flush_interval_s": 0.2}
        with router_process(config, tmp_path, wrapper=wrapper) as (proxy, process):
            section = status_extra(proxy)["ledger"]  # before any traffic
            assert section["last_write_failed"] is True, section
            client = sdk(proxy, timeout=30)
            for _ in range(ASKED):
                client.chat.completions.create(
                    model="local", messages=[{"role": "user", "content": "hi"}], max_tokens=5
                )
            held = wait_until(lambda: status_extra(proxy)["ledger"]["pending_rows"] == ASKED, 30)
            assert held, status_extra(proxy)["ledger"]
            room_again(process.pid, ledger)
            written = wait_until(
                lambda: status_extra(proxy)["ledger"]["written_records"] == ASKED, seconds=30
            )
            section = status_extra(proxy)["ledger"]
            assert written, section
            assert section["pending_rows"] == 0 and section["last_write_failed"] is False
        assert process.wait(timeout=30) == 0
        lines = log_lines(tmp_path, proxy.root)
    [said] = [line for line in lines if "cannot be written now" in line["msg"]]
    assert said["level"] == "warning" and f"ledger.path: {str(ledger)!r}" in said["msg"]
    assert "No space left on device" in said["msg"]
    assert not [line for line in lines if line["level"] in ("error", "critical")], lines


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
    done = ran(
        lambda port: smf_router(wrapper, "serve", "--config", str(config), "--port", str(port))
    )
    assert done.returncode == 2, done.stderr
    assert f"error: ledger.path: {str(ledger)!r} is read-only now (" in done.stderr
    assert "Read-only file system), and holds no ledger yet" in done.stderr
    assert "ProtectSystem=strict" in done.stderr and "ReadWritePaths=" in done.stderr
    assert "can never hold" not in done.stderr and "chown" not in done.stderr
    assert "Traceback" not in done.stderr and "listening on" not in done.stderr
    checked = smf_router(wrapper, "config", "check", "--config", str(config))
    assert checked.returncode == 0, checked.stderr
    assert "holds no ledger yet: `serve` would refuse to start" in checked.stderr


def canary_config(tmp_path: Path, ledger: Path, cloud: Running) -> Path:
    """A config whose one backend is the simulator `cloud`, and a canary of three math
    cases, asked one at a time."""
    data = {
        "backends": [
            {
                "name": "cloud",
                "tier": "cloud",
                "base_url": cloud.url,
                "model": "cloud-model",
                "price": {"input_per_mtok": 3.0, "output_per_mtok": 15.0},
            }
        ],
        "routes": {intent: ["cloud"] for intent in INTENTS},
        "ledger": {"path": str(ledger), "flush_interval_s": 0.1},
        "resilience": {"enabled": False},
        "canary": math_gating_canary(3600, window=6, concurrency=1),
    }
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("kind", ["read-only", "full", "no space"])
def test_canary_run_refuses_a_ledger_it_cannot_write_now_asking_nothing(
    tmp_path: Path, kind: str
) -> None:
    """`canary run` started on a read-only ledger as `serve` starts: against a live backend
    it asked every case, then lost every result at its exit ("rows it could not write: they
    are lost") and exited 0 (found in review); so on a full disk. A round exits within
    minutes, before a remount or a full disk is likely to pass: it is refused, exit 2,
    asking nothing. `config check` still says what `serve` would do. "no space": a disk
    full of data with inodes to spare, where the probe's empty file was created, so the
    round asked every backend and lost its rows, exit 1 (found in a durability review)."""
    ledger = tmp_path / "ledger"
    made_ledger(ledger)
    wrappers = {"read-only": read_only, "full": full, "no space": no_space}
    wrapper = wrappers[kind](ledger)
    with simulator(profile="cloud", model="cloud-model") as cloud:
        config = canary_config(tmp_path, ledger, cloud)
        done = smf_router(wrapper, "canary", "run", "--config", str(config))
        asked = cloud.completions()
    assert done.returncode == 2, done.stdout + done.stderr
    assert asked == 0
    why = "is read-only now (" if kind == "read-only" else "cannot be written now ("
    assert f"error: ledger.path: {str(ledger)!r} {why}" in done.stderr
    assert "would ask every backend and lose its results at its exit" in done.stderr
    assert "Run it again once the ledger is writable" in done.stderr
    assert "they are lost" not in done.stderr and "warning: ledger.path" not in done.stderr
    assert "Traceback" not in done.stderr and not done.stdout
    assert ids(ledger) == ["before"]
    if kind != "read-only":
        assert "No space left on device" in done.stderr
        return
    checked = smf_router(wrapper, "config", "check", "--config", str(config))
    assert checked.returncode == 0, checked.stderr
    assert "is read-only now: `serve` would start anyway" in checked.stderr


def test_canary_run_whose_ledger_goes_read_only_mid_round_fails(tmp_path: Path) -> None:
    """The round's rows the ledger did not take by its exit are lost: the writer said so on
    stderr, and the run exited 0 all the same, a success to its CronJob. It exits 1 now,
    saying how many rows of the round are not recorded. The ledger is remounted read-only
    while the backend holds the round's first case, as the kernel does after a disk error."""
    ledger = tmp_path / "ledger"
    made_ledger(ledger)
    wrapper = own_mount(ledger)
    with simulator(profile="cloud", model="cloud-model") as cloud:
        cloud.control("faults", {"fault": "hold"})
        command = ["canary", "run", "--config", str(canary_config(tmp_path, ledger, cloud))]
        process = subprocess.Popen(
            [*wrapper, str(VENV_BIN / "smf-router"), *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            must_reach(lambda: cloud.stats()["held"] == 1, "the first case at the backend", 60)
            read_only_again(process.pid, ledger)
        finally:
            cloud.control("faults", {"fault": None})
            cloud.control("release", {})
            try:
                out, err = process.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                raise
        asked = cloud.completions()
    assert process.returncode == 1, out + err
    assert asked == 3
    assert "ledger closed with 3 canary_results rows it could not write: they are lost" in err
    assert "error: the ledger did not take 4 row(s) of this round" in err  # and its summary
    assert "cloud: " in out and "Traceback" not in err
    assert ids(ledger) == ["before"]
    assert not list(ledger.glob("canary_*/**/*.parquet"))


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
