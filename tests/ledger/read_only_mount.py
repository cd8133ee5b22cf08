"""A directory on a read-only mount for one command, as a filesystem remounted read-only
after an error (or systemd's `ProtectSystem=strict`) is for the router: the real kernel
answering EROFS, which neither a mode nor `chattr +i` gives (they give EACCES or EPERM).

The command runs in a mount namespace of its own (`unshare`; for a user other than root,
in a user namespace too), where the directory is bound onto itself read-only; the rest of
the machine sees it writable. `writable_again` remounts it read-write for the running
command, as an operator's `mount -o remount,rw` does. `own_mount` binds it writable, for
`read_only_again` to remount it read-only under the running command, as the kernel does
after a disk error. `full` mounts a filesystem there with no file left to create, for the
kernel's ENOSPC; `no_space` one where a file can still be created but not a block written,
as a full disk with inodes to spare (most full disks). Skips where namespaces are refused.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

# binds "$1" onto itself read-only, then runs the rest of the argv in its place
_BIND_RO = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
_BIND = 'mount --bind "$1" "$1" && shift && exec "$@"'  # writable, its own mount to remount
# a tmpfs over "$1" whose one inode is its root: creating any file there is ENOSPC
_FULL = 'mount -t tmpfs -o nr_inodes=1,size=1m tmpfs "$1" && shift && exec "$@"'
# a tmpfs over "$1" filled to its last block by "$1/.filler": files can be created, not written
_NO_SPACE = (
    'mount -t tmpfs -o size=64k tmpfs "$1" && '
    '{ cat /dev/zero > "$1/.filler" 2>/dev/null; shift; exec "$@"; }'
)


def _as_root() -> bool:
    return os.geteuid() == 0


def read_only(folder: Path) -> list[str]:
    """The argv that runs what follows it with `folder` read-only; skips the test where that
    cannot be done here."""
    namespaces = ["--mount"] if _as_root() else ["--user", "--map-root-user", "--mount"]
    wrapper = [shutil.which("unshare") or "unshare", *namespaces, "sh", "-c", _BIND_RO, "sh"]
    with tempfile.TemporaryDirectory() as probe:
        try:
            done = subprocess.run(
                [*wrapper, probe, "touch", f"{probe}/x"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        except OSError as exc:
            pytest.skip(f"no unshare here: {exc}")
    if done.returncode == 0 or "Read-only file system" not in done.stderr:
        pytest.skip(f"cannot mount a directory read-only here: {done.stderr.strip()!r}")
    return [*wrapper, str(folder)]


def own_mount(folder: Path) -> list[str]:
    """The argv that runs what follows it with `folder` writable, on a mount of its own that
    `read_only_again` can make read-only while it runs; skips as `read_only` does."""
    unshare = read_only(folder)[:-5]  # its namespaces, found to work; not its script
    return [*unshare, "sh", "-c", _BIND, "sh", str(folder)]


def full(folder: Path) -> list[str]:
    """The argv that runs what follows it with `folder` full (an empty filesystem that takes
    no file: ENOSPC, as a full disk); skips as `read_only` does."""
    unshare = read_only(folder)[:-5]
    return [*unshare, "sh", "-c", _FULL, "sh", str(folder)]


def no_space(folder: Path) -> list[str]:
    """The argv that runs what follows it with `folder` out of space but not of inodes: an
    empty file is created there, a block of data is ENOSPC; skips as `read_only` does."""
    unshare = read_only(folder)[:-5]
    return [*unshare, "sh", "-c", _NO_SPACE, "sh", str(folder)]


def writable_again(pid: int, folder: Path) -> None:
    """Remount `folder` read-write in the mount namespace of process `pid` (run under
    `read_only`)."""
    _remount(pid, folder, "rw")


def read_only_again(pid: int, folder: Path) -> None:
    """Remount `folder` read-only in the mount namespace of process `pid` (run under
    `own_mount`, or after `writable_again`)."""
    _remount(pid, folder, "ro")


def room_again(pid: int, folder: Path) -> None:
    """Free the space `no_space` filled, in the mount namespace of process `pid` (run under
    `no_space`), as an operator deleting old files does."""
    _in_namespace(pid, ["rm", str(folder / ".filler")])


def _remount(pid: int, folder: Path, mode: str) -> None:
    _in_namespace(pid, ["mount", "-o", f"remount,bind,{mode}", str(folder)])


def _in_namespace(pid: int, argv: list[str]) -> None:
    namespaces = ["-m"] if _as_root() else ["-U", "-m", "--preserve-credentials"]
    subprocess.run(["nsenter", "-t", str(pid), *namespaces, *argv], check=True, timeout=30)
