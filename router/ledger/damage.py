"""Damage marks: a segment compaction found damaged is named once, not again every hour.

A closed day's segment that fails its checksum or cannot be decoded is left as it is (it may
hold records someone can recover) and marked by a hidden `.<name>.damaged` beside it. A
listing leaves a marked file out without reading it, and names it to readers (a report's
totals exclude it) but not to compaction, which named it once, when it marked it. Without
marks, the hourly housekeeping tried such a day again every hour, warned twice each time,
and never rolled it up, so reports over it stayed slow. A mark holds only for the file and
its checksum as they were: a file restored from a backup, or whose checksum was deleted to
accept it as it is, is read again.
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


def mark(segment: Path, reason: str) -> None:
    """Mark `segment` damaged. Best effort: unmarked (a full disk), it is named again on the
    next pass, as before marks."""
    with contextlib.suppress(OSError):
        marker(segment).write_text(f"{_state(segment)}\n{reason}\n", errors="replace")


def marked(segment: Path) -> str | None:
    """Why `segment` was marked damaged, or None if it is not marked (or changed since)."""
    try:
        text = marker(segment).read_text(errors="replace")
    except OSError:
        return None
    state, _, reason = text.partition("\n")
    return reason.strip() if state == _state(segment) else None


def orphaned(file: Path) -> bool:
    """Whether `file` is a mark whose segment is gone (merged away once restored, deleted)."""
    name = file.name
    if not (name.startswith(".") and name.endswith(SUFFIX)):
        return False
    return not (file.parent / name[1 : -len(SUFFIX)]).exists()


def lasting(exc: BaseException | None) -> bool:
    """Whether `exc` says the bytes are bad (a checksum, a decode error), not that reading
    failed this time: an OS error (permissions, a network volume) may pass, so is not marked."""
    return exc is not None and not (isinstance(exc, OSError) and exc.errno is not None)
