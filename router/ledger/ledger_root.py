"""The ledger's directory removed while a writer runs (an `rm -rf` of it, a cleanup of a
temporary directory), found by the next flush.

The writer's next write made its day's directory again, parents and all, without a word:
nothing said the rows written before were gone, and the conversation key was gone with
them, so the next start made a new one and conversations no longer grouped across it
(found in a durability review). A flush that finds `records/` gone, where it was, says so
in one warning per removal, makes it again (a report finds the ledger), and writes the
conversation key this process uses back (`conversation_key.restore`).
"""

from __future__ import annotations

import logging
from pathlib import Path

from router.ledger import conversation_key

log = logging.getLogger("smf_router.ledger")


class LedgerRoot:
    """Watches `directory/records/`, which the writer made as it opened (a start that could
    not make it, on a full disk, has nothing to watch until a write makes it)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.key: bytes | None = None  # the conversation key this process uses, if any
        self._there = self._records.is_dir()
        # A removal seen and not yet undone: records/ and the key to make again. Kept until
        # both are, not only for the flush that saw it: one whose mkdir failed (a full disk)
        # left nothing owed, the writer's next write made records/ again, and the key stayed
        # gone for good (found in review).
        self._owed = False
        self._failed = False  # a try to undo it failed, and said so (once per removal)

    @property
    def _records(self) -> Path:
        return self.directory / "records"

    def check(self) -> None:
        """Called by every flush before it writes: one stat while all is well."""
        there = self._records.is_dir()
        if self._there and not there:
            self._owed, self._failed = True, False
        self._there = there
        if self._owed:
            self._undo()

    def _undo(self) -> None:
        """Make records/ again and write the key back: said once done, and once if a try
        fails (then tried again at every flush, not said again)."""
        try:
            # The key before records/: whoever sees records/ again finds the key beside it (a
            # report, a replica; a test that read the key in the gap did not: CI).
            self.directory.mkdir(parents=True, exist_ok=True)
            wrote = self.key is not None and conversation_key.restore(self.directory, self.key)
            self._records.mkdir(exist_ok=True)
        except OSError as exc:  # the writes say how they fail meanwhile
            if not self._failed:
                log.warning(
                    "the ledger directory %s was removed while the router ran (its records/ "
                    "is gone; the rows written before are not in it), and it or its "
                    "conversation key cannot be made again now (tried again at each "
                    "flush): %s",
                    self.directory,
                    exc.strerror or exc,
                )
            self._failed = True
            return
        self._owed, self._there = False, True
        log.warning(
            "the ledger directory %s was removed while the router ran (its records/ was "
            "gone; the rows written before are not in it): made it again%s",
            self.directory,
            ", with this run's conversation key" if wrote else "",
        )
