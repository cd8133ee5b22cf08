"""A `ledger.path` that can never hold a ledger stops `serve` and `canary run` with exit 2 and
a message naming it; `config check` refuses what no user could write, and a reload to such a
path is rejected. A full disk, which frees up, keeps the writer's log-and-retry.

`serve` answered traffic with `ledger.path: /etc/passwd` while every record piled up in
memory, and said at shutdown that they were lost (found in review).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import subprocess
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from router import reload
from router.components import build
from router.config import ConfigError, parse
from router.ledger import location
from router.ledger.schema import SCHEMAS
from tests.canary.servers import free_port
from tests.harness import INTENTS, VENV_BIN
from tests.ledger.file_modes import unwritable
from tests.ports import ran

DEAD = "http://127.0.0.1:9/v1"  # nothing listens: no test here gets as far as a request


def config_data(ledger: str) -> dict[str, Any]:
    backends = [
        {"name": "local", "tier": "local", "base_url": DEAD, "model": "m"},
        {"name": "cloud", "tier": "cloud", "base_url": DEAD, "model": "m"},
    ]
    return {
        "backends": backends,
        "routes": {intent: ["local", "cloud"] for intent in INTENTS},
        "ledger": {"path": ledger, "flush_interval_s": 0.2},
        "resilience": {"enabled": False},
    }


def write_config(tmp_path: Path, ledger: str) -> Path:
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(config_data(ledger)))
    return path


def serve(config: Path) -> subprocess.CompletedProcess[str]:
    """`smf-router serve` on `config`, on a free port of this suite's (another if it was taken
    before `serve` tried it)."""
    return ran(
        lambda port: smf_router("serve", "--config", str(config), "--port", str(port)), free_port
    )


def smf_router(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMF_")}
    try:
        return subprocess.run(
            [str(VENV_BIN / "smf-router"), *args],
            capture_output=True,
            text=True,
            timeout=45,  # the old `serve` answered on: bounded below the test's timeout
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"`smf-router {args[0]}` did not stop: {exc.stderr!r}")


def never_writable(tmp_path: Path) -> dict[str, str]:
    """Paths no user can ever make a ledger directory of, by what is wrong with them."""
    a_file = tmp_path / "a-file"
    a_file.write_text("not a ledger\n")
    link = tmp_path / "a-link-to-nothing"
    link.symlink_to(tmp_path / "gone")
    return {
        "is a file": str(a_file),
        "under a file": str(a_file / "ledger"),
        "a link to nothing": str(link),
    }


@pytest.mark.parametrize("kind", ["is a file", "under a file", "a link to nothing", "in /proc"])
def test_serve_stops_on_a_ledger_path_it_could_never_write(tmp_path: Path, kind: str) -> None:
    ledger = "/proc/nope/ledger" if kind == "in /proc" else never_writable(tmp_path)[kind]
    if kind == "in /proc" and not Path("/proc/self").exists():
        pytest.skip("no /proc here")
    config = write_config(tmp_path, ledger)
    done = serve(config)
    assert done.returncode == 2, done.stderr
    assert "error: ledger.path: " in done.stderr and repr(ledger) in done.stderr
    assert "Traceback" not in done.stderr and "listening on" not in done.stderr


def test_config_check_refuses_a_path_no_user_could_write(tmp_path: Path) -> None:
    for kind, ledger in never_writable(tmp_path).items():
        done = smf_router("config", "check", "--config", str(write_config(tmp_path, ledger)))
        assert done.returncode == 2, (kind, done.stdout, done.stderr)
        assert done.stderr.startswith("error: ledger.path: ") and repr(ledger) in done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""


def test_config_check_passes_a_new_directory_and_creates_nothing(tmp_path: Path) -> None:
    ledger = tmp_path / "var" / "ledger"
    done = smf_router("config", "check", "--config", str(write_config(tmp_path, str(ledger))))
    assert done.returncode == 0, done.stderr
    assert "ledger.path" not in done.stderr and not (tmp_path / "var").exists()


def test_canary_run_stops_before_running_a_case(tmp_path: Path) -> None:
    ledger = never_writable(tmp_path)["is a file"]
    done = smf_router("canary", "run", "--config", str(write_config(tmp_path, ledger)))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "error: ledger.path: " in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""  # no round ran: its results could never have been recorded


def test_serve_stops_on_a_records_directory_it_could_never_write(tmp_path: Path) -> None:
    """A ledger once written by root and then served as another user: only the top
    directory was tried, so `serve` started "ready" and lost every row it could not write
    into root's `records/` (found in review). Refused now, naming it; `config check`, which
    may run as another user than `serve`, warns. Root too is refused an immutable one."""
    ledger = tmp_path / "ledger"
    records = ledger / "records"
    records.mkdir(parents=True)
    config = write_config(tmp_path, str(ledger))
    with unwritable(records):
        done = serve(config)
        checked = smf_router("config", "check", "--config", str(config))
    assert done.returncode == 2, done.stderr
    why = f"error: ledger.path: {str(ledger)!r} can never hold the ledger: "
    assert why + f"cannot create a file in {str(records)!r}" in done.stderr
    denied = "Permission denied" in done.stderr  # mode 0555; root meets chattr +i: EPERM
    assert ("chown -R" in done.stderr) == denied and "Traceback" not in done.stderr
    assert checked.returncode == 0, checked.stderr
    assert f"warning: ledger.path: this user cannot write {str(records)!r}" in checked.stderr


def test_serve_and_config_check_stop_on_a_records_path_that_is_a_file(tmp_path: Path) -> None:
    """The same for any user, root included: `records` is not a directory at all."""
    ledger = tmp_path / "ledger"
    ledger.mkdir()
    (ledger / "records").write_text("not a table\n")
    config = write_config(tmp_path, str(ledger))
    for command in (["serve"], ["config", "check"]):
        done = (
            serve(config) if command == ["serve"] else smf_router(*command, "--config", str(config))
        )
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        why = f"error: ledger.path: {str(ledger)!r} can never hold the ledger: "
        assert why + f"{str(ledger / 'records')!r} is not a directory" in done.stderr, command
        assert "Traceback" not in done.stderr


def test_the_days_the_writer_writes_and_those_housekeeping_rewrites_are_tried(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Today's day directory (the writer's, whatever its table) is tried for real; with
    housekeeping, a closed day is checked for the write permission its compaction and
    retention need (a warning: a router refusing to start over a chore stops all traffic),
    and one that is a file where tomorrow's goes is refused."""
    today = date(2026, 6, 2)
    ledger = tmp_path / "ledger"
    live = ledger / "shadow_comparisons" / "day=2026-06-02"
    closed = ledger / "records" / "day=2026-01-01"
    for folder in (live, closed):
        folder.mkdir(parents=True)
    with unwritable(live), pytest.raises(ConfigError) as refused:
        location.prepare(str(ledger), today=today)
    assert f"cannot create a file in {str(live)!r}" in str(refused.value)
    with unwritable(closed):
        location.prepare(str(ledger), today=today)  # housekeeping off: another job's
        assert not caplog.records
        location.prepare(str(ledger), compacts=True, today=today)  # a warning: rows are safe
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "housekeeping could never compact" in warning
    assert f"cannot write {str(closed)!r}" in warning
    (ledger / "texts").mkdir()
    (ledger / "texts" / "day=2026-06-03").write_text("")  # tomorrow's: written from midnight
    with pytest.raises(ConfigError, match="day=2026-06-03' is not a directory"):
        location.prepare(str(ledger), today=today)
    assert not list(ledger.rglob(".probe.*"))


def test_yesterdays_day_is_closed_for_a_process_that_starts_today(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A process dates its rows by its own clock from its start on (`started_at`, `ts`;
    rows held after a failed write are in memory only), so it never writes yesterday's day:
    one this user cannot write refused the start, stopping all traffic over a day no one
    writes again (found in re-review). It is a closed day now: with housekeeping, a warning."""
    today = date(2026, 6, 2)
    ledger = tmp_path / "ledger"
    yesterday = ledger / "records" / "day=2026-06-01"
    yesterday.mkdir(parents=True)
    with unwritable(yesterday):
        location.prepare(str(ledger), today=today)
        assert not caplog.records
        location.prepare(str(ledger), compacts=True, today=today)
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert f"cannot write {str(yesterday)!r}" in warning and "housekeeping" in warning


def test_a_day_another_process_deletes_meanwhile_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A second router's housekeeping or `ledger compact` deletes closed days past retention
    while `serve` starts: one gone between its listing and its check was refused as "not a
    directory" (exit 2, and systemd's RestartPreventExitStatus=2 kept the router down), and
    one gone before `os.access` was warned about as unwritable (found in re-review). The
    deletion is put between the two by hand, where a real race puts it now and then."""
    today = date(2026, 6, 2)
    ledger = tmp_path / "ledger"
    old = [ledger / "records" / f"day=2025-0{m}-01" for m in (1, 2)]
    live = ledger / "texts" / "day=2026-06-02"
    for folder in (*old, live):
        folder.mkdir(parents=True)
    parts, access, mkstemp = location._parts, os.access, tempfile.mkstemp

    def retention_between(*args: Any) -> Any:  # deletes the first old day once listed
        for part, written in parts(*args):
            if part == old[0]:
                part.rmdir()
            yield part, written

    def access_after_retention(where: Any, mode: int) -> bool:
        if Path(where) == old[1]:
            old[1].rmdir()
        return access(where, mode)

    def mkstemp_after_retention(prefix: str, dir: Path) -> tuple[int, str]:
        if dir == live:
            live.rmdir()
        return mkstemp(prefix=prefix, dir=dir)

    monkeypatch.setattr(location, "_parts", retention_between)
    monkeypatch.setattr(os, "access", access_after_retention)
    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_after_retention)
    location.prepare(str(ledger), compacts=True, today=today)  # no ConfigError
    assert not any(folder.exists() for folder in (*old, live))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize(
    ("code", "chown"), [(errno.EACCES, True), (errno.EPERM, False), (errno.EROFS, False)]
)
def test_chown_is_the_advice_for_another_users_directory_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, chown: bool
) -> None:
    """EACCES under the ledger is most likely a directory another user (root) made; a
    read-only mount (EROFS) or an immutable directory (EPERM, chattr +i) is no one's to
    give back, and `chown -R` would not help (found in re-review). A read-only mount under
    a ledger that exists may be a remount that passes: no refusal, a warning (found in a
    long-running-operation review; tests/router/test_ledger_read_only.py)."""
    ledger = tmp_path / "ledger"
    records = ledger / "records"
    records.mkdir(parents=True)
    mkstemp = tempfile.mkstemp

    def refused(prefix: str, dir: Path) -> tuple[int, str]:
        if dir == records:
            raise OSError(code, os.strerror(code))
        return mkstemp(prefix=prefix, dir=dir)

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    if code == errno.EROFS:
        held = location.prepare(str(ledger))
        assert held is not None and held.folder == records and held.read_only
        message = str(held)
    else:
        with pytest.raises(ConfigError) as raised:
            location.prepare(str(ledger))
        message = str(raised.value)
    assert f"cannot create a file in {str(records)!r}: {os.strerror(code)}" in message
    assert ("chown -R" in message) == chown
    if code != errno.EROFS:  # refused for good
        assert chown or "Point it at a directory this user can create or write" in message


def test_every_table_the_ledger_writes_is_tried() -> None:
    """`location` names the tables without importing their Arrow schemas: the same ones."""
    assert set(location.COMPACTED_TABLES) == {*SCHEMAS, "rollups"}


def test_a_full_disk_keeps_the_writers_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC passes once space is freed: the router starts, and its writes retry. The
    failure is returned, for `serve` to warn of and its writer to show until writes work."""

    def full(*_: Any, **__: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "mkdir", full)
    made = location.prepare(str(tmp_path / "ledger"))  # no ConfigError
    monkeypatch.undo()
    monkeypatch.setattr(tempfile, "mkstemp", full)
    written = location.prepare(str(tmp_path / "ledger"))
    for held in (made, written):
        assert held is not None and not held.read_only and held.folder == tmp_path / "ledger"
        assert "cannot be written now" in str(held) and "No space left on device" in str(held)


def test_a_reload_to_a_path_the_restart_would_refuse_is_rejected(tmp_path: Path) -> None:
    """The ledger's path applies at the next restart only: accepted as "needs a restart",
    the reload promised a restart that would then fail."""
    components = build(parse(config_data(str(tmp_path / "ledger"))))
    reloader = reload.reloader_of(components)
    bad = never_writable(tmp_path)["under a file"]

    async def reload_to(ledger: str) -> reload.Outcome:
        return await reloader.reload(config=parse(config_data(ledger)))

    try:
        rejected = asyncio.run(reload_to(bad))
        assert not rejected.ok and rejected.message.startswith("ledger.path: ")
        assert repr(bad) in rejected.message and reloader.reloads == 0
        moved = asyncio.run(reload_to(str(tmp_path / "elsewhere")))
        assert moved.ok and moved.restart_needed == ("ledger",)
        assert not (tmp_path / "elsewhere").exists()  # a reload creates nothing
    finally:
        asyncio.run(components.stop())


def test_the_message_says_why_without_creating_anything(tmp_path: Path) -> None:
    paths = never_writable(tmp_path)
    assert "not a directory" in (location.never_a_directory(paths["is a file"]) or "")
    under = location.never_a_directory(paths["under a file"]) or ""
    assert f"{paths['is a file']!r} is not a directory" in under
    assert "a link to nothing" in (location.never_a_directory(paths["a link to nothing"]) or "")
    with pytest.raises(ConfigError, match=r"ledger\.path: .*cannot create"):
        location.prepare(paths["under a file"])
    assert location.never_a_directory(str(tmp_path / "new" / "ledger")) is None
    assert not (tmp_path / "new").exists()


def test_a_path_still_to_be_made_is_not_called_unwritable_for_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`config check` as the service user before systemd first made its StateDirectory
    said `serve` would refuse to start, which it does not: systemd makes the directory for
    that user at start (found in review). Permissions as a user who may write nothing."""
    monkeypatch.setattr(location.os, "access", lambda *_: False)
    missing = location.not_writable(str(tmp_path / "state" / "ledger"))
    assert missing is not None and "does not exist" in missing and "StateDirectory" in missing
    there = location.not_writable(str(tmp_path))
    assert there is not None and "cannot write" in there and "StateDirectory" not in there
