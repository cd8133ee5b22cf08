"""The sandbox holds: each test is an escape attempt that must fail without harming the host."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.sandbox import Limits, SandboxUnavailable, namespaces_available, run_python

FAST = Limits(wall_s=3.0, cpu_s=3)


def test_a_normal_program_completes_with_its_output() -> None:
    out = run_python("print('hello')\nassert 2 + 2 == 4\n")
    assert out.completed and out.exit_code == 0 and out.stdout == "hello"


@pytest.mark.parametrize(
    "rebind",
    [
        "sys.stdout = io.StringIO()",
        "sys.stdout = None",
        "sys.stdout = io.TextIOWrapper(open(1, 'wb', closefd=False), write_through=False)",
    ],
)
def test_a_program_that_rebinds_stdout_still_completes(rebind: str) -> None:
    """The guard printed its end marker through `sys.stdout`: a correct program that rebinds
    it (to capture output, or buffer it as competitive programmers do) failed as "exited
    before the assertions ran" (found in review). What it printed comes before the marker."""
    program = f"import io, sys\nprint('before')\n{rebind}\nprint('after')\nassert 2 + 2 == 4\n"
    out = run_python(program, FAST)
    assert out.completed and out.exit_code == 0, out
    expected = "before\nafter" if "TextIOWrapper" in rebind else "before"
    assert out.stdout == expected


@pytest.mark.parametrize(
    "closing",
    [
        "os.closerange(3, 64)",
        "os.close(3)\nfd = os.open('mine.txt', os.O_WRONLY | os.O_CREAT)",  # reuses fd 3
        "os.close(3)\nfd = os.open('/proc/self/fd/1', os.O_RDONLY)",  # stdout, read-only
    ],
)
def test_a_program_that_closes_inherited_fds_still_completes(closing: str) -> None:
    """The guard's copy of fd 1 is fd 3: a correct program that closed it failed with EBADF
    (found in review), and one that then opened a file there would have had the end marker
    written into that file. The marker goes to fd 1 then, as before the copy."""
    program = f"import os\nprint('before', flush=True)\n{closing}\nassert 2 + 2 == 4\n"
    out = run_python(program, FAST)
    assert out.completed and out.exit_code == 0, out
    assert out.stdout == "before"


READS_STDIN = """
import os, sys

def main():
    data = sys.stdin.read()
    lines = [line for line in sys.stdin]
    print(repr(data), len(lines), repr(sys.stdin.readline()))

if __name__ == "__main__":
    main()
try:
    input()
except EOFError:
    print("EOF")
print(os.read(0, 64), sys.__stdin__ is sys.stdin, os.readlink("/proc/self/fd/0"))
assert 2 + 2 == 4
"""


def test_a_program_that_reads_stdin_reads_empty_input() -> None:
    """The guard closed stdin after reading its nonce: a correct competitive-programming
    `main()` that reads `sys.stdin` failed with "ValueError: I/O operation on closed file"
    (found in review). stdin is /dev/null now: empty input, then EOF, and never the nonce."""
    out = run_python(READS_STDIN, FAST)
    assert out.completed and out.exit_code == 0, out
    assert out.stdout == "'' 0 ''\nEOF\nb'' True /dev/null"


def test_infinite_loop_is_killed_at_the_wall_clock_limit() -> None:
    out = run_python("while True:\n    pass\n", Limits(wall_s=1.0, cpu_s=5))
    assert out.timed_out and not out.completed and out.exit_code is None


def test_sleeping_program_is_killed_too() -> None:
    out = run_python("import time\ntime.sleep(30)\n", Limits(wall_s=1.0))
    assert out.timed_out


def test_fork_bomb_is_stopped_and_leaves_no_processes(tmp_path: Path) -> None:
    bomb = "import os\nwhile True:\n    os.fork()\n"
    out = run_python(bomb, FAST)
    assert not out.completed and not out.timed_out
    assert "os.fork is not allowed" in out.stderr
    spawn = "import subprocess\nsubprocess.run(['sleep', '60'])\n"
    assert "not allowed" in run_python(spawn, FAST).stderr
    stray = subprocess.run(["pgrep", "-f", "sleep 60"], capture_output=True, check=False)
    assert stray.stdout == b""


def test_huge_output_is_bounded() -> None:
    out = run_python("while True:\n    print('x' * 10000)\n", FAST)
    assert not out.completed
    assert len(out.stdout) < 20_000
    assert "File too large" in out.stderr or out.signal_name == "SIGXFSZ"


def test_environment_secrets_are_not_inherited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SMF_TEST_SECRET", "hunter2-do-not-leak")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    out = run_python("import os\nprint(sorted(os.environ))\nprint(os.environ.get('HOME'))\n")
    assert "SMF_TEST_SECRET" not in out.stdout and "hunter2" not in out.stdout
    assert "PROXY" not in out.stdout.upper()
    assert "smf-sandbox-" in out.stdout  # HOME is the sandbox's own directory


def test_runs_are_deterministic_and_no_python_variable_leaks_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`-I` implies `-E`, so the PYTHONHASHSEED=0 the sandbox sets was ignored: set order, and
    output printed from sets, changed between runs (found in review). Honouring PYTHON*
    variables must still let none in from the caller's environment."""
    (tmp_path / "sitecustomize.py").write_text("print('leaked')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    program = "print(hash('abc'), list({'a', 'b', 'c', 'd', 'e'}))\n"
    seeded = subprocess.run(
        [sys.executable, "-c", program],
        env={"PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=True,
    )
    want = seeded.stdout.strip()
    assert [run_python(program, FAST).stdout for _ in range(2)] == [want, want]


def test_writing_outside_the_working_directory_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    for program in (
        f"open({str(target)!r}, 'w').write('x')\n",
        f"import os\nos.close(os.open({str(target)!r}, os.O_WRONLY | os.O_CREAT))\n",
        f"import pathlib\npathlib.Path({str(target)!r}).write_text('x')\n",
    ):
        out = run_python(program, FAST)
        assert not out.completed and "outside the working directory" in out.stderr
    assert not target.exists()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    run_python(f"import os\nos.remove({str(victim)!r})\n", FAST)
    assert victim.read_text() == "keep me"


def test_writing_inside_the_working_directory_works() -> None:
    out = run_python("open('a.txt', 'w').write('ok')\nprint(open('a.txt').read())\n")
    assert out.completed and out.stdout == "ok"


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                received.append(conn.recv(100) or b"connected")

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], received
    stop.set()
    thread.join(timeout=5)
    server.close()


def test_no_network_even_to_localhost(listener: tuple[int, list[bytes]], layers: str) -> None:
    """The guard refuses the call before the kernel sees it (audit events come first), so its
    refusal is what the program meets with every layer on too. Where namespaces or Landlock
    are on they also stop the connection: a guard without its socket rules passed here,
    and only the guard-only run shows the rule a machine without them relies on."""
    port, received = listener
    for program in (
        f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2).send(b'hi')\n",
        f"import socket\ns = socket.socket()\ns.connect(('127.0.0.1', {port}))\ns.send(b'hi')\n",
        f"import urllib.request\nurllib.request.urlopen('http://127.0.0.1:{port}/', timeout=2)\n",
    ):
        out = run_python(program, FAST)
        assert not out.completed, program
        assert "sandbox: socket." in out.stderr, (program, out.stderr[-500:])
        if layers == "guard-only":
            assert not out.isolated_network and not out.confined_writes
    assert received == []


def test_network_namespace_has_only_loopback_when_available() -> None:
    if not namespaces_available():
        pytest.skip("unshare cannot create namespaces here; the audit hook is the only guard")
    out = run_python("print(open('/proc/net/dev').read())\n")
    assert out.isolated_network and out.completed
    interfaces = {ln.split(":")[0].strip() for ln in out.stdout.splitlines() if ":" in ln}
    assert interfaces == {"lo"}


def test_memory_limit() -> None:
    out = run_python("x = bytearray(4 << 30)\n", FAST)
    assert not out.completed and "MemoryError" in out.stderr


def test_a_sandbox_that_cannot_start_is_not_the_programs_failure() -> None:
    """With no room to start Python the program never ran: grading it `fail` would blame the
    model for the machine (a canary's gate would close on a healthy backend)."""
    with pytest.raises(SandboxUnavailable):
        run_python("print('never runs')\n", Limits(memory_bytes=1 << 20))


def test_a_program_cannot_make_the_sandbox_look_broken() -> None:
    """The guard said it started at the head of stderr, which the program can rewrite: the
    run then raised SandboxUnavailable, and the shadow lost its row (found in review)."""
    out = run_python("import os\nos.pwrite(2, b'X' * 40, 0)\nprint('ran')\n", FAST)
    assert out.completed and out.stdout == "ran"
    assert out.stderr.startswith("X" * 40)


NOBODY_RUN = """
import ctypes, sys, threading
sys.path.insert(0, sys.argv[1])
from evals.sandbox import run_python
if sys.argv[3:] == ["undumpable"]:  # as `serve` makes the router (router.sandbox_layers)
    assert ctypes.CDLL(None).prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE
stop = threading.Event()
for _ in range(int(sys.argv[2])):
    threading.Thread(target=stop.wait, daemon=True).start()
try:
    out = run_python("print(6 * 7)")
    print(out.completed, out.stdout)
finally:
    stop.set()
"""
AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _python_for_nobody(repo: str) -> str | None:
    """An interpreter the unprivileged user can run inside the sandbox's namespaces too."""
    import shutil

    candidates = [getattr(sys, "_base_executable", sys.executable), "/usr/bin/python3"]
    for python in candidates:
        argv = [*AS_NOBODY, python, "-c", f"import sys; sys.path.insert(0, {repo!r}); import evals"]
        if namespaces_available() and shutil.which("unshare"):
            argv[len(AS_NOBODY) : len(AS_NOBODY)] = ["unshare", "-rnp", "--fork", "--kill-child"]
        if subprocess.run(argv, capture_output=True, check=False, timeout=30).returncode == 0:
            return python
    return None


@pytest.mark.parametrize("dumpable", ["dumpable", "undumpable"])
def test_a_service_user_with_many_threads_still_runs_programs(dumpable: str) -> None:
    """RLIMIT_NPROC counts every thread of the user, not only the sandbox's: under the
    shipped non-root users (systemd, Docker) a router with ~64 threads left `unshare` no room
    to fork, and every coding case failed (found in review). Non-dumpable too, as `serve`
    makes the router (its /proc files turn root's): its threads must still be counted."""
    import os
    import shutil

    if os.getuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root to run as an unprivileged user")
    repo = str(Path(__file__).resolve().parents[2])
    python = _python_for_nobody(repo)
    if python is None:
        pytest.skip("no Python the unprivileged user can run with this repo")
    done = subprocess.run(
        [*AS_NOBODY, python, "-c", NOBODY_RUN, repo, "80", dumpable],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={"HOME": "/tmp", "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.split() == ["True", "42"], done.stderr[-500:]
