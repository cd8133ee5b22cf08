"""Whether a directory holds a ledger, asked by the commands that read one (`report`,
`ledger compact`, `shadow report`) before they do.

Only a directory that exists was asked for once: a ledger's parent (`/var/lib/smf-router`
for `/var/lib/smf-router/ledger`), its own `records/`, or any empty directory read as a
ledger with no traffic: a report of zeros, "no shadow comparisons yet", and a retention
job that said "dropped 0" every night and never applied it (found in a new user's
review). A ledger is a directory holding what its writers make: a table's directory (the
writer makes `records/` as it opens, so a router that has served nothing yet has one), the
conversation key `serve` writes at start, or an older version's canary mark.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from router.ledger.conversation_key import KEY_FILE
from router.ledger.location import COMPACTED_TABLES

# a file an older version's canary wrote beside the tables (docs/ledger.md)
_OLD_CANARY_MARK = "canary-run-started.json"
# the entries of a directory looked at for a ledger under it: a hint, not a search of /var
_LOOKED_AT = 1000


def is_ledger(directory: Path) -> bool:
    """Whether `directory` holds what a ledger's writers make (a table's directory, or a
    file `serve` or an older canary made beside them)."""
    try:
        if any((directory / table).is_dir() for table in COMPACTED_TABLES):
            return True
        return any((directory / name).is_file() for name in (KEY_FILE, _OLD_CANARY_MARK))
    except OSError:  # one this user may not search: none it can read either
        return False


def meant(directory: Path) -> Path | None:
    """The ledger a user who named `directory` (no ledger) most likely meant: the ledger it
    lies in (given its `records/`, or a day's directory under it), or one directly under it
    (its `ledger/` first: `/var/lib/smf-router` for `/var/lib/smf-router/ledger`)."""
    here = Path(os.path.abspath(directory))  # `--ledger .` in `records/` has a parent too
    for above in (here.parent, here.parent.parent):
        if above != here and is_ledger(above):
            return above
    if is_ledger(directory / "ledger"):
        return directory / "ledger"
    try:
        with os.scandir(directory) as entries:
            names = sorted(
                entry.name
                for entry in itertools.islice(entries, _LOOKED_AT)
                if entry.is_dir(follow_symlinks=True)
            )
    except OSError:
        return None
    return next((directory / name for name in names if is_ledger(directory / name)), None)
