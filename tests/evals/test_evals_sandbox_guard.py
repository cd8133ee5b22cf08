"""The guard inside the sandbox: each test is an escape a review found, or one of its kin,
run through `run_python`; what must hold is on the host (a file not written, a mode kept)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from evals.sandbox import Limits, run_python

FAST = Limits(wall_s=5.0, cpu_s=5)


def _refused(program: str) -> str:
    """Run an escape attempt; it must stop on the guard. Returns its stderr."""
    out = run_python(program, FAST)
    assert not out.completed, program
    assert "sandbox:" in out.stderr, out.stderr[-500:]
    return out.stderr


def test_relative_names_with_a_directory_fd_are_refused(tmp_path: Path) -> None:
    """The `open` audit event carries only the relative name, which the guard judged against
    the working directory: `os.open("x", ..., dir_fd=<fd of any directory>)` wrote anywhere."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    here = f"import os\nd = os.open({str(tmp_path)!r}, os.O_RDONLY)\n"
    for call in (
        "os.close(os.open('escaped.txt', os.O_WRONLY | os.O_CREAT, dir_fd=d))",
        "os.mkdir('escaped', dir_fd=d)",
        "os.remove('victim.txt', dir_fd=d)",
        "os.rename('victim.txt', 'moved.txt', src_dir_fd=d, dst_dir_fd=d)",
    ):
        assert "dir_fd is not allowed" in _refused(here + call)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["victim.txt"]
    assert victim.read_text() == "keep me"


def _spawners(marker: Path) -> list[str]:
    argv = ["/bin/sh", "-c", f"echo escaped > {marker}"]
    raw = [a.encode() for a in argv]
    fork_exec = (
        f"{raw!r}, [b'/bin/sh'], True, (), None, [b'PATH=/bin'], -1, -1, -1, -1, -1, -1, "
        "r, w, True, False, -1, None, None, -1, -1, None, False"
    )
    dynload = "import _imp, importlib.machinery as m, sys\n"
    return [
        f"import os\nif os.fork() == 0:\n    os.execv('/bin/sh', {argv!r})\n",
        f"import os\nif os.forkpty()[0] == 0:\n    os.execv('/bin/sh', {argv!r})\n",
        f"import os\nos.posix_spawn('/bin/sh', {argv!r}, {{}})\n",
        f"import os\nos.execv('/bin/sh', {argv!r})\n",
        f"import os\nos.system({argv[2]!r})\n",
        f"import subprocess\nsubprocess.run({argv!r})\n",
        f"import pty\npty.spawn({argv!r})\n",
        "import multiprocessing\nmultiprocessing.Process(target=print).start()\n",
        f"import ctypes\nctypes.CDLL(None).system({argv[2].encode()!r})\n",
        "import _xxsubinterpreters as i\ni.run_string(i.create(), 'import os; os.system(\"\")')\n",
        # What the review used: fork_exec raises no audit event.
        f"import _posixsubprocess, os\nr, w = os.pipe()\n_posixsubprocess.fork_exec({fork_exec})\n",
        # A second copy of the module, as an extension or under another package name.
        "import importlib, sys\ndel sys.modules['_posixsubprocess']\n"
        "importlib.import_module('_posixsubprocess')\n",
        f"{dynload}import _posixsubprocess as p\n"
        "_imp.create_dynamic(m.ModuleSpec('x._posixsubprocess', None, origin=p.__file__))\n",
        f"{dynload}_imp.create_builtin(m.ModuleSpec('_posixsubprocess', None))\n",
    ]


def test_no_way_to_start_a_process(tmp_path: Path) -> None:
    """Each way Python offers to start a program; the shell would leave a file behind."""
    marker = tmp_path / "escaped.txt"
    for program in _spawners(marker):
        _refused(program)
    assert not marker.exists()


def test_no_way_to_signal_a_process() -> None:
    """os.kill raises an audit event, pidfds do not: without namespaces and Landlock ABI 6 a
    program signalled the router through them (found in review)."""
    for program in (
        "import os\nos.kill(os.getpid(), 0)\n",
        "import os\nos.close(os.pidfd_open(os.getpid()))\n",
        "import signal\nsignal.pidfd_send_signal(0, 0)\n",
        "import importlib, sys\ndel sys.modules['_signal']\n"
        "importlib.import_module('_signal').pidfd_send_signal(0, 0)\n",
    ):
        assert "not allowed" in _refused(program), program


def test_the_guards_wrappers_cannot_be_undone(tmp_path: Path, layers: str) -> None:
    """Where CPython raises no event, the guard wraps the call; the original must not be
    reachable (a fresh `posix`, the published `supports_*` sets, the wrapper's defaults).
    The guard must be what refuses: with Landlock on, the kernel refused the write with the
    original in hand, and a guard that handed it out passed (found in review)."""
    relative_write = "('escaped.txt', os.O_WRONLY | os.O_CREAT, dir_fd=d)"
    here = f"import os, sys, _imp, gc\nd = os.open({str(tmp_path)!r}, os.O_RDONLY)\n"
    for grab in (
        "from importlib.machinery import ModuleSpec\n"
        "op = _imp.create_builtin(ModuleSpec('posix', None)).open",
        "del sys.modules['posix']\nimport posix\nop = posix.open",
        "del sys.modules['_imp']\nimport _imp as fresh\nop = fresh.create_builtin",
        "op = os.open.__kwdefaults__['_original']",
        "op = [o for o in gc.get_referents(os.open) if isinstance(o, dict)][0]['_original']",
        # the guard takes the original out of the set: the program is left with the wrapper
        "op = next((f for f in os.supports_dir_fd if f.__name__ == 'open'), os.open)",
    ):
        out = run_python(f"{here}{grab}\nos.close(op{relative_write})\n", FAST)
        assert not out.completed, grab
        assert "sandbox:" in out.stderr, (grab, out.stderr[-500:])
        if layers == "guard-only":
            assert not out.confined_writes and not out.isolated_network
    assert list(tmp_path.iterdir()) == []


def test_patching_what_the_guard_uses_changes_nothing(tmp_path: Path) -> None:
    """The guard's decisions must not depend on anything the program can replace."""
    target = str(tmp_path / "escaped.txt")
    for patch in (
        "import os, posixpath\nposixpath.realpath = lambda p, **k: os.getcwd() + '/x'\n"
        "os.path.realpath = posixpath.realpath",
        "import builtins\nbuiltins.isinstance = lambda *a: True\nbuiltins.all = lambda *a: True",
        "class S(str):\n    def startswith(self, *a):\n        return True\n"
        f"target = S({target!r})",
    ):
        program = f"target = {target!r}\n{patch}\nopen(target, 'w').write('x')\n"
        assert "outside the working directory" in _refused(program)
    assert list(tmp_path.iterdir()) == []


CLEAR_THE_HOOKS_STATE = """
try:
    open({target!r}, 'w')
except PermissionError as exc:
    tb = exc.__traceback__
while tb:
    if tb.tb_frame.f_code.co_filename == '<string>':  # the guard's frames
        for value in list(tb.tb_frame.f_locals.values()):
            if hasattr(value, 'clear'):
                value.clear()
    tb = tb.tb_next
open({target!r}, 'w').write('x')
"""


def test_the_hooks_state_cannot_be_changed_from_its_frames(tmp_path: Path) -> None:
    """A refusal's traceback hands out the hook's frame: clearing its dict of checks let the
    next write outside through (found in review)."""
    target = tmp_path / "escaped.txt"
    assert "outside the working directory" in _refused(
        CLEAR_THE_HOOKS_STATE.format(target=str(target))
    )
    assert not target.exists()


def test_writes_through_fds_links_and_native_openers_are_refused(tmp_path: Path) -> None:
    """A read-only fd still allowed chmod/utime; mknod and mkfifo raise no event; a relative
    link target was judged from the working directory, not the link's; SQLite opens its
    files itself."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    victim.chmod(0o644)
    before = victim.stat()
    fd = f"import os\nfd = os.open({str(victim)!r}, os.O_RDONLY)\n"
    for program in (
        f"{fd}os.chmod(fd, 0o600)\n",
        f"{fd}os.utime(fd, (0, 0))\n",
        f"import os\nos.mknod({str(tmp_path / 'node')!r})\n",
        f"import os\nos.mkfifo({str(tmp_path / 'fifo')!r})\n",
        f"import os\nos.link({str(victim)!r}, 'here')\nopen('here', 'w').write('x')\n",
        # a link whose target leaves the directory when read from the link's own directory
        "import os\nos.makedirs('a/b/c')\nos.chdir('a/b/c')\n"
        "os.symlink('a/b/c/../../../..', '../../../up')\nos.chdir('../../..')\n"
        f"open('up/{tmp_path.name}/escaped.txt', 'w')\n",
        f"import sqlite3\nsqlite3.connect({str(tmp_path / 'x.db')!r}).execute('create table t(x)')",
        f"import sqlite3\nsqlite3.connect('file:{tmp_path}/y.db?mode=rwc', uri=True).execute('')",
    ):
        _refused(program)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["victim.txt"]
    after = victim.stat()
    assert victim.read_text() == "keep me"
    assert (stat.S_IMODE(after.st_mode), after.st_mtime) == (0o644, before.st_mtime)


@pytest.mark.parametrize(
    "program",
    [
        "import tempfile, os\nwith tempfile.TemporaryDirectory() as d:\n"  # rmtree on exit
        "    os.makedirs(d + '/a/b')\n    open(d + '/a/b/f', 'w').write('x')\n"
        "    os.symlink('f', d + '/a/b/link')\n",
        # both open the directory itself (O_TMPFILE, or a name the opener makes in it)
        "import tempfile\nwith tempfile.NamedTemporaryFile('w') as f:\n    f.write('x')\n"
        "with tempfile.TemporaryFile() as t:\n    t.write(b'abc')\n    t.seek(0)\n"
        "    assert t.read() == b'abc'\n",
        "import asyncio\nasync def f():\n    return 42\nassert asyncio.run(f()) == 42\n",
        "import concurrent.futures as cf\nwith cf.ThreadPoolExecutor(4) as ex:\n"
        "    assert sum(ex.map(abs, range(10))) == 45\n",
        "import sqlite3\nc = sqlite3.connect('db.sqlite')\nc.execute('create table t(x)')\n"
        "c.commit()\nassert sqlite3.connect(':memory:').execute('select 1').fetchone() == (1,)\n",
        "import os, pathlib\np = pathlib.Path('a.txt')\np.write_text('hi')\n"
        "os.chmod(p, 0o600)\nos.utime(p)\nos.replace(p, 'b.txt')\nos.remove('b.txt')\n",
        "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n"
        "        self.assertEqual(1 + 1, 2)\nunittest.main(exit=False)\n",
        "import contextlib, os\nwith open(os.devnull, 'w') as f, contextlib.redirect_stdout(f):\n"
        "    print('hidden')\n",
        # a denied module reads as one this Python lacks: libraries fall back (numpy: ctypes)
        "try:\n    import ctypes\nexcept ImportError as exc:\n"
        "    assert str(exc).startswith('sandbox:')\nelse:\n    raise AssertionError\n",
    ],
    ids=[
        "tempfile",
        "tempfile_files",
        "asyncio",
        "threads",
        "sqlite",
        "pathlib",
        "unittest",
        "devnull",
        "optional_import",
    ],
)
def test_ordinary_programs_still_run(program: str) -> None:
    out = run_python(program, FAST)
    assert out.completed, out.stderr[-800:]


def test_numpy_runs_without_its_optional_ctypes() -> None:
    """numpy imports ctypes inside `try/except ImportError`; the guard refused it with a
    PermissionError, so every answer using numpy graded as a runtime error (found in review)."""
    pytest.importorskip("numpy")
    out = run_python("import numpy as np\nassert np.arange(10).sum() == 45\n", FAST)
    assert out.completed, out.stderr[-800:]
