"""Files and directories this process may not touch, as a ledger partly owned by someone
else has them (an operator ran `smf-router ledger compact` as root).

Files are made unwritable with their mode; root ignores modes, so when the tests run as
root the file is also made immutable (`chattr +i`), and they skip where neither holds. A
file made undeletable needs `chattr +i`, so root. Directories are made unreadable with
their mode too, and as root by refusing them in `Path` as the kernel refuses anyone else,
so those tests run under any user. A command run as root obeys modes without the
capabilities that override them (`modes_bind`)."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def _refused(path: Path) -> bool:
    """Whether this process is refused writing `path` (a file) or into it (a directory)."""
    try:
        if path.is_dir():
            (path / ".probe").touch()
            (path / ".probe").unlink()
        else:
            path.open("a").close()
    except PermissionError:
        return True
    return False


@contextlib.contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """`path` read-only for this process while the block runs, as a file root left is for
    the service user; restored after, so tmp_path can be cleaned up."""
    mode = path.stat().st_mode & 0o777
    path.chmod(0o555 if path.is_dir() else 0o444)
    immutable = False
    try:
        if os.geteuid() == 0:
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
            immutable = done.returncode == 0
        if not _refused(path):
            pytest.skip(f"cannot make {path} unwritable here (root without chattr +i)")
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(mode)


@contextlib.contextmanager
def undeletable(path: Path) -> Iterator[None]:
    """`path`, a file, impossible to delete (or rename) while the block runs: `chattr +i`,
    which only root may set. A file's own mode does not stop its deletion (its directory's
    does, and would stop every other delete in it too), so elsewhere the test is skipped
    rather than failed for a refusal that never came."""
    if os.geteuid() != 0:
        pytest.skip(f"only root can make one file undeletable (chattr +i): {path.name}")
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"chattr +i is refused here: {done.stderr.decode(errors='replace')}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@contextlib.contextmanager
def unlistable(path: Path) -> Iterator[None]:
    """`path`, a directory, mode 000 while the block runs, as another user's mode-700
    directory is for the service user: neither it nor anything inside it can be looked at.
    Root ignores modes, so there `Path` refuses them as the kernel does anyone else, in
    this process and in the Python processes it starts meanwhile (a `sitecustomize` on
    their PYTHONPATH): a router's report runs in a child (`router.ledger_jobs`)."""
    mode = path.stat().st_mode & 0o777
    path.chmod(0)
    try:
        with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as hook:
            if os.access(path, os.R_OK | os.X_OK):  # root
                iterdir, stat = refusing(path)
                patch.setattr(Path, "iterdir", iterdir)
                patch.setattr(Path, "stat", stat)
                (Path(hook) / "sitecustomize.py").write_text(_CHILD_REFUSING.format(path=str(path)))
                paths = [hook, os.environ.get("PYTHONPATH")]
                patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, paths)))
            yield
    finally:
        path.chmod(mode)


_CHILD_REFUSING = """
from pathlib import Path
from tests.ledger.file_modes import refusing
Path.iterdir, Path.stat = refusing(Path({path!r}))
"""


def refusing(path: Path) -> tuple[Any, Any]:
    """`Path.iterdir` and `Path.stat` refusing `path` and what is inside it."""
    real_iterdir, real_stat = Path.iterdir, Path.stat

    def refused(p: Path) -> PermissionError:
        return PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(p))

    def iterdir(self: Path) -> Iterator[Path]:
        if self == path or path in self.parents:
            raise refused(self)
        return real_iterdir(self)

    def stat(self: Path, *, follow_symlinks: bool = True) -> os.stat_result:
        if path in self.parents:
            raise refused(self)
        return real_stat(self, follow_symlinks=follow_symlinks)

    return iterdir, stat


# root's capabilities that override file modes: without them, its own files' modes bind it
_OVERRIDES = "-dac_override,-dac_read_search"


def modes_bind() -> list[str]:
    """A command prefix under which file modes bind the command as they bind a user: none
    for a user; for root, `setpriv` dropping the capabilities that override them. Skips
    the test where that does not hold (no `setpriv`, capabilities it may not drop)."""
    if os.geteuid() != 0:
        return []
    prefix = ["setpriv", f"--inh-caps={_OVERRIDES}", f"--bounding-set={_OVERRIDES}"]
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0)
        try:
            probe = subprocess.run([*prefix, "test", "-x", folder], capture_output=True)
        except OSError as exc:
            pytest.skip(f"root, and no setpriv to drop its mode overrides: {exc}")
        finally:
            os.chmod(folder, 0o700)
    if probe.returncode != 1:
        pytest.skip(f"root, and setpriv could not drop its mode overrides: {probe.stderr!r}")
    return prefix
