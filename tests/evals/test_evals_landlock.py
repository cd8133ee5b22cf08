"""Landlock under the sandbox: what the kernel refuses once the guard has been got around."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from evals import landlock
from evals.sandbox import run_python

pytestmark = pytest.mark.skipif(landlock.abi() < 1, reason="the kernel offers no Landlock here")

# The guard is in-process: a traceback hands out the frame of its os.open wrapper, and with it
# the original, whose `dir_fd` the guard cannot see (found in review).
PAST_THE_GUARD = """
import os
try:
    os.open('x', os.O_RDONLY, dir_fd=-5)
except OSError as exc:
    tb = exc.__traceback__
    while tb.tb_next:
        tb = tb.tb_next
    real_open = tb.tb_frame.f_locals.get('_original', os.open)
d = real_open({outside!r}, os.O_RDONLY)
try:
    os.close(real_open('escaped.txt', os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=d))
except PermissionError:
    print('refused by the kernel')
open('inside.txt', 'w').write('still fine')
print(open('inside.txt').read())
"""


def test_a_program_past_the_guard_still_cannot_write_outside(tmp_path: Path) -> None:
    out = run_python(PAST_THE_GUARD.format(outside=str(tmp_path)))
    assert list(tmp_path.iterdir()) == []
    assert out.stdout.splitlines() == ["refused by the kernel", "still fine"], out.stderr
    assert out.confined_writes


def test_what_the_program_starts_is_confined_too(tmp_path: Path) -> None:
    """The restriction holds across exec: a shell, and a Python without any guard, started by
    the first program in place of the sandbox's interpreter."""
    work, outside = tmp_path / "work", tmp_path / "outside.txt"
    work.mkdir()
    with socket.create_server(("127.0.0.1", 0)) as server:  # connections complete unaccepted
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}))"
        script = (
            f"echo x > {outside}; echo y > inside.txt; echo z > /dev/null && echo discarded; "
            f"{sys.executable} -I -c {connect!r} && echo connected; "
            f"kill -0 {os.getpid()} && echo signalled; true"
        )
        source = Path(landlock.__file__).read_text(encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-I", "-c", source, "/bin/sh", "-c", script],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    assert done.returncode == 0, done.stderr
    assert not outside.exists()
    assert (work / "inside.txt").read_text() == "y\n"
    assert "discarded" in done.stdout, done.stderr  # /dev/null: the one file outside allowed
    assert ("connected" in done.stdout) == (landlock.abi() < 4), done.stderr  # TCP: ABI 4
    assert ("signalled" in done.stdout) == (landlock.abi() < 6), done.stderr  # signals: ABI 6
