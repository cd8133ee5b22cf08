"""Leftovers of writes that never finished: one rule for what may be deleted, and when.

A process killed midway through writing a file (`router.ledger.segment_write`) leaves its
hidden temporary (a merge's can be as big as the day), a checksum whose file was never
renamed into place, or one whose file was deleted before it. Closed-day compaction deletes
them from the days it compacts, and a writer from the open day's (`router.ledger.appender`):
without that, a router killed while merging today's files left the merge's temporary there
until the day closed and compaction ran, up to a day later (found in review).

Both go by age alone: a live writer keeps writing to its temporary (and writes a checksum
just before its file is renamed into place), so its files stay recent. One stopped longer
than `DEAD_TEMPORARY_S` (a stalled NFS mount) and deleted meanwhile fails its rename when
it resumes: its rows are written again, or its merge's inputs stay as they are.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from pathlib import Path

from router.ledger import checksum, damage, segment_write, segments
from router.ledger.schema import SCHEMAS

log = logging.getLogger("smf_router.ledger.leftovers")

DEAD_TEMPORARY_S = 600.0  # a temporary file not written for this long: its writer is dead
SWEEP_S = DEAD_TEMPORARY_S  # a writer looks through a day it merges at most this often


def remove_dead_temporaries(day: Path) -> dict[Path, OSError]:
    """Delete the temporary files of writes killed midway in `day` (a directory), checksums
    whose file was never renamed into place (or was deleted before them), and damage marks
    whose file is gone: those not written for `DEAD_TEMPORARY_S`. Raises `OSError` when
    `day` cannot be listed.

    Each is deleted on its own; returns why those that could not be were not (an immutable
    file, a passing NFS error). The first such failure ended the loop: the files after it
    stayed, and compaction counted the day as failed, unmerged and not rolled up, on every
    pass while the file stayed (found in review). Readers pass every one of them by."""
    cutoff = time.time() - DEAD_TEMPORARY_S
    failed: dict[Path, OSError] = {}
    for file in day.iterdir():
        if not (
            checksum.orphaned(file)
            or checksum.orphaned(file, damage.SUFFIX)
            or segment_write.TEMPORARY.fullmatch(file.name)
        ):
            continue
        try:
            if file.stat().st_mtime < cutoff:
                file.unlink()
                log.info("deleted %s, left by a write that never finished", file)
        except FileNotFoundError:  # renamed into place meanwhile
            pass
        except OSError as exc:
            failed[file] = exc
    return failed


def undeleted(failed: dict[Path, OSError], what: str) -> list[str]:
    """A warning for each file a pass could not delete (`remove_dead_temporaries`, or
    `compaction.remove`, whose failure may name a file's checksum rather than the file):
    `what` says which kind of leftover it is."""
    return [
        f"could not delete {what} {exc.filename or path}: {exc.strerror or exc}; "
        "readers ignore it, and the next pass tries again"
        for path, exc in failed.items()
    ]


class Sweeps:
    """A writer's looks through the open day for dead temporaries, on its merge thread.

    At start it looks through today's directory of every table; then each merge looks
    through its day's, under that day's lock, once `SWEEP_S` have passed since the last
    look. A router restarted at once after its kill finds its temporary still recent, and
    a look at start only could not delete it before the day closed. The look at start
    takes no lock: today is no closed day, so no compaction holds it, and the writers'
    merges, which do, do not exclude one another."""

    def __init__(self) -> None:
        self._last: dict[Path, float] = {}  # day directory: when it was looked through
        # day directory: the files it could not delete there at its last look, each named
        # once (an immutable file stays for good, and a warning every sweep said nothing new)
        self._stuck: dict[Path, set[Path]] = {}

    def today(self, directory: Path) -> None:
        """Look through today's (UTC) directory of every table there is one of."""
        day = datetime.now(UTC).date().isoformat()
        for table in SCHEMAS:
            self.sweep(segments.day_dir(directory, table, day))

    def sweep(self, day: Path) -> None:
        """`remove_dead_temporaries` in `day` unless it was done there within `SWEEP_S`.
        Never raises: a day that cannot be listed is a warning, and the merge goes on; so
        is each file that cannot be deleted, the first time it cannot."""
        now = time.monotonic()
        last = self._last.get(day)
        if last is not None and now - last < SWEEP_S:
            return
        # older days are compaction's now: forget them (a late row's merge only adds a look)
        self._last = {path: t for path, t in self._last.items() if path.name >= day.name}
        self._stuck = {path: s for path, s in self._stuck.items() if path.name >= day.name}
        self._last[day] = now
        try:
            failed = remove_dead_temporaries(day)
        except FileNotFoundError:  # no such day (yet), or dropped meanwhile
            return
        except OSError as exc:
            log.warning("could not look through %s for dead temporaries: %s", day, exc)
            return
        named = self._stuck.pop(day, set())
        for file, error in failed.items():
            if file not in named:
                log.warning(
                    "could not delete %s, left by a write that never finished: %s; "
                    "readers ignore it, and later merges of its day try again",
                    file,
                    error.strerror or error,
                )
        if failed:
            self._stuck[day] = set(failed)
