"""Day locks: no two merges that could list the same files of one day run at once.

A closed day's compaction (each router's hourly housekeeping, `smf-router ledger compact`)
takes its day's lock exclusively; a live writer's merge of its own files takes it shared,
from reading its inputs to renaming its output into place. Writers' merges touch their own
files only, so they run side by side; but a compaction that listed a day while a writer's
merge of it was still writing merged the same files as that merge, and neither file named
the other: the day's rows were counted twice, then for good (found in review, with
`ledger compact --grace-hours 0` just after midnight).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import threading
from collections.abc import Iterator
from pathlib import Path

# Holders of each lock file in this process (-1: one exclusive holder), by its real path. A
# writer's merge and the housekeeping's compaction run in one router process: a local flock
# excludes them (they open the file once each), but NFS and CIFS may turn flock into a
# POSIX lock, which never conflicts within one process. This keeps them apart anyway, and a
# claim refused here opens no descriptor (a POSIX lock is released by any close of its file).
_holders: dict[str, int] = {}
_holders_lock = threading.Lock()


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
    from reaching its retention, ever after."""
    lock = lock_path(path)
    key = os.path.realpath(lock)
    if not _claim(key, shared):
        yield False
        return
    try:
        fd = _open_lock(lock)
        try:
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
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


def _open_lock(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o666)  # mode: as umask allows
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        return os.open(path, os.O_RDONLY | os.O_CREAT, 0o666)


def lock_path(day: Path) -> Path:
    return day.parent / f".{day.name}.compact.lock"
