"""The files a live writer's merges replaced, deleted once the readers that listed them are done.

A merged file names its sources, so readers ignore them at once, but one that listed them a
moment ago may still be reading: they stay a grace time (`appender.SOURCE_GRACE_S`), and a
flush deletes those that are due. One that cannot be deleted (an immutable file, a directory
made read-only, a passing NFS error) is tried again on its own after the grace, then after
twice, four times … as long, `DELETE_TRIES` times in all (about an hour at 30 s), then left
to closed-day compaction, which deletes a crashed merge's sources too. Each is warned of
once, at its first failure, with the others of that pass. When the writer closes, every one
left is deleted at once, and those that cannot be are left to closed-day compaction, in a
warning that says so.

Deleted as one group that stopped at the first failure, the rest of its group were not tried
again either, and waited for closed-day compaction with it (found in review).
"""

from __future__ import annotations

import heapq
import logging
import threading
from collections.abc import Sequence
from pathlib import Path

from router.ledger import compaction

log = logging.getLogger("smf_router.ledger.doomed")

DELETE_TRIES = 8  # the grace after the merge, then 1, 2, … 64 graces later: ~1 h at 30 s


class Doomed:
    """Merged-away files by when they are due; the merge thread adds, the flush thread
    deletes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # (due, order, failed tries, paths), a heap: retries fall due out of merge order
        self._due: list[tuple[float, int, int, tuple[Path, ...]]] = []
        self._order = 0

    def add(self, due: float, paths: Sequence[Path]) -> None:
        """Delete `paths` at the first `remove_due` from `due` (monotonic) on."""
        with self._lock:
            self._push(due, 0, tuple(paths))

    def remove_due(self, now: float, retry_s: float) -> None:
        """Delete the files due at `now`, each on its own: one that fails is tried again
        `retry_s` later, doubling at each failure, up to `DELETE_TRIES` tries."""
        failed: list[Exception] = []  # of files at their first try
        for tries, path, error in self._remove(now):
            if tries == 0:
                failed.append(error)
            if tries + 1 < DELETE_TRIES:
                with self._lock:
                    self._push(now + retry_s * 2**tries, tries + 1, (path,))
        _warn(failed, "tried again for about an hour, then left to closed-day compaction")

    def remove_all(self) -> None:
        """Delete every file left, due or not (the writer is closing). Those that cannot be
        are left to closed-day compaction, and one warning says so, naming those warned of
        before too: that warning said they would be tried again. Deleted at close as due at
        an endless time, they were warned of as tried again for about an hour (found in
        review)."""
        failed = [error for _, _, error in self._remove(float("inf"))]
        _warn(failed, "the writer is closing: left to closed-day compaction")

    def _remove(self, now: float) -> list[tuple[int, Path, Exception]]:
        """Delete the files due at `now`, each on its own; returns those that could not be,
        each with its failed tries before this one and why."""
        with self._lock:
            due: list[tuple[int, Path]] = []  # (failed tries, file)
            while self._due and self._due[0][0] <= now:
                _, _, tries, paths = heapq.heappop(self._due)
                due.extend((tries, path) for path in paths)
        failed: list[tuple[int, Path, Exception]] = []
        for tries, path in due:  # deleted outside the lock: the merge thread goes on
            error: Exception | None
            try:
                error = compaction.remove([path]).get(path)
            except Exception as exc:  # no OS error: handled as one
                error = exc
            if error is not None:
                failed.append((tries, path, error))
        return failed

    def _push(self, due: float, tries: int, paths: tuple[Path, ...]) -> None:
        self._order += 1
        heapq.heappush(self._due, (due, self._order, tries, paths))


def _warn(failed: list[Exception], then: str) -> None:
    """One warning for the files of a pass that could not be deleted, saying what `then`."""
    if failed:
        error = failed[0]
        log.warning(
            "could not delete merged-away ledger files (%d; readers ignore them; %s): %s: %s",
            len(failed),
            then,
            type(error).__name__,
            error,
        )
