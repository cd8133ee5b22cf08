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
    file `serve` or an older canary made beside them).

    Raises PermissionError when this user may not look (the directory or its parent not
    searchable: systemd's 0750 state directory, for a user outside its group): that is no
    answer, and taken for "no", a ledger this user could not read was "no ledger at …"."""
    try:
        if any((directory / table).is_dir() for table in COMPACTED_TABLES):
            return True
        return any((directory / name).is_file() for name in (KEY_FILE, _OLD_CANARY_MARK))
    except PermissionError:
        raise
    except OSError:  # a name too long, a loop of links: nothing a ledger could be at
        return False


def _holds_one(directory: Path) -> bool:
    """`is_ledger` for a directory that was not asked for: one this user may not look in
    is no hint."""
    try:
        return is_ledger(directory)
    except OSError:
        return False


def meant(directory: Path) -> Path | None:
    """The ledger a user who named `directory` (no ledger) most likely meant: the ledger it
    lies in (given its `records/`, or a day's directory under it), or one directly under it
    (its `ledger/` first: `/var/lib/smf-router` for `/var/lib/smf-router/ledger`)."""
    here = Path(os.path.abspath(directory))  # `--ledger .` in `records/` has a parent too
    for above in (here.parent, here.parent.parent):
        if above != here and _holds_one(above):
            return above
    if _holds_one(directory / "ledger"):
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
    return next((directory / name for name in names if _holds_one(directory / name)), None)
