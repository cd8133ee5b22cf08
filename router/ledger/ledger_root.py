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

    @property
    def _records(self) -> Path:
        return self.directory / "records"

    def check(self) -> None:
        """Called by every flush before it writes: one stat while all is well."""
        there = self._records.is_dir()
        gone, self._there = self._there and not there, there
        if not gone:
            return
        try:
            self._records.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # the writes say how they fail, and make it once they work
            log.warning(
                "the ledger directory %s was removed while the router ran (its records/ is "
                "gone; the rows written before are not in it), and cannot be made again "
                "now: %s",
                self.directory,
                exc.strerror or exc,
            )
            return
        self._there = True
        log.warning(
            "the ledger directory %s was removed while the router ran (its records/ was "
            "gone; the rows written before are not in it): made it again%s",
            self.directory,
            self._key_back(),
        )

    def _key_back(self) -> str:
        """The key written back, for the warning to say."""
        if self.key is None:
            return ""
        try:
            wrote = conversation_key.restore(self.directory, self.key)
        except OSError as exc:
            return f"; its conversation key could not be written back ({exc.strerror or exc})"
        return ", with this run's conversation key" if wrote else ""
