"""Segment checksums: a CRC-32 of each whole segment file, kept beside it, checked on reading.

Damage on disk inside a Parquet page often decodes as another number, not as an error, so a
report would add it up without a word. Parquet's page CRCs do not help: DuckDB does not check
them (2.0.1: a flipped byte in a page of a file written with `write_page_checksum=True`
summed to another total), and they leave out the footer, whose statistics DuckDB prunes row
groups by. So each file's CRC is written to a hidden sidecar `.<name>.crc32` before the file
is renamed into place, and a reader checks it before trusting the file. A file without a
sidecar was written before checksums were: it is read as before, unchecked.
"""

from __future__ import annotations

import os
import re
import threading
import time
import uuid
import zlib
from collections import OrderedDict
from pathlib import Path

SUFFIX = ".crc32"
CHUNK = 1 << 20
WRITTEN = re.compile(r"[0-9a-f]{8}")  # what `write` writes, but the newline


class Mismatch(Exception):
    """A segment's bytes no longer match the checksum written with it."""


def sidecar(path: Path) -> Path:
    """Where the checksum of `path` is kept: hidden, so listings of segments pass it by."""
    return path.parent / f".{path.name}{SUFFIX}"


def compute(path: Path) -> int:
    crc = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            crc = zlib.crc32(chunk, crc)
    return crc


def write(path: Path, written: Path, mode: int = 0o644) -> None:
    """Record the checksum of `written` (the temporary file) as that of `path`, durably,
    before `written` is renamed to `path`: a visible segment never lacks its checksum.
    `mode`: the segment's own (a private table's is 0600)."""
    target = sidecar(path)
    tmp = path.parent / f"{target.name}.{uuid.uuid4().hex[:8]}.tmp"  # segment_write.TEMPORARY
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            os.write(fd, f"{compute(written):08x}\n".encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def verify(path: Path) -> None:
    """Raise `Mismatch` if `path` has a checksum and its bytes do not match it, or the
    checksum file itself is not one `write` could have written (emptied, garbled): then it
    is that file that is damaged, and the segment cannot be vouched for either way."""
    try:
        expected = sidecar(path).read_text(errors="replace").strip()
    except FileNotFoundError:
        return  # written before checksums were
    if not WRITTEN.fullmatch(expected):
        raise Mismatch(f"its checksum file {sidecar(path).name} is damaged ({expected[:16]!r})")
    actual = f"{compute(path):08x}"
    if actual != expected:
        raise Mismatch(f"checksum {actual} is not {expected}: damaged on disk")


PASSED_MAX = 1024  # files remembered as matching (`verify_once`): a few hundred bytes each
SETTLED_S = 2.0  # a file changed this recently may change again unseen (coarse timestamps)
_passed: OrderedDict[tuple[object, ...], None] = OrderedDict()
_passed_lock = threading.Lock()


def verify_once(path: Path) -> None:
    """`verify`, skipped for a file already found to match in this process, as it was then.

    A listing vouches for a merged file whose sources are still on disk by its checksum
    (`segments._vouched`): one that stays (immutable, another user's) made every report over
    its day read the whole day's file again (found in review). A file is known by the state
    of it and its checksum (inode, size, mtime, ctime), so a rewrite or a restore is read
    again. One changed within `SETTLED_S` is not remembered: timestamps tick coarsely, and a
    change within the same tick looks like none. Rot on disk changes none of these: whoever
    would delete rows on the strength of the check (compaction) calls `verify`."""
    before, changed_ns = _state(path)
    with _passed_lock:
        if before in _passed:
            _passed.move_to_end(before)
            return
    verify(path)
    settled = time.time_ns() - changed_ns > SETTLED_S * 1e9
    if settled and _state(path)[0] == before:
        with _passed_lock:
            _passed[before] = None
            while len(_passed) > PASSED_MAX:
                _passed.popitem(last=False)


def _state(path: Path) -> tuple[tuple[object, ...], int]:
    """The state of `path` and its checksum file, and when either last changed (ctime, ns);
    raises `OSError` when `path` cannot be looked at."""
    side: tuple[int, ...] | None = None
    changed_ns = 0
    try:
        st = os.stat(sidecar(path))
        side, changed_ns = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns), st.st_ctime_ns
    except FileNotFoundError:
        pass
    st = os.stat(path)
    key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, side)
    return key, max(changed_ns, st.st_ctime_ns)


def remove(path: Path) -> None:
    """Delete a segment's checksum, after the segment itself."""
    sidecar(path).unlink(missing_ok=True)


def owner(file: Path, suffix: str = SUFFIX) -> Path | None:
    """The segment a hidden `.<name><suffix>` file beside it belongs to; None if not one."""
    name = file.name
    if not (name.startswith(".") and name.endswith(suffix)):
        return None
    return file.parent / name[1 : -len(suffix)]


def orphaned(file: Path, suffix: str = SUFFIX) -> bool:
    """Whether `file` is a `.<name><suffix>` file (a checksum, by default) whose segment is
    not there (never renamed into place, or deleted first)."""
    segment = owner(file, suffix)
    return segment is not None and not segment.exists()
