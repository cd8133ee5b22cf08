"""Damage marks: a segment compaction found damaged is named once, not again every hour.

A closed day's segment that fails its checksum or cannot be decoded is left as it is (it may
hold records someone can recover) and marked by a hidden `.<name>.damaged` beside it. A
listing leaves a marked file out without reading it, and names it to readers (a report's
totals exclude it) but not to compaction, which named it once, when it marked it. Without
marks, the hourly housekeeping tried such a day again every hour, warned twice each time,
and never rolled it up, so reports over it stayed slow. A mark holds only for the file and
its checksum as they were: a file restored from a backup, or whose checksum was deleted to
accept it as it is, is read again.

A mark hides a file's records from every report for good, so only bytes proven bad are
marked, by reading them again when the mark is written (`mark`): whatever made a merge or a
rollup fail (a memory limit, a network volume, a file restored meanwhile) may have passed.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from router.ledger import checksum

SUFFIX = ".damaged"


def marker(segment: Path) -> Path:
    return segment.parent / f".{segment.name}{SUFFIX}"


def _state(segment: Path) -> str:
    """The file and its checksum as they are now; ctime, since a restore (even `cp -p`)
    changes it and rot on disk does not."""
    parts = []
    for path in (segment, checksum.sidecar(segment)):
        try:
            st = path.stat()
        except FileNotFoundError:
            parts.append("-")
        else:
            parts.append(f"{st.st_ino}:{st.st_size}:{st.st_ctime_ns}")
    return " ".join(parts)


def mark(segment: Path) -> str | None:
    """Mark `segment` damaged if its bytes are proven bad now; returns why, or None if it
    was not marked.

    The mark records the file's state from before the bytes were read, and is written only
    if that state held until after: a file restored from a backup while a merge ran is read
    healthy, or changed under the check, and stays unmarked. Best effort: unmarked (a full
    disk), a damaged file is named again on the next pass, as before marks."""
    try:
        return _mark(segment, None)
    except _CannotTell:
        return None


class _CannotTell(Exception):
    """Reading the bytes failed in a way that proves nothing (memory, permissions)."""


def _mark(segment: Path, expected: str | None) -> str | None:
    """`mark`, raising `_CannotTell` when the bytes could not be read to prove anything."""
    before = _state(segment)
    why = _proven(segment)
    if why is None or (expected is not None and why != expected) or _state(segment) != before:
        return None
    with contextlib.suppress(OSError):
        marker(segment).write_text(f"{before}\n{why}\n", errors="replace")
        return why
    return None


def _proven(segment: Path) -> str | None:
    """Why `segment`'s bytes are bad, read now; None if they are not; `_CannotTell` if that
    cannot be told now. Proof is a checksum that does not match, or, for a file written
    before checksums were (no sidecar), a decode error that is not a memory or OS error. A
    file that matches its checksum holds the bytes written: whatever failed to read it will
    pass."""
    try:
        checksum.verify(segment)
    except checksum.Mismatch as exc:
        return str(exc)
    except Exception as exc:  # permissions, a network volume, out of memory: proves nothing
        raise _CannotTell(str(exc)) from exc
    if checksum.sidecar(segment).exists():
        return None
    try:
        from router.ledger import segments  # segments imports this module

        segments.validate_fully(segment)
    except Exception as exc:
        if transient(exc):
            raise _CannotTell(str(exc)) from exc
        return str(exc)
    return None


def renew(day: Path) -> None:
    """Mark again, without naming them again, files whose mark lapsed though their bytes
    still fail the same way: a hard-link snapshot of the ledger (`cp -al`, rsnapshot)
    changes every file's ctime, and each one named every file again. A lapsed mark whose
    file now reads healthy, or fails otherwise, is deleted: that file is read (and named)
    again, as one restored from a backup must be. One whose file cannot be read now (out
    of memory, permissions) is kept, to be renewed by a later pass: deleted, the file was
    named again for what one starved pass could not read."""
    for file in day.iterdir():
        segment = checksum.owner(file, SUFFIX)
        if segment is None or not segment.exists():
            continue  # not a mark, or an orphan for compaction's cleanup
        found = _read_mark(segment)
        if found is None or found[0] == _state(segment):
            continue  # gone meanwhile, or holds
        try:
            renewed = _mark(segment, expected=found[1])
        except _CannotTell:
            continue  # lapsed meanwhile: this pass lists the file as it is
        if renewed is None:
            file.unlink(missing_ok=True)


def _read_mark(segment: Path) -> tuple[str, str] | None:
    """(the state recorded, why) of `segment`'s mark; None if it has none."""
    try:
        text = marker(segment).read_text(errors="replace")
    except OSError:
        return None
    state, _, reason = text.partition("\n")
    return state, reason.strip()


def marked(segment: Path) -> str | None:
    """Why `segment` was marked damaged, or None if it is not marked (or changed since)."""
    found = _read_mark(segment)
    return found[1] if found and found[0] == _state(segment) else None


def transient(exc: BaseException) -> bool:
    """Whether `exc` may say only that reading failed this time, not that the bytes are bad:
    out of memory (`MemoryError`, PyArrow's `ArrowMemoryError`; a codec's failed allocation
    is an `OSError` without errno, "… not enough memory"), or an OS error (permissions, a
    network volume). PyArrow's decode errors are `OSError`s without errno too."""
    if isinstance(exc, MemoryError) or "memory" in str(exc).lower():
        return True
    return isinstance(exc, OSError) and exc.errno is not None
