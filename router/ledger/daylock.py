"""Day locks: no two merges that could list the same files of one day run at once.

A closed day's compaction (each router's hourly housekeeping, `smf-router ledger compact`)
takes its day's lock exclusively; a live writer's merge of its own files takes it shared,
from reading its inputs to renaming its output into place. Writers' merges touch their own
files only, so they run side by side; but a compaction that listed a day while a writer's
merge of it was still writing merged the same files as that merge, and neither file named
the other: the day's rows were counted twice, then for good (found in review, with
`ledger compact --grace-hours 0` just after midnight).

Where flock is not there at all (NFSv3 without lockd: ENOLCK; some FUSE and CIFS mounts:
EOPNOTSUPP, ENOSYS, EINVAL), a writer's merge goes on without the lock, as merges did before
there was one: refused, it had failed with a traceback, and such a mount got a file a second
per process, for good (found in review). That is safe: a compaction there fails its exclusive
lock the same way and skips the day, so no compaction races the merge.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger("smf_router.ledger.daylock")

# flock's errors where no lock can be had at all on the mount, as opposed to one held
NO_FLOCK = frozenset({errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EINVAL})

# Holders of each lock file in this process (-1: one exclusive holder), by its real path.
# Two claimants in one process (two writers' merges; a compaction beside a writer, as the
# router's housekeeping was before it moved to a child process, `router.ledger_jobs`): a
# local flock excludes them (they open the file once each), but NFS and CIFS may turn flock
# into a POSIX lock, which never conflicts within one process (between processes it does).
# This keeps them apart anyway, and a claim refused here opens no descriptor (a POSIX lock
# is released by any close of its file).
_holders: dict[str, int] = {}
_holders_lock = threading.Lock()
_said_no_flock = False  # the merge without a lock is logged once per process, not per merge


@contextlib.contextmanager
def day_lock(path: Path, shared: bool = False) -> Iterator[bool]:
    """A non-blocking lock on one day directory, exclusive unless `shared`; yields whether
    it was taken. Never waits: a compactor leaves a held day to the next pass, and a writer's
    merge, refused, leaves its files to the compaction holding the day. The kernel drops it
    if the process dies. The lock file sits beside the day directory (readers list only the
    day's own files).

    It is opened for writing where it may be (NFS and CIFS turn flock into a POSIX lock,
    whose exclusive form needs a descriptor open for writing), else read-only: a local flock
    needs no write access, and a lock file this process may not write (left by root running
    `smf-router ledger compact`) must not stop the service user from compacting the day, or
    from reaching its retention, ever after.

    Where flock cannot lock at all (`NO_FLOCK`), a shared lock is taken as held (see the
    module docstring) and an exclusive one raises, as any other error does."""
    lock = lock_path(path)
    key = os.path.realpath(lock)
    if not _claim(key, shared):
        yield False
        return
    try:
        fd = _open_lock(lock)
        try:
            unlockable: OSError | None = None
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            except OSError as exc:
                if not shared or exc.errno not in NO_FLOCK:
                    raise
                unlockable = exc
            if unlockable is not None:
                _say_no_flock(lock, unlockable)
                yield True
                return
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    finally:
        _release(key)


def _claim(key: str, shared: bool) -> bool:
    with _holders_lock:
        held = _holders.get(key, 0)
        if held < 0 or (held > 0 and not shared):
            return False
        _holders[key] = held + 1 if shared else -1
        return True


def _release(key: str) -> None:
    with _holders_lock:
        held = _holders.pop(key)
        if held > 1:
            _holders[key] = held - 1


def _say_no_flock(lock: Path, exc: OSError) -> None:
    global _said_no_flock
    with _holders_lock:
        said, _said_no_flock = _said_no_flock, True
    if not said:
        log.warning(
            "cannot lock %s: %s: flock is unavailable on this mount; writers merge their own "
            "files without the day lock, and compaction skips the days it cannot lock "
            "(logged once)",
            lock,
            exc,
        )


def _open_lock(path: Path) -> int:
    """The lock file, made if missing. One this process makes is readable by all: made by
    root with umask 077 (`smf-router ledger compact` run by hand) it was 0600, which the
    service user can open neither way, and its compaction warned about that day every hour
    (found in review). It is empty: being read reveals nothing."""
    for _ in range(3):  # a retention run may remove it between the two opens
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)  # as umask allows
        except FileExistsError:
            refused = None
        except OSError as exc:
            if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise
            refused = exc  # it may not be made here: one that exists will do
        else:
            # umask's write bits stay (group-shared ledgers on NFS lock with them); a file
            # system without modes (CIFS) refuses: opening the file is all that matters
            with contextlib.suppress(OSError):
                os.fchmod(fd, os.fstat(fd).st_mode & 0o777 | 0o644)
            return fd
        try:
            return _open_existing(path)
        except FileNotFoundError:
            if refused is not None:
                raise refused from None
    return _open_existing(path)


def _open_existing(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR)
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        return os.open(path, os.O_RDONLY)


def lock_path(day: Path) -> Path:
    return day.parent / f".{day.name}.compact.lock"
