"""Syncing what the ledger wrote to disk: a file's bytes before its rename makes it visible,
and a directory's entries after it, so a power cut leaves neither an empty file under the
name nor the name missing (found in durability reviews)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def fsync(path: Path) -> None:
    """Sync a file (or directory) by its path; raises OSError."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_directory(folder: Path) -> None:
    """Sync `folder`'s entries (a name just linked or renamed into it). Some filesystems
    cannot sync a directory: the name is in place all the same, so that is no error."""
    with contextlib.suppress(OSError):
        fsync(folder)
