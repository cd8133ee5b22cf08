"""Real subprocesses for tests: `smf-router serve` as a command (signals, several
processes), and a command on a pseudo-terminal (what a user at a terminal sees).
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, AnyStr

import yaml

from tests.harness import VENV_BIN, Running
from tests.ports import served


@contextmanager
def router_process(
    config: dict[str, Any],
    tmp: Path,
    env: dict[str, str] | None = None,
    host: str = "127.0.0.1",
    wrapper: Sequence[str] = (),
) -> Iterator[tuple[Running, subprocess.Popen[bytes]]]:
    """`smf-router serve` as a real subprocess (for signals and multi-process tests); its
    output goes to `tmp/router-<port>.log`. `wrapper`: the argv that runs it (`setpriv`,
    `tests.syscall_filter`), each executing the next."""
    path = tmp / f"router-{time.monotonic_ns()}.yaml"
    path.write_text(yaml.safe_dump(config))

    def log(port: int) -> Path:
        return tmp / f"router-{port}.log"

    def launch(port: int) -> subprocess.Popen[bytes]:
        command: list[str | Path] = [VENV_BIN / "smf-router", "serve", "--config", path]
        command += ["--port", str(port)]
        with log(port).open("wb") as out:  # the child has its own copy
            return subprocess.Popen(
                [*wrapper, *command, "--host", host],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **(env or {})},
            )

    # up to 90 s, as a loaded machine can take a litellm import that long (a CI neighbour's
    # 30 s ran out once), yet at once with its log if it exits first
    port, process = served(launch, "http://127.0.0.1:{port}/healthz", log)
    root = f"http://127.0.0.1:{port}"
    try:
        yield Running(f"{root}/v1", root), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def without_capabilities() -> list[str] | None:
    """The argv that runs a command as a service runs, with no capabilities (root's read
    any process's memory, a non-dumpable one's too): nothing for a user other than root;
    for root, an empty bounding set, as the systemd unit's `CapabilityBoundingSet=`.
    None: root, and no `setpriv` to drop them."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        return None
    return ["setpriv", "--bounding-set=-all", "--inh-caps=-all"]


@contextmanager
def killed_if_left_running(
    process: subprocess.Popen[AnyStr],
) -> Iterator[subprocess.Popen[AnyStr]]:
    """`process`, killed as the block ends if it still runs: a test that signals a command
    and waits for its exit must not leave it behind when a check before fails or the exit
    never comes (`Popen`'s own `with` would wait for it forever)."""
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def on_terminal(
    argv: list[str], env: dict[str, str], limit_s: float = 60.0, columns: int | None = None
) -> tuple[int | None, bytes]:
    """Run `argv` with a pseudo-terminal for its stdin, stdout and stderr: its exit status
    (None: still running at `limit_s`, then killed) and everything it wrote there.
    `columns`: the terminal's width (else the pseudo-terminal's, which has none)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child
        try:
            if columns is not None:  # set before the command starts: it asks at once
                fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    output, deadline = b"", time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if not select.select([fd], [], [], 1)[0]:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    ended, status = os.waitpid(pid, os.WNOHANG)
    while not ended and time.monotonic() < deadline:  # the terminal closes before the exit
        time.sleep(0.05)
        ended, status = os.waitpid(pid, os.WNOHANG)
    if not ended:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)
    return (os.waitstatus_to_exitcode(status) if ended else None), output


def smf_router(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    prefix: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """`smf-router ARGS` as a real command (in `cwd`, by default this one; run by `prefix`,
    such as `file_modes.modes_bind()`), its stdout and stderr as UTF-8 text; none of the
    environment's `SMF_` variables (`SMF_ROUTER_CONFIG`) reaches it unless in `env`."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("SMF_", "PYTHONIO"))}
    return subprocess.run(
        [*prefix, str(VENV_BIN / "smf-router"), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        encoding="utf-8",
        timeout=120,
        env=kept | {"PYTHONIOENCODING": "utf-8"} | (env or {}),
        cwd=cwd,
        check=False,
    )


def process_state(pid: int) -> str | None:
    """A process's state letter from `/proc` (`R` running, `S` sleeping, …), None when it is
    gone. A zombie (`Z`) is gone too: it runs nothing, and whoever adopted it reaps it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state = stat.rsplit(")", 1)[1].split()[0]  # after the command name, which may hold spaces
    return None if state == "Z" else state


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user and system), 0 when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()  # utime and stime are fields 14 and 15
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def grading_workers(parent: int) -> list[int]:
    """The grading processes (`evals.grading_worker`) `parent` started and that still run."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # ended meanwhile
            continue
        ppid = next((line.split()[1] for line in status.splitlines() if line[:5] == "PPid:"), "")
        ours = ppid == str(parent) and b"evals.grading_worker" in command
        if ours and process_state(int(entry.name)) is not None:
            found.append(int(entry.name))
    return found
