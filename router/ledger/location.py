"""Whether `ledger.path` can ever hold a ledger, asked before anything is recorded.

The writer logs a failed write and retries it: right for a full disk, which frees up. A path
that is a file (`/etc/passwd`), lies under one, or that this user may not create, never
does: `serve` answered traffic while every record piled up in memory, and shutdown said
they were lost (found in review). Such a path now stops `serve` and `canary run` (exit 2,
naming `ledger.path`), `config check` says what it can tell without creating anything, and
a reload to such a path is rejected, since the restart it asks for would fail.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from router.config import ConfigError

if TYPE_CHECKING:
    from router.config import Config

# A failed mkdir or write that no retry fixes. Anything else (ENOSPC, EDQUOT, EIO) may pass,
# and keeps the writer's log-and-retry.
PERMANENT = frozenset(
    {
        errno.EEXIST,  # mkdir(exist_ok=True) raises it only for something not a directory
        errno.ENOTDIR,
        errno.EACCES,
        errno.EPERM,
        errno.EROFS,
        errno.ENOENT,  # a parent that cannot be made (`/proc/nope`)
        errno.ELOOP,
        errno.ENAMETOOLONG,
    }
)


def prepare(path: str) -> None:
    """Create the ledger directory and write (and remove) a file in it, as the writer will:
    a permanent failure is a ConfigError naming `ledger.path`; a passing one is left to
    the writer, which logs it and retries."""
    directory = Path(path)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if exc.errno == errno.EEXIST:  # it, or a part of it, is something else
            raise ConfigError(never_a_directory(path) or _not_a_directory(path)) from None
        _refuse_if_permanent(path, exc, f"cannot create {str(exc.filename or path)!r}")
        return
    try:
        fd, probe = tempfile.mkstemp(prefix=".probe.", dir=directory)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        _refuse_if_permanent(path, exc, "cannot create a file in it")


def _refuse_if_permanent(path: str, exc: OSError, doing: str) -> None:
    if exc.errno in PERMANENT:
        raise ConfigError(
            f"ledger.path: {path!r} can never hold the ledger: {doing}: {exc.strerror}; every "
            "record would be lost. Point it at a directory this user can create or write"
        ) from None


def never_a_directory(path: str) -> str | None:
    """Why `path` can never be a directory, for anyone: it, or the nearest part of it that
    exists, is not one. Found without creating anything (`config check`)."""
    directory = Path(path)
    nearest = _nearest(directory)
    if nearest.is_dir():
        return None
    if nearest == directory:
        return _not_a_directory(path)
    return (
        f"ledger.path: {path!r} can never be created: {str(nearest)!r} is not a directory; "
        "every record would be lost. Point it at a directory"
    )


def not_writable(path: str) -> str | None:
    """Why this user could not create `path` or write into it, judged from permissions
    without creating anything. Only as good as they are: root may write where they say
    no one can, and a mount may refuse what they allow; `serve` tries for real."""
    nearest = _nearest(Path(path))
    if not nearest.is_dir() or os.access(nearest, os.W_OK | os.X_OK):
        return None
    if nearest != Path(path):  # still to be made: by whom is not for permissions to say
        return (
            f"ledger.path: {path!r} does not exist and this user cannot create it in "
            f"{str(nearest)!r}: `serve` run as this user would refuse to start, unless it is "
            "made for this user first (systemd's StateDirectory does, at start)"
        )
    return (
        f"ledger.path: this user cannot write {path!r}, so it could not hold the ledger: "
        "`serve` run as this user would refuse to start"
    )


def reload_check(running: str) -> Callable[[Config], Callable[[], None]]:
    """A reload hook: a new `ledger.path` applies at the next restart only, and one that
    restart would refuse rejects the reload now, while the running config can stay."""

    def check(config: Config) -> Callable[[], None]:
        path = config.ledger.path
        if path != running and (why := never_a_directory(path) or not_writable(path)):
            raise ConfigError(why)
        return lambda: None

    return check


def _nearest(directory: Path) -> Path:
    """`directory` if it exists (a link to nothing counts), else its nearest parent that does."""
    return next((p for p in (directory, *directory.parents) if os.path.lexists(p)), Path("."))


def _not_a_directory(path: str) -> str:
    kind = "not a directory" if os.path.exists(path) else "a link to nothing"
    return (
        f"ledger.path: {path!r} is {kind}, so it can never hold the ledger; every record "
        "would be lost. Point it at a directory (one that does not exist yet is created)"
    )
