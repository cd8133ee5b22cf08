"""The sandbox: runs model-written Python in a separate, limited process.

Layers, each a backstop for the others (no single one is airtight on every OS):

- a fresh temp directory as cwd, HOME and TMPDIR; a minimal environment (no secrets, no proxies);
- rlimits: CPU seconds, address space, file size (bounds output too), open files, processes;
- a wall-clock limit that kills the whole process group (and PID namespace, when there is one);
- ``unshare --user --net --pid`` when the kernel allows it: no network interfaces but loopback
  of its own, and every process dies with the sandbox's init;
- Landlock when the kernel offers it (`evals.landlock`): the kernel itself refuses writes
  outside the working directory, TCP and signals to the host's processes, to the program
  and anything it starts;
- the guard (`evals.sandbox_guard`), installed before the program runs: an audit hook
  (PEP 578) and a few wrappers that refuse sockets, new processes, native code and any
  write outside the working directory. This covers machines without namespaces and root
  users, whom ``RLIMIT_NPROC`` does not bind; it is in-process, so it stops mistakes and the
  escapes we know of, not a program written to defeat it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from evals import landlock, sandbox_guard
from evals.sandbox_guard import MARKER, STARTED

# Not -I: it implies -E, which ignored the PYTHONHASHSEED the sandbox sets (set order changed
# from run to run). The environment is entirely the sandbox's own (`_environment`), so
# honouring PYTHON* variables lets nothing in from the router's.
_PYTHON = (sys.executable, "-s", "-P", "-c")
UNSHARE = ("unshare", "-rnp", "--fork", "--kill-child")
"""User, network and PID namespaces, each program in its own: what a host must allow (the
systemd unit's RestrictNamespaces=, which tests/deploy checks against these flags)."""
PATH = "/usr/bin:/bin"
"""The programs' `PATH`, and where `UNSHARE`'s program is found: the probe looks where the
runs look (it searched the router's `PATH`, which may hold another `unshare`), and an
AppArmor profile must name the program the runs execute (`unshare_program`)."""
USERNS_SYSCTL = Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
"""1 on Ubuntu 23.10+ (24.04, DGX OS 7): AppArmor refuses a user namespace to any program
without a profile that grants `userns`, and `unshare -r` fails writing its uid_map."""


@functools.cache
def _source(module_file: str) -> str:
    """A module run as a program with ``python -s -P -c``: the sandbox's own code only."""
    return Path(module_file).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Limits:
    """Resource limits for one run; defaults match smf-bench's 10 s per program."""

    wall_s: float = 10.0
    cpu_s: int = 10
    memory_bytes: int = 1 << 30
    file_bytes: int = 16 << 20
    open_files: int = 64
    processes: int = 64
    output_chars: int = 8192


@dataclass(frozen=True)
class RunOutcome:
    """What a program did: the graders turn this into a pass or a failure kind."""

    exit_code: int | None
    timed_out: bool
    completed: bool
    stdout: str
    stderr: str
    duration_s: float
    isolated_network: bool
    confined_writes: bool = False  # Landlock: the kernel refuses writes outside the directory

    @property
    def signal_name(self) -> str | None:
        """The signal that ended the process, if one did (SIGXFSZ = output limit)."""
        if self.exit_code is None or self.exit_code >= 0:
            return None
        try:
            return signal.Signals(-self.exit_code).name
        except ValueError:
            return f"signal {-self.exit_code}"


def unshare_program() -> str | None:
    """The `unshare` the sandbox executes (symbolic links resolved, as AppArmor matches a
    profile against the program's real path); None when there is none."""
    found = shutil.which(UNSHARE[0], path=PATH)
    return os.path.realpath(found) if found else None


def userns_restricted(sysctl: Path = USERNS_SYSCTL) -> bool:
    """Whether AppArmor refuses unprivileged user namespaces here (`USERNS_SYSCTL` reads
    1): the cause to name when `namespaces_available` is false, since the systemd unit
    already allows them and changing it would not help."""
    try:
        return sysctl.read_text(encoding="ascii").strip() == "1"
    except (OSError, ValueError):  # no AppArmor, or not this kernel's setting
        return False


@functools.cache
def namespaces_available() -> bool:
    """Whether ``unshare`` can give us user, network and PID namespaces here."""
    exe = unshare_program()
    if exe is None:
        return False
    try:
        probe = subprocess.run(
            [exe, *UNSHARE[1:], "true"],
            capture_output=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


class SandboxUnavailable(Exception):
    """The sandbox could not start the program: the machine's fault, never the answer's."""


class NotRun(SandboxUnavailable):
    """The program was never handed to the sandbox (a canary round that had ended): still an
    error of kind `sandbox`, never a verdict, but the runner says "not run", not that the
    sandbox could not start: it never tried."""


def _limit_child(limits: Limits, processes: int) -> None:
    """Runs in the child between fork and exec: apply the rlimits."""
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def user_tasks() -> int:
    """Threads this user already runs. RLIMIT_NPROC counts every thread of every process of
    the user, so the sandbox's allowance goes on top of them: a router with many threads
    (or a busy service account) must not leave the program no room to start."""
    uid, n = os.getuid(), 0
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                n += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            continue  # it ended meanwhile
    return n


def _environment(workdir: Path) -> dict[str, str]:
    """Only what Python needs: nothing from the parent's environment leaks in."""
    return {
        "PATH": PATH,
        "HOME": str(workdir),
        "TMPDIR": str(workdir),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


def _read_bounded(path: Path, limit: int) -> str:
    """The head of a captured stream, at most ``limit`` characters (plus the tail marker)."""
    with path.open("rb") as fh:
        head = fh.read(limit)
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        tail = b""
        if size > limit:
            fh.seek(max(limit, size - 200))
            tail = fh.read()
    text = head.decode("utf-8", "replace")
    if size > limit:
        text += f"\n... [{size - limit} bytes cut] ...\n" + tail.decode("utf-8", "replace")
    return text


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def run_python(source: str, limits: Limits | None = None) -> RunOutcome:
    """Run ``source`` as ``__main__`` in the sandbox and report what happened.

    Blocking: call it from a worker thread in async code (``asyncio.to_thread``).
    """
    limits = limits or Limits()
    isolated = namespaces_available()
    confined = landlock.abi() > 0
    with tempfile.TemporaryDirectory(prefix="smf-sandbox-") as tmp:
        root = Path(tmp)
        workdir = root / "work"
        workdir.mkdir()
        (workdir / "program.py").write_text(source, encoding="utf-8")
        nonce = secrets.token_hex(16)
        processes = user_tasks() + limits.processes
        ready, ready_w = os.pipe()
        try:
            argv = [*_PYTHON, _source(sandbox_guard.__file__), str(ready_w)]
            if confined:  # the first program restricts itself, then executes the guard's
                argv = [*_PYTHON, _source(landlock.__file__), *argv]
            if isolated:
                argv = [*UNSHARE, *argv]
            started = time.monotonic()
            with (root / "stdout").open("wb") as out, (root / "stderr").open("wb") as err:
                proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.PIPE,
                    stdout=out,
                    stderr=err,
                    cwd=workdir,
                    env=_environment(workdir),
                    start_new_session=True,
                    preexec_fn=functools.partial(_limit_child, limits, processes),
                    close_fds=True,
                    pass_fds=(ready_w,),
                )
                os.close(ready_w)
                ready_w = -1
                timed_out = _communicate(proc, nonce, limits.wall_s)
            guard_ran = _said_started(ready)
        finally:
            os.close(ready)
            if ready_w != -1:
                os.close(ready_w)
        duration = time.monotonic() - started
        stdout = _read_bounded(root / "stdout", limits.output_chars)
        stderr = _read_bounded(root / "stderr", limits.output_chars)
    if not guard_ran and not timed_out:
        first = next((line for line in stderr.splitlines() if line.strip()), "")
        raise SandboxUnavailable(first[:200] or f"exit status {proc.returncode}")
    done = f"{MARKER} {nonce}"
    completed = proc.returncode == 0 and stdout.rstrip().endswith(done)
    return RunOutcome(
        exit_code=None if timed_out else proc.returncode,
        timed_out=timed_out,
        completed=completed,
        stdout=stdout.replace(done, "").rstrip(),
        stderr=stderr,
        duration_s=duration,
        isolated_network=isolated,
        confined_writes=confined,
    )


def _said_started(ready: int) -> bool:
    """Whether the guard reported on its pipe before the program ran. The program never holds
    that pipe (the guard closes it first), so nothing it does can fake or erase the report,
    unlike a line at the head of its stderr (`os.pwrite(2, ...)` overwrote it, in review)."""
    os.set_blocking(ready, False)  # the process group is dead: no writer can still be pending
    try:
        return os.read(ready, len(STARTED)) == STARTED.encode()
    except BlockingIOError:
        return False


def _communicate(proc: subprocess.Popen[bytes], nonce: str, wall_s: float) -> bool:
    """Hand the nonce over and wait; kill the whole group at the wall-clock limit."""
    assert proc.stdin is not None
    try:
        proc.stdin.write(nonce.encode() + b"\n")
        proc.stdin.close()
    except BrokenPipeError:
        pass
    try:
        proc.wait(timeout=wall_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return True
    # Leftover children (a fork that slipped through) die with the group.
    _kill_group(proc)
    return False
