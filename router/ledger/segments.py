"""Segment files: the on-disk layout, and listing what a reader may trust.

Layout: `DIR/<table>/day=YYYY-MM-DD/<name>.parquet`. Every file is written under a hidden
temporary name and renamed into place (`router.ledger.segment_write`), so a reader never
sees half a file from a live writer. A merged file lists the files it replaces in its
Parquet metadata (`smf.sources`); readers ignore those sources, so a merge followed by a
crash before the sources were deleted never double-counts. A file whose footer cannot be
read is skipped with a warning naming it, as is, unread, one compaction marked damaged
(`router.ledger.damage`). Each file's checksum is written beside it (`router.ledger.checksum`)
and checked by whoever scans the file's rows, not here: listing a year to read a few days of
it (or only its footers, for rollup digests and price-map versions) must not read every byte.
The one exception is a merged file whose sources are still here: it must prove its checksum
before it may hide them (`_vouched`), once per state of the file in a process, but to
compaction, which deletes them on that proof.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from router.ledger import checksum, damage

SOURCES_KEY = b"smf.sources"
PRICE_MAP_KEY = b"smf.price_map_version"
SUFFIX = ".parquet"
MICROS_PER_DAY = 86_400_000_000
ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
EPOCH = date(1970, 1, 1)


@dataclass(frozen=True, slots=True)
class Segment:
    """One readable segment file and what its footer says."""

    path: Path
    day: str
    rows: int
    sources: frozenset[str] = frozenset()
    price_map_version: str | None = None
    schema: str = ""  # the Parquet schema as text: files differ only after a schema change


@dataclass(slots=True)
class Listing:
    """The segments of one table a reader should use, and the files it skipped."""

    segments: list[Segment] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Files marked damaged (`damage`), and why: named to readers, not again to compaction
    # (`list_table` adds them to `warnings`, for readers that name every skipped file).
    marked: dict[Path, str] = field(default_factory=dict)
    # Merged files left out for failing their checksum while their sources are here (and
    # listed instead): a merge of all those sources holds their rows (`compaction.merge`).
    rejected: list[Segment] = field(default_factory=list)
    # Files whose footer could not be read now, for whatever reason: any of them may be a
    # merged file hiding files listed here (`compaction._compact_day` waits for them).
    unread: set[Path] = field(default_factory=set)
    # Directories that could not be listed (`list_table`: a day, or the table's own)
    unlisted: list[Path] = field(default_factory=list)

    @property
    def skipped(self) -> set[Path]:
        """The files and directories left out whose rows a reader of this listing misses:
        unreadable, damaged or unlisted. A directory that is no day partition is not one
        (never the ledger's rows), nor a file a merged one replaced (its rows are there),
        nor a `rejected` merged file whose every source is here, read or itself counted
        here, or merged into a listed file (its rows are there: a `shadow report` said
        "partial", exit 3, of a table it read whole; found in review)."""
        rejected = {seg.path for seg in self.rejected}
        return {*(self.unread - rejected), *self._uncovered(), *self.marked, *self.unlisted}

    def _uncovered(self) -> set[Path]:
        """The `rejected` files some of whose sources are gone: their rows are in no other
        file a reader lists (a merge killed in the midst of deleting its sources)."""
        here = {seg.path for seg in self.segments} | self.unread | set(self.marked)
        merged = {seg.path.parent / name for seg in self.segments for name in seg.sources}
        here |= merged
        return {
            seg.path
            for seg in self.rejected
            if seg.path not in merged
            and not {seg.path.parent / name for name in seg.sources} <= here
        }

    @property
    def paths(self) -> list[str]:
        return [str(s.path) for s in self.segments]


def day_dir(directory: Path, table: str, day: str) -> Path:
    return directory / table / f"day={day}"


def _iso_day(number: int) -> str:
    return (EPOCH + timedelta(days=int(number))).isoformat()


def split_by_day(table: pa.Table, time_column: str) -> dict[str, pa.Table]:
    """Split rows into their UTC day partitions (usually just one)."""
    if table.num_rows == 0:
        return {}
    column = table.column(time_column)
    if column.null_count == 0:  # integer days: ~10x cheaper than strftime on the flush thread
        # the microseconds as they are stored (a view, as a cast to int64 gives them): no
        # `pyarrow.compute` on the path of a one-day flush, whose import holds ~9 MB
        micros = np.concatenate([chunk.view(pa.int64()).to_numpy() for chunk in column.chunks])
        numbers = micros // MICROS_PER_DAY
        found = np.unique(numbers)
        if len(found) == 1:
            return {_iso_day(found[0]): table}
        return {_iso_day(d): table.filter(pa.array(numbers == d)) for d in found}
    import pyarrow.compute as pc  # rows without a time (a bug's): rare

    days = pc.strftime(column, format="%Y-%m-%d")
    unique = days.unique().to_pylist()
    if len(unique) == 1:
        return {str(unique[0]): table}
    return {str(d): table.filter(pc.equal(days, d)) for d in unique}


def read_segment(path: Path) -> Segment:
    """Read a segment's footer (its checksum is not checked); raises when the file is not a
    complete Parquet file."""
    meta = pq.read_metadata(path)
    kv = meta.metadata or {}
    sources = frozenset(json.loads(kv[SOURCES_KEY])) if SOURCES_KEY in kv else frozenset()
    version = kv[PRICE_MAP_KEY].decode() if PRICE_MAP_KEY in kv else None
    day = path.parent.name.removeprefix("day=")
    schema = str(meta.schema).partition("\n")[2]  # its first line is the object's address
    return Segment(path, day, meta.num_rows, sources, version, schema)


def read_file(path: Path) -> pa.Table:
    """Every row of one segment file. Not `pq.read_table`: on a path it goes through
    `pyarrow.dataset`, whose import (with `pyarrow.compute`'s) a router holds for good once
    its writer's first merge or the canary follower's first read ran it (~15 MB)."""
    with pq.ParquetFile(path) as file:
        return file.read()


def validate_fully(path: Path) -> None:
    """Decode every page of a file: catches corruption a footer check cannot see. One row
    group at a time: under a memory limit a bigger read fails for want of memory."""
    with pq.ParquetFile(path) as file:
        for group in range(file.num_row_groups):
            file.read_row_group(group)


def day_dirs(
    directory: Path,
    table: str,
    warnings: list[str] | None = None,
    unlisted: list[Path] | None = None,
) -> list[Path]:
    """The table's `day=YYYY-MM-DD` directories, oldest first.

    Any other `day=…` directory (`day=2026-03-01.bak`, a copy someone kept) is no partition:
    it is never read, counted, compacted nor dropped by retention, and is named in
    `warnings` when given (callers that look twice at one table pass it once), as is a
    table this account may not list (`texts/`, 0700, another's): skipped, not a traceback,
    and put in `unlisted` when given."""
    root = directory / table
    try:
        listed = _day_named(root)
    except OSError as exc:
        if warnings is not None:
            warnings.append(f"skipped unreadable {root}: {exc.strerror or exc}")
        if unlisted is not None:
            unlisted.append(root)
        return []
    found: list[Path] = []
    for path in listed:
        if partition_day(path) is not None:
            found.append(path)
        elif warnings is not None:
            warnings.append(f"ignored {path}: not a day partition (day=YYYY-MM-DD)")
    return found


def unlisted(directory: Path, table: str) -> tuple[list[Path], list[str]]:
    """`day_dirs` for retention: the days, and why the table could not be listed, if so. Only
    that: the other warnings are compaction's to give. Silent, retention dropped nothing
    and said nothing (found in review)."""
    root = directory / table
    try:
        return [p for p in _day_named(root) if partition_day(p) is not None], []
    except OSError as exc:
        return [], [f"retention not applied to {root}: {exc.strerror or exc}"]


def _day_named(root: Path) -> list[Path]:
    """The `day=…` directories under `root`, sorted; none when it is not there. Raises
    `OSError` when this account may not list it, or even look (`is_dir` raises in a ledger
    it may read but not search)."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith("day="))


def remove_tree(path: Path) -> str | None:
    """Delete a whole partition (retention); None once it is gone, else why it is not.

    The reason is returned, not ignored: ignored, a partition this process may not delete
    (written by another user, e.g. root running `smf-router ledger compact`) stayed past
    retention for good, counted as dropped every hour. A file another process deletes
    meanwhile (two replicas applying retention at once) is no failure: the first, lenient
    pass steps over it, and only what is still there after it is tried again for its error."""
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return None
    try:
        shutil.rmtree(path)
    except OSError as exc:
        if os.path.lexists(path):
            return exc.strerror or str(exc)
    return None


def partition_day(path: Path) -> date | None:
    """The day a `day=YYYY-MM-DD` directory holds, or None if its name is not exactly that."""
    text = path.name.removeprefix("day=")
    if not ISO_DAY.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:  # day=2026-02-30
        return None


def list_day(path: Path, full: bool = False, afresh: bool = False) -> Listing:
    """The trusted segments of one day directory, without files a merged file replaced.

    A file that vanishes between the directory listing and its footer was merged away, and
    its merged file may be newer than the listing: the day is listed again (a few times at
    most), or its rows would be missing without a word. `afresh`: a merged file whose
    sources are here proves its checksum now, even if it did in this process before
    (`checksum.verify_once`), for a caller that deletes those sources on that proof."""
    for _ in range(LIST_ATTEMPTS - 1):
        listing = _list_once(path, full, afresh)
        if listing is not None:
            return listing
    listing = _list_once(path, full, afresh, vanished_ok=True) or Listing()
    listing.warnings.append(f"{path}: files kept vanishing while listed (a merge running?)")
    return listing


LIST_ATTEMPTS = 5


def _list_once(path: Path, full: bool, afresh: bool, vanished_ok: bool = False) -> Listing | None:
    listing = Listing()
    found: list[Segment] = []
    files = sorted(path.iterdir())
    names = {file.name for file in files}
    for file in files:
        if file.name.startswith(".") or not file.name.endswith(SUFFIX):
            continue
        mark = damage.marker(file)
        if mark.name in names and (why := damage.marked(file)) is not None:
            listing.marked[file] = f"skipped unreadable segment {file}: {why} (see {mark.name})"
            continue
        try:
            if full:
                validate_fully(file)
            found.append(read_segment(file))
        except FileNotFoundError:
            if not vanished_ok:
                return None
        except Exception as exc:  # any decode failure means: skip this file, say which
            listing.warnings.append(f"skipped unreadable segment {file}: {exc}")
            listing.unread.add(file)
    try:
        found = _vouched(found, listing, afresh)
    except FileNotFoundError:
        if not vanished_ok:
            return None
    replaced = set().union(*(s.sources for s in found)) if found else set()
    listing.segments = [s for s in found if s.path.name not in replaced]
    return listing


def _vouched(found: list[Segment], listing: Listing, afresh: bool) -> list[Segment]:
    """`found` without merged files that fail their checksum while the files they replaced
    are still here (a writer keeps them a grace period after its merge; a merge killed
    before its deletes keeps them for good). A merged file hides those files, and compaction
    deletes them: a damaged one must not, or intact rows would be lost with it. Rare, but
    a source that cannot be deleted stays for good: each file is checked once as it is
    (`checksum.verify_once`), not at every report over its day, unless `afresh`. Rot on
    disk leaves a file as it was to that: a reader scanning it checks it, and compaction,
    which deletes the sources, lists `afresh`. Those left out are named in the
    listing's warnings, and kept in its `rejected`. A marked file counts as here: unlisted,
    its rows (for a restore) are still in no other file, and compaction deletes what a
    merged file hides."""
    names = {seg.path.name for seg in found} | {path.name for path in listing.marked}
    kept: list[Segment] = []
    for seg in found:
        if seg.sources & names:
            try:
                (checksum.verify if afresh else checksum.verify_once)(seg.path)
            except FileNotFoundError:
                raise
            except Exception as exc:  # damaged, or unread now: not vouched
                listing.warnings.append(f"skipped unreadable segment {seg.path}: {exc}")
                listing.rejected.append(seg)
                if not isinstance(exc, checksum.Mismatch):  # proves nothing: compaction waits
                    listing.unread.add(seg.path)
                continue
        kept.append(seg)
    return kept


def list_table(
    directory: Path,
    table: str,
    first_day: str | None = None,
    last_day: str | None = None,
    full: bool = False,
) -> Listing:
    """All trusted segments of a table, optionally only days in [first_day, last_day].

    A day directory that cannot be listed (another user's, mode 700) is skipped and named
    in the warnings, as an unreadable file is: it crashed every report; so is the table's
    own directory. Compaction lists its days with `list_day`, which raises, and leaves
    such a day alone."""
    result = Listing()
    # an unlistable table: said, and left out
    for path in day_dirs(directory, table, result.warnings, result.unlisted):
        day = path.name.removeprefix("day=")
        if (first_day and day < first_day) or (last_day and day > last_day):
            continue
        try:
            part = list_day(path, full)
        except FileNotFoundError:
            continue  # a whole day dropped by retention while we listed
        except OSError as exc:  # a day this process may not list: said, like a file
            result.warnings.append(f"skipped unreadable day {path}: {exc.strerror or exc}")
            result.unlisted.append(path)
            continue
        result.segments.extend(part.segments)
        result.warnings.extend([*part.warnings, *part.marked.values()])
        result.marked.update(part.marked)
        result.unread |= part.unread
        result.rejected.extend(part.rejected)
    return result
