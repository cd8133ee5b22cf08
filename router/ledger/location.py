"""Whether `ledger.path` can ever hold a ledger, asked before anything is recorded.

The writer logs a failed write and retries it: right for a full disk, which frees up. A path
that is a file (`/etc/passwd`), lies under one, or that this user may not create, never
does: `serve` answered traffic while every record piled up in memory, and shutdown said
they were lost (found in review). Such a path now stops `serve` and `canary run` (exit 2,
naming `ledger.path`), `config check` says what it can tell without creating anything, and
a reload to such a path is rejected, since the restart it asks for would fail.

The directories under it count too: the writer writes into `<table>/day=…/`, and a ledger
once written by root (`sudo smf-router serve`) and then served as its service user started
"ready" and lost every row it could not write into root's `records/` (found in review). So
each table's directory that exists, and the day directories the writer is about to write,
are tried for real. With housekeeping, every other day directory is checked for the write
and search permission compaction and retention need, and one this user lacks is a warning:
the records are safe, only their merge and deletion would fail (hourly, in the log), and a
router that will not start stops every agent's traffic for a chore.

Another process's retention (a second router's housekeeping, `ledger compact`) deletes
closed days while this one looks at them: a directory gone between its listing and its
check is skipped, neither refused as "not a directory" (`serve` exited 2, and systemd's
RestartPreventExitStatus kept it down) nor warned about (found in re-review).

A read-only filesystem (EROFS) may be a remount after a disk error, which passes, or
systemd's `ProtectSystem=strict` over a path outside the unit's ReadWritePaths=, which does
not. Refused as "can never hold the ledger", a restart during a remount kept the router
down (exit 2, RestartPreventExitStatus=2) though it runs on through one (found in a
long-running-operation review). A directory that holds a ledger already was writable once:
`serve` starts on it, rows held in memory (`router.ledger.unwritable`). One that holds
none is most likely the unit's mistake, and is refused, saying so.
"""

from __future__ import annotations

import errno
import logging
import os
import re
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from router.config import ConfigError
from router.ledger.columns import ROW_COLUMNS
from router.ledger.unwritable import Unwritable, try_a_file

if TYPE_CHECKING:
    from router.config import Config

# A failed mkdir or write that no retry fixes. Anything else (ENOSPC, EDQUOT, EIO) may pass,
# and keeps the writer's log-and-retry; so may EROFS, where a ledger is already (above).
PERMANENT = frozenset(
    {
        errno.EEXIST,  # mkdir(exist_ok=True) raises it only for something not a directory
        errno.ENOTDIR,
        errno.EACCES,
        errno.EPERM,
        errno.ENOENT,  # a parent that cannot be made (`/proc/nope`)
        errno.ELOOP,
        errno.ENAMETOOLONG,
    }
)


log = logging.getLogger("smf_router.ledger")

# The tables the writer writes, as `<table>/day=YYYY-MM-DD/<file>` (`router.ledger.segments`),
# and the rollups compaction writes beside them. Names only: the schemas import Arrow.
WRITTEN_TABLES = ("records", "texts", *ROW_COLUMNS)
COMPACTED_TABLES = (*WRITTEN_TABLES, "rollups")
_DAY = re.compile(r"day=\d{4}-\d{2}-\d{2}")
# A directory under the ledger that another user made (root's `serve` or `ledger compact`):
# the advice for EACCES there. An immutable directory (EPERM, chattr +i) is no one's to give
# back, and gets the generic advice; a read-only mount (EROFS) its own (`_read_only_refusal`).
_GIVE_BACK = (
    "Give this user back what another one made there (`chown -R`), or point ledger.path at "
    "a directory this user can write"
)


def prepare(path: str, compacts: bool = False, today: date | None = None) -> Unwritable | None:
    """Create the ledger directory and write (and remove) a file in it and in the directories
    under it the writer writes into, as the writer will: a permanent failure is a ConfigError
    naming `ledger.path` (and the directory); the first that may pass (a full disk, or a
    read-only filesystem under a ledger that exists) is returned, for the caller to say and
    the writer to show and retry. `compacts`: this process runs housekeeping, which rewrites
    and deletes every day directory: one it may not is logged, once (`today`: the UTC date,
    for tests)."""
    directory = Path(path)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if exc.errno == errno.EEXIST:  # it, or a part of it, is something else
            raise ConfigError(never_a_directory(path) or _not_a_directory(path)) from None
        return _unless_permanent(
            path, directory, exc, f"cannot create {str(exc.filename or path)!r}"
        )
    if (failed := _probe(path, directory, "cannot create a file in it")) is not None:
        return failed
    warned = False
    try:
        for part, written in _parts(directory, compacts, today or datetime.now(UTC).date()):
            if not part.is_dir():
                if not os.path.lexists(part):
                    continue  # deleted since it was listed: another process's retention
                raise ConfigError(_part_not_a_directory(path, part))
            if written:
                doing = f"cannot create a file in {str(part)!r}"
                found = _probe(path, part, doing, _GIVE_BACK)  # every part: one may never work
                failed = failed or found
            elif not warned and not os.access(part, os.W_OK | os.X_OK) and os.path.lexists(part):
                log.warning("%s", _cannot_compact(path, part))
                warned = True
    except OSError as exc:  # a table's directory this user may not list
        _refuse_if_permanent(path, exc, f"cannot list {str(exc.filename)!r}", _GIVE_BACK)
    return failed


def _probe(path: str, folder: Path, doing: str, fix: str | None = None) -> Unwritable | None:
    """Write and remove a file in `folder`; a permanent failure raises, one that may pass
    (a full disk, a read-only remount under a ledger) is returned, and a folder deleted
    meanwhile (the writer makes it again) is no failure."""
    try:
        try_a_file(folder)
    except OSError as exc:
        if exc.errno != errno.ENOENT or os.path.lexists(folder):
            return _unless_permanent(path, folder, exc, doing, fix)
    return None


def _unless_permanent(
    path: str, folder: Path, exc: OSError, doing: str, fix: str | None = None
) -> Unwritable:
    """`exc`, which `doing` in `folder` met, as a failure that may pass; a ConfigError if it
    never does. A read-only filesystem passes only where a ledger is already."""
    if exc.errno == errno.EROFS and not _holds_ledger(Path(path)):
        raise ConfigError(_read_only_refusal(path, doing, exc)) from None
    _refuse_if_permanent(path, exc, doing, fix)
    read_only = exc.errno == errno.EROFS
    return Unwritable(path, folder, doing, exc.strerror or str(exc), read_only)


def _holds_ledger(directory: Path) -> bool:
    """Whether `directory` holds what a ledger's writers make: it was writable once. One
    this user may not look in holds none it could write."""
    from router.ledger.presence import is_ledger  # it imports this module's table names

    try:
        return is_ledger(directory)
    except OSError:
        return False


def _read_only_refusal(path: str, doing: str, exc: OSError) -> str:
    return (
        f"ledger.path: {path!r} is read-only now ({doing}: {exc.strerror}), and holds no "
        "ledger yet: every record would be lost. Most often this is systemd's "
        "ProtectSystem=strict, which leaves only the unit's StateDirectory= and "
        "ReadWritePaths= writable: add the path to ReadWritePaths=, or point ledger.path at "
        "a writable directory. A filesystem remounted read-only must be made writable first"
    )


def _parts(directory: Path, compacts: bool, today: date) -> Iterator[tuple[Path, bool]]:
    """The directories under the ledger this process will write into that exist already, and
    whether the writer does from the start (True: tried for real) or only compaction and
    retention do (False: their permissions are read). The writer makes its day directories
    in each table's and takes their merge locks there. A row's day is that of its
    `started_at` or `ts`, which this process sets (rows held after a failed write are in
    memory only), so from its start it writes today's day and tomorrow's (UTC: a start
    just before midnight writes tomorrow's within seconds); yesterday's was written by
    the process before it, and is closed: refusing a start over it stopped all traffic for
    a day no one writes again (found in re-review). Housekeeping writes the rollups too,
    and rewrites and deletes every other day."""
    near = {f"day={today + timedelta(days=n)}" for n in (0, 1)}
    for table in COMPACTED_TABLES if compacts else WRITTEN_TABLES:
        folder = directory / table
        if not os.path.lexists(folder):
            continue
        written = table in WRITTEN_TABLES
        yield folder, written
        if not folder.is_dir():
            continue  # the caller refuses it
        try:
            listed = (
                {p.name for p in folder.iterdir() if _DAY.fullmatch(p.name)} if compacts else set()
            )
        except FileNotFoundError:
            continue  # deleted since it was seen: the writer makes it again
        names = near | listed
        for name in sorted(names):
            day = folder / name
            if os.path.lexists(day) and (name in near or day.is_dir()):
                yield day, written and name in near


def _refuse_if_permanent(path: str, exc: OSError, doing: str, fix: str | None = None) -> None:
    """A ConfigError for a failure no retry fixes. `fix` is the advice for EACCES, which
    under the ledger means another user's directory; any other error gets the generic one."""
    if exc.errno in PERMANENT:
        advice = fix if fix and exc.errno == errno.EACCES else None
        raise ConfigError(
            f"ledger.path: {path!r} can never hold the ledger: {doing}: {exc.strerror}; every "
            "record would be lost. "
            + (advice or "Point it at a directory this user can create or write")
        ) from None


def _part_not_a_directory(path: str, part: Path) -> str:
    return (
        f"ledger.path: {path!r} can never hold the ledger: {str(part)!r} is not a directory; "
        "every record would be lost. Move it away, or point ledger.path at another directory"
    )


def _cannot_compact(path: str, part: Path) -> str:
    return (
        f"ledger.path: {path!r}: this user cannot write {str(part)!r}, so housekeeping could "
        "never compact what it holds nor delete it past retention. "
        + _GIVE_BACK
        + ", or turn ledger.housekeeping off where a job run as that user does it"
    )


def never_a_directory(path: str) -> str | None:
    """Why `path` can never be a directory, for anyone: it, or the nearest part of it that
    exists, is not one. Found without creating anything (`config check`)."""
    directory = Path(path)
    nearest = _nearest(directory)
    if nearest.is_dir():
        today = datetime.now(UTC).date()
        parts = _parts(directory, False, today) if nearest == directory else iter(())
        found = next((part for part, _ in parts if not part.is_dir()), None)
        return None if found is None else _part_not_a_directory(path, found)
    if nearest == directory:
        return _not_a_directory(path)
    return (
        f"ledger.path: {path!r} can never be created: {str(nearest)!r} is not a directory; "
        "every record would be lost. Point it at a directory"
    )


def not_writable(path: str, compacts: bool = False) -> str | None:
    """Why this user could not create `path` or write into it or into the directories under
    it that `serve` writes (`prepare`), judged from permissions without creating anything.
    Only as good as they are: root may write where they say no one can, and a mount may
    refuse what they allow; `serve` tries for real."""
    nearest = _nearest(Path(path))
    if not nearest.is_dir():
        return None
    if _mounted_read_only(nearest):  # `os.access` says no for root too: say why
        if not _holds_ledger(Path(path)):
            return (
                f"ledger.path: {path!r} is read-only now, and holds no ledger yet: `serve` "
                "would refuse to start"
            )
        return (
            f"ledger.path: {path!r} is read-only now: `serve` would start anyway, and hold "
            "its rows in memory until it is writable again"
        )
    if os.access(nearest, os.W_OK | os.X_OK):
        return _part_not_writable(path, compacts) if nearest == Path(path) else None
    if nearest != Path(path):  # still to be made: by whom is not for permissions to say
        return (
            f"ledger.path: {path!r} does not exist and this user cannot create it in "
            f"{str(nearest)!r}: `serve` run as this user would refuse to start, unless it is "
            "made for this user first (systemd's StateDirectory does, at start)"
        )
    return (
        f"ledger.path: this user cannot write {path!r}, so it could not hold the ledger: "
        "`serve` run as this user would refuse to start"
    )


def _mounted_read_only(folder: Path) -> bool:
    """Whether `folder` lies on a filesystem mounted read-only (for now, maybe)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _part_not_writable(path: str, compacts: bool) -> str | None:
    """`not_writable` for the directories under an existing, writable `path`."""
    try:
        for part, written in _parts(Path(path), compacts, datetime.now(UTC).date()):
            if part.is_dir() and not os.access(part, os.W_OK | os.X_OK):
                if not written:
                    return _cannot_compact(path, part)
                return (
                    f"ledger.path: this user cannot write {str(part)!r}, so {path!r} could not "
                    "hold the ledger: `serve` run as this user would refuse to start. " + _GIVE_BACK
                )
    except OSError as exc:
        return f"ledger.path: this user cannot list {str(exc.filename)!r}: {exc.strerror}"
    return None


def reload_check(running: str) -> Callable[[Config], Callable[[], None]]:
    """A reload hook: a new `ledger.path` applies at the next restart only, and one that
    restart would refuse rejects the reload now, while the running config can stay."""

    def check(config: Config) -> Callable[[], None]:
        path = config.ledger.path  # housekeeping's directories are no reason to refuse
        if path != running and (why := never_a_directory(path) or not_writable(path)):
            raise ConfigError(why)
        return lambda: None

    return check


def _nearest(directory: Path) -> Path:
    """`directory` if it exists (a link to nothing counts), else its nearest parent that does."""
    return next((p for p in (directory, *directory.parents) if os.path.lexists(p)), Path("."))


def _not_a_directory(path: str) -> str:
    kind = "not a directory" if os.path.exists(path) else "a link to nothing"
    return (
        f"ledger.path: {path!r} is {kind}, so it can never hold the ledger; every record "
        "would be lost. Point it at a directory (one that does not exist yet is created)"
    )
