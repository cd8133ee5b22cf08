"""Output that cannot be written (stdout on a full disk, or closed) is one `error:` line and
exit 1, never a traceback; a reader that stops reading (`| head`) is no error at all."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from classifier.intent import INTENTS
from router.ledger import LedgerWriter
from tests.canary.servers import free_port
from tests.harness import VENV_BIN
from tests.ports import served
from tests.processes import killed_if_left_running

SMF_ROUTER = str(VENV_BIN / "smf-router")
# Each with the stdout buffered as at a pipe or file, and unbuffered (PYTHONUNBUFFERED, as the
# Docker image runs it): the error comes up from a write in one, from the flush at exit in
# the other.
BUFFERING = pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])


def commands(tmp_path: Path) -> list[list[str]]:
    """A command printing with rich, one writing to sys.stdout, one printing with typer."""
    LedgerWriter(tmp_path / "ledger").close()  # an empty ledger, as a new router leaves it
    return [
        ["--help"],
        ["report", "--ledger", str(tmp_path / "ledger"), "--format", "csv"],
        ["report", "--ledger", str(tmp_path / "ledger")],
        ["shadow", "report", "--ledger", str(tmp_path / "ledger"), "--json"],
    ]


def env(unbuffered: bool) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("SMF_")}
    kept.pop("PYTHONUNBUFFERED", None)
    return kept | ({"PYTHONUNBUFFERED": "1"} if unbuffered else {})


def run(argv: list[str], unbuffered: bool, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        env=env(unbuffered),
        check=False,
        **kwargs,  # type: ignore[call-overload]
    )


@BUFFERING
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_stdout_on_a_full_disk_is_one_line(tmp_path: Path, unbuffered: bool) -> None:
    """Every command died in a traceback (OSError ENOSPC) (found in review)."""
    for args in commands(tmp_path):
        with open("/dev/full", "w") as full:
            done = run([SMF_ROUTER, *args], unbuffered, stdout=full)
        assert done.returncode == 1, (args, done.stderr)
        assert done.stderr == "error: cannot write to stdout: No space left on device\n", args


@BUFFERING
def test_a_closed_stdout_is_one_line(tmp_path: Path, unbuffered: bool) -> None:
    """`report` crashed on `sys.stdout` being None (AttributeError); the others printed
    nothing and exited 0, as if they had (found in review)."""
    for args in commands(tmp_path):
        done = run(["sh", "-c", 'exec "$0" "$@" >&-', SMF_ROUTER, *args], unbuffered)
        assert done.returncode == 1, (args, done.stderr)
        assert done.stderr == "error: cannot write to stdout: Bad file descriptor\n", args


@BUFFERING
def test_a_reader_that_went_away_is_no_error(tmp_path: Path, unbuffered: bool) -> None:
    """`smf-router report | head`: the reader took what it wanted. Quiet, and exit 0 as
    when the output fits in the pipe before it goes (it exited 1 when it did not)."""
    for args in commands(tmp_path):
        read, write = os.pipe()
        os.close(read)  # gone before the first write
        try:
            done = run([SMF_ROUTER, *args], unbuffered, stdout=write)
        finally:
            os.close(write)
        assert (done.returncode, done.stderr) == (0, ""), args


@pytest.mark.parametrize("stdout", ["closed", "unread"])
def test_the_simulator_serves_whatever_its_stdout(tmp_path: Path, stdout: str) -> None:
    """With stdout wrapped, `smf-router simulate`'s ready line raised, and it said "cannot
    listen" and exited (0, under a reader gone) without serving (found in re-review)."""
    log = tmp_path / "simulate.log"  # its stderr: what it says if it cannot listen

    def launch(port: int) -> subprocess.Popen[bytes]:
        argv = [SMF_ROUTER, "simulate", "--port", str(port)]
        read, write = os.pipe()
        os.close(read)
        try:
            with log.open("wb") as stderr:
                if stdout == "closed":
                    closed = ["sh", "-c", 'exec "$0" "$@" >&-', *argv]
                    return subprocess.Popen(closed, stdin=subprocess.DEVNULL, stderr=stderr)
                return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=write, stderr=stderr)
        finally:
            os.close(write)

    port, serving = served(
        launch, "http://127.0.0.1:{port}/v1/models", lambda _: log, pick=free_port
    )
    try:
        assert httpx.get(f"http://127.0.0.1:{port}/v1/models").status_code == 200
    finally:
        serving.kill()
        serving.wait(timeout=10)


def test_python_dash_m_router_cli_runs_the_cli(tmp_path: Path) -> None:
    """`python -m router.cli report --ledger /nonexistent` printed nothing and exited 0: a
    cron line written that way passed for a success (found in review)."""
    done = run(
        [str(VENV_BIN / "python"), "-m", "router.cli", "report", "--ledger", str(tmp_path / "no")],
        unbuffered=False,
        stdout=subprocess.PIPE,
    )
    assert done.returncode == 2 and "no ledger at" in done.stderr


@pytest.mark.parametrize("status", [0, 1])
def test_a_commands_own_failure_stands_when_its_reader_went_away(status: int) -> None:
    """`ledger compact` failing (exit 1) with its output still buffered when the reader of
    `| head` had gone exited 0: the flush's broken pipe was taken for the whole story
    (found in re-review). A command that declared its status before printing keeps it; a
    success stays quiet and 0."""
    command = (
        "import sys; from evals import cli_stdout; from router import cli\n"
        "def app():\n"
        f"    cli_stdout.failing({status}); print('compacted 0 day(s)')\n"
        f"    raise SystemExit({status})\n"
        "cli.app, cli._mount_optional = app, lambda: None\n"
        "sys.argv = ['smf-router', 'ledger']; cli.main()\n"
    )
    read, write = os.pipe()
    os.close(read)
    try:
        done = run([str(VENV_BIN / "python"), "-c", command], unbuffered=False, stdout=write)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (status, ""), done.stderr


@pytest.mark.parametrize("status", [0, 1, 3, 130])
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_commands_own_failure_on_a_full_disk_is_said_too(status: int) -> None:
    """A command that declared its status (`eval run`'s 3 for nothing graded, 130 and 143
    after a signal) exited with it at `>/dev/full` without a word: the error line was for
    status 1 only (found in review). A full disk is no reader gone: it is said, and the
    declared status stands."""
    command = (
        "import sys; from evals import cli_stdout; from router import cli\n"
        "def app():\n"
        f"    cli_stdout.failing({status}); print('no case was graded')\n"
        f"    raise SystemExit({status})\n"
        "cli.app, cli._mount_optional = app, lambda: None\n"
        "sys.argv = ['smf-router', 'eval']; cli.main()\n"
    )
    with open("/dev/full", "w") as full:
        done = run([str(VENV_BIN / "python"), "-c", command], unbuffered=False, stdout=full)
    assert done.returncode == (status or 1), done.stderr
    assert done.stderr == "error: cannot write to stdout: No space left on device\n"


@BUFFERING
def test_a_failing_compaction_says_so_and_exits_1_when_its_reader_went_away(
    tmp_path: Path, unbuffered: bool
) -> None:
    """`ledger compact | head` with a day whose rollup could not be written: its summary's
    write failed first, click exited 1 for it, and that was read as "the reader took what
    it wanted": exit 0, the warnings and the error never said (found in re-review)."""
    from tests.ledger.ledger_days import write_day

    write_day(tmp_path, datetime.now(UTC) - timedelta(days=2), 1, "one")  # nothing to merge
    command = (
        "import errno, sys\n"
        "from router import cli\n"
        "from router.ledger import rollups\n"
        "def full(*args, **kwargs): raise OSError(errno.ENOSPC, 'No space left on device')\n"
        "rollups.write_day = full\n"
        f"sys.argv = ['smf-router', 'ledger', 'compact', '--ledger', {str(tmp_path)!r}]\n"
        "cli.main()\n"
    )
    read, write = os.pipe()
    os.close(read)
    try:
        done = run([str(VENV_BIN / "python"), "-c", command], unbuffered, stdout=write)
    finally:
        os.close(write)
    assert done.returncode == 1, done.stderr
    assert "no rollup for records/" in done.stderr and "named above" in done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_python_dash_m_evals_on_a_full_disk_is_one_line() -> None:
    """`python -m evals --help > /dev/full` printed a traceback where `smf-router` prints
    one line (found in review)."""
    with open("/dev/full", "w") as full:
        done = run([str(VENV_BIN / "python"), "-m", "evals", "--help"], False, stdout=full)
    assert done.returncode == 1, done.stderr
    assert done.stderr == "error: cannot write to stdout: No space left on device\n"


HELP_OF_SERVERS = {
    "serve": [SMF_ROUTER, "serve", "--help"],
    "simulate": [SMF_ROUTER, "simulate", "--help"],
    "simulate -h": [SMF_ROUTER, "simulate", "--port", "0", "-h"],  # the simulator's own help
    "python -m": [str(VENV_BIN / "python"), "-m", "router.simulator", "--help"],
    "simulate -- --help": [SMF_ROUTER, "simulate", "--", "--help"],  # the simulator's help
}


@pytest.mark.parametrize("argv", HELP_OF_SERVERS.values(), ids=HELP_OF_SERVERS.keys())
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_the_help_of_a_server_that_cannot_be_written_is_one_line(argv: list[str]) -> None:
    """Servers run with stdout unwatched: `serve --help > /dev/full` was a traceback of 116
    lines, `simulate --help >&-` and `python -m router.simulator --help > /dev/full` exited
    0 in silence (found in re-review), and `simulate -- --help` still did (found in a later
    review). Their help is a command's output as any other's."""
    with open("/dev/full", "w") as full:
        done = run(argv, False, stdout=full)
    assert done.returncode == 1, done.stderr
    assert done.stderr == "error: cannot write to stdout: No space left on device\n"
    closed = run(["sh", "-c", 'exec "$0" "$@" >&-', *argv], False)
    assert closed.returncode == 1, closed.stderr
    assert closed.stderr == "error: cannot write to stdout: Bad file descriptor\n"
    shown = run(argv, False, stdout=subprocess.PIPE)
    assert (shown.returncode, shown.stderr) == (0, "")
    assert "--port" in shown.stdout


@pytest.mark.parametrize("command", ["serve", "simulate"])
def test_a_server_started_with_stdout_closed_stops_cleanly_on_sigterm(
    tmp_path: Path, command: str
) -> None:
    """Started with `>&-`, a socket took descriptor 1 and libuv aborted at closing it
    ("uv__close: Assertion `fd > STDERR_FILENO' failed", status 134); `simulate` also
    died of SIGTERM itself (143) where `serve` exits 0 (found in review)."""
    config = tmp_path / "router.yaml"
    config.write_text(json.dumps({**SERVE_CONFIG, "ledger": {"path": str(tmp_path / "l")}}))

    def launch(port: int) -> subprocess.Popen[str]:
        argv = [SMF_ROUTER, command, "--port", str(port)]
        if command == "serve":
            argv += ["--config", str(config)]
        return subprocess.Popen(
            ["sh", "-c", 'exec "$0" "$@" >&-', *argv],
            stdin=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

    _, process = served(launch, "http://127.0.0.1:{port}/v1/models", pick=free_port)
    with killed_if_left_running(process) as serving:
        serving.send_signal(signal.SIGTERM)
        _, stderr = serving.communicate(timeout=30)
    assert serving.returncode == 0, stderr
    assert "Assertion" not in stderr


SERVE_CONFIG: dict[str, Any] = {
    "backends": [
        {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    ],
    "routes": {intent: ["local"] for intent in INTENTS},
}
