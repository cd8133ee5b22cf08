"""A ledger the start could not write into for now, and the probe that finds out when it can.

While running, a router goes on through a read-only remount or a full disk: rows are held
in memory and written back once writes work (`router.ledger.backlog`). At start the same
read-only remount was a refusal (exit 2, "can never hold the ledger"), and systemd's
`RestartPreventExitStatus=2` kept the gateway down after a crash or a `systemctl restart`
until someone came by (found in a long-running-operation review). `serve` now starts on it
as it goes on at runtime, when the directory holds a ledger already (`router.ledger.location`
refuses one that holds none: most likely systemd's `ProtectSystem=strict`).

With no traffic nothing is written, so nothing would fail and the status would say all is
well: the writer takes the start's failure for a failed write (`last_write_failed`) until
rows reach the disk, or an idle flush's probe (`writable`) writes a file where the start
could not.

The probe writes a block of data and syncs it: a file created empty and removed took no
block, so a full ext4 or tmpfs let it through, `serve` started without its warning, and
`canary run` asked every backend (a paid cloud's calls too) before its rows were lost
(found in a durability review).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

# What the probe writes: one filesystem block, the least a file of rows takes. Random, so
# a compressing filesystem (ZFS, btrfs) cannot store it in no block, as it stores zeros.
PROBE_BYTES = 4096


@dataclass(frozen=True, slots=True)
class Unwritable:
    """The start's failed write: `folder` (the ledger or a directory under it) refused
    `doing` with `error` (a strerror), which may pass (EROFS, ENOSPC, EDQUOT, EIO)."""

    path: str  # `ledger.path`, as configured
    folder: Path
    doing: str
    error: str
    read_only: bool

    def __str__(self) -> str:
        why = "is read-only now" if self.read_only else "cannot be written now"
        said = (
            f"ledger.path: {self.path!r} {why} ({self.doing}: {self.error}): starting anyway, "
            "with every row held in memory until it is writable again and written then (a "
            "SIGKILL, a crash or an exit before that loses them)"
        )
        if not self.read_only:
            return said
        return said + (
            ". If it stays read-only, it may lie outside systemd's ReadWritePaths= "
            "(ProtectSystem=strict)"
        )

    def over(self, wrote: int, failing: bool) -> bool:
        """Whether writes work again: a flush `wrote` rows, or one that failed none (it had
        none to write, nor any held) finds `folder` writable."""
        return wrote > 0 or (not failing and self.writable())

    def writable(self) -> bool:
        """Whether a file can be written in `folder` now (made first if it is missing, as
        the writer makes its directories). Asked by a flush with nothing to write only while
        the start's failure stands: a block written and synced per flush interval."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            try_a_file(self.folder)
        except OSError:
            return False
        return True


def try_a_file(folder: Path) -> None:
    """Create a file in `folder`, write a block to it and sync it, then remove it, as the
    writer will write its files there: raises the OSError of the step that failed (ENOSPC
    on a full disk, at the write or at the sync where space is allotted late). The start's
    check (`router.ledger.location`) and the idle writer's (`Unwritable.writable`) both ask
    so, and must ask alike: a probe that differed could find the ledger writable where the
    writer's files are not."""
    fd, probe = tempfile.mkstemp(prefix=".probe.", dir=folder)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(os.urandom(PROBE_BYTES))
            file.flush()
            os.fsync(file.fileno())
    finally:
        os.unlink(probe)
