"""Compaction and retention: keep a year of ledger fast to query and bounded on disk.

Merging is safe with concurrent writers and readers because (1) only files that no live
writer will touch again are merged — a writer's own files, or whole days that are closed —
(2) the merged file is renamed into place before its sources are deleted, and (3) it names
its sources in its metadata, so readers ignore sources that are still on disk, and (4) a
day's compaction and a writer's merge of that day never run at once (`router.ledger.daylock`).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from router.ledger import checksum, damage, leftovers, rollups, segment_write, segments
from router.ledger.daylock import day_lock, lock_path
from router.ledger.schema import SCHEMAS
from router.ledger.segments import Segment

log = logging.getLogger("smf_router.ledger.compaction")


@dataclass(slots=True)
class CompactionResult:
    """What a compaction pass did. Its warnings are the caller's to show and are not logged
    here: the CLI prints them as `warning:` lines, the router's housekeeping logs them (a
    log line here as well printed each one twice on a terminal)."""

    days: int = 0
    files_in: int = 0
    files_out: int = 0
    rollups: int = 0  # days rolled up (written again included)
    rollups_upgraded: int = 0  # …of which rebuilt over an older rollup format's of its files
    failed: int = 0  # closed days left as they were by an error (a full disk, no permission)
    warnings: list[str] = field(default_factory=list)
    # `table/day=…` of closed days another process held the lock of (a compactor, a
    # writer's merge): left to it, or to the next pass; no failure, but said
    skipped: list[str] = field(default_factory=list)


class _Unreadable(Exception):
    """A merge input that cannot be decoded: the merge starts again without it."""

    def __init__(self, segment: Segment, cause: Exception) -> None:
        super().__init__(f"not merging unreadable segment {segment.path}: {cause}")
        self.segment = segment


def merge(
    inputs: Sequence[Segment],
    out: Path,
    delete: bool = True,
    damaged: set[Path] | None = None,
    covers: Sequence[Segment] = (),
) -> tuple[list[Path], list[str]]:
    """Merge readable `inputs` into `out`; returns (the replaced files, warnings).

    Inputs are read one at a time and streamed into `out` (`segment_write.write_tables`), so a
    merge needs memory for one input, not for all of them. The replaced files are deleted
    unless `delete` is False (a live writer defers that, so a reader that listed them a
    moment ago can still finish; readers ignore them anyway), each on its own: those that
    cannot be are named in the warnings, and still returned. A file that cannot be decoded
    is left in place (readers skip and name it) and is not listed as a source, so it is
    never deleted by accident. Fewer than two readable inputs are left as they are: merging
    one file is a rewrite that compaction would otherwise repeat on every pass. Inputs left
    out are added to `damaged`, for `damage.mark` to prove (it marks none for an OS or memory
    error, which may pass). Each merged file of `covers` (one a listing left
    out, see `segments.Listing.rejected`) whose sources are all merged is named a source too.
    """
    warnings: list[str] = []
    todo = list(inputs)
    while len(todo) >= 2:
        try:
            replaced = _merge_readable(todo, out, covers)
        except _Unreadable as bad:
            if isinstance(bad.__cause__, FileNotFoundError):
                # merged by someone else since it was listed: merging the rest would write
                # a part of the day over the whole of it
                warnings.append(f"not merging {out.parent}: {bad.segment.path.name} vanished")
                return [], warnings
            warnings.append(str(bad))
            if damaged is not None:  # `damage.mark` proves it, or leaves it
                damaged.add(bad.segment.path)
            todo.remove(bad.segment)
            continue
        if delete:
            warnings += leftovers.undeleted(remove(replaced), "merged-away")
        return replaced, warnings
    return [], warnings


def _merge_readable(
    inputs: Sequence[Segment], out: Path, covers: Sequence[Segment] = ()
) -> list[Path]:
    """Merge `inputs` into `out`, raising `_Unreadable` (and writing nothing) if one is.

    Each input's checksum is checked first: a merge reads every row, and would write damaged
    values into a new, healthy-looking file. Sources and price-map versions come from the
    inputs' footers, not from the `Segment` objects passed in: a live writer builds those
    from what it wrote, without either.

    A merged file of `covers` holds exactly the rows of its sources: if every one of them is
    an input or a file an input replaced, `out` holds all its rows and names it a source
    too. It is deleted with them, and if it is restored later (it was damaged, and named)
    `out` hides it: counted beside `out`, its rows were counted twice. One with another
    source (deleted, or unreadable now) holds rows `out` lacks, and is left as it is. One
    named `out` (a merge of the same inputs, killed before its deletes) is replaced by
    `out`: named a source, it would be deleted as one, with all the rows just merged."""
    footers: list[Segment] = []
    schemas = []
    for seg in inputs:
        try:
            checksum.verify(seg.path)
            footers.append(segments.read_segment(seg.path))
            schemas.append(pq.read_schema(seg.path).remove_metadata())
        except Exception as exc:  # a torn or foreign file: leave it, say so
            raise _Unreadable(seg, exc) from exc
    schema = pa.unify_schemas(schemas, promote_options="default")
    sources: set[str] = set()
    versions: set[str] = set()
    for seg in footers:
        sources.add(seg.path.name)
        sources.update(s for s in seg.sources if (seg.path.parent / s).exists())
        versions.update((seg.price_map_version or "").split(","))
    versions.discard("")
    # What `out` holds: its inputs, and the files a merged input replaced (a writer's
    # level-2 merge names its level-1 inputs' level-0 files too)
    held = {seg.path.name for seg in footers}.union(*(seg.sources for seg in footers))
    sources.update(m.path.name for m in covers if m.path != out and m.sources and m.sources <= held)
    tables = (_conform(_read(seg), schema) for seg in inputs)
    version = ",".join(sorted(versions)) or None
    segment_write.write_tables(out, schema, tables, frozenset(sources), version)
    return [out.parent / name for name in sorted(sources)]


def give_back_memory() -> None:
    """Return to the system what Arrow's allocator keeps of memory freed: after a merge,
    whose peak (about one input and a row group) a live process held for good otherwise.
    With the C library's allocator (`router.serve.ARROW_POOL`) this trims every thread's
    free pages; with mimalloc or jemalloc it does what they can (the calling thread's)."""
    pa.default_memory_pool().release_unused()


def _read(seg: Segment) -> pa.Table:
    try:
        return segments.read_file(seg.path)
    except Exception as exc:  # corruption inside a page: leave the file, say so
        raise _Unreadable(seg, exc) from exc


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """`table` with `schema`'s columns in its order: missing ones null, types promoted. A
    column of the type already is taken as it is: cast, it was a copy, and the cast
    imported `pyarrow.compute` (~9 MB) into a router for merges of its own, same-typed files."""
    columns = [
        _typed(table.column(f.name), f.type)
        if f.name in table.column_names
        else pa.nulls(table.num_rows, f.type)
        for f in schema
    ]
    return pa.Table.from_arrays(columns, schema=schema)


def _typed(column: pa.ChunkedArray, kind: pa.DataType) -> pa.ChunkedArray:
    return column if column.type == kind else column.cast(kind)


def remove(paths: Sequence[Path]) -> dict[Path, OSError]:
    """Delete each of `paths`, then its checksum, each file on its own; returns why those
    that could not be were not (an immutable file, a passing NFS error). Stopping at the
    first failure left the files after it for a later pass, and failed their day (found in
    review). Each is a merged file's source, which readers ignore while it stays."""
    failed: dict[Path, OSError] = {}
    for path in paths:
        try:
            path.unlink(missing_ok=True)
            checksum.remove(path)  # once its file is gone: a file that stays is still checked
        except OSError as exc:
            failed[path] = exc
    return failed


def compacted_name(inputs: Sequence[Segment]) -> str:
    """A name derived from the inputs: two compactors racing on one day write the same file."""
    digest = hashlib.sha256("\n".join(sorted(s.path.name for s in inputs)).encode())
    return f"compacted-{digest.hexdigest()[:16]}{segments.SUFFIX}"


def closed_days(
    directory: Path,
    table: str,
    now: datetime,
    grace_s: float,
    warnings: list[str] | None = None,
) -> list[Path]:
    """Day partitions that no writer will append to any more: ended more than grace_s ago."""
    closed: list[Path] = []
    for path in segments.day_dirs(directory, table, warnings):
        day = segments.partition_day(path)
        if day is None:  # day_dirs lists partitions only
            continue
        end = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)
        if (now - end).total_seconds() >= grace_s:
            closed.append(path)
    return closed


def compact(
    directory: Path,
    now: datetime | None = None,
    grace_s: float = 3600.0,
    tables: Sequence[str] | None = None,
    stop: threading.Event | None = None,
) -> CompactionResult:
    """Merge each closed day of each table into one file; roll up each closed day of records.

    A day whose merge cannot be written (a full disk: `OSError`) is left as it was — a merge
    deletes its inputs only after its output is on disk — and named in the warnings; the
    other days are still compacted, and the caller still applies retention.

    Once `stop` is set (a router shutting down) no further day is begun: the day being
    merged finishes, the rest wait for the next pass. A year's backlog takes about a minute,
    longer than a service manager waits for a stop before it kills the process."""
    now = now or datetime.now(UTC)
    result = CompactionResult()
    result.warnings += segment_write.close_private_tables(directory)
    for table in tables or list(SCHEMAS):
        for path in closed_days(directory, table, now, grace_s, result.warnings):
            if stop is not None and stop.is_set():
                return result
            try:
                with day_lock(path) as held:
                    if held:
                        _compact_day(directory, table, path, result)
                    else:  # its merge is another's: a compactor's, or a writer's of its files
                        log.info("%s is being merged elsewhere; skipped", path)
                        result.skipped.append(f"{table}/{path.name}")
            except OSError as exc:  # a full disk: this day's inputs stay as they are
                result.failed += 1
                result.warnings.append(f"not compacting {path}: {exc.strerror or exc}")
    return result


def _compact_day(directory: Path, table: str, path: Path, result: CompactionResult) -> None:
    """Merge one closed day into one file (and roll it up, for records), under its lock.

    A damaged file is named once, then marked (`router.ledger.damage`): later passes and
    readers list the day without it, so its healthy rest is merged and rolled up once. A
    day with a file whose footer could not be read is not merged in that pass."""
    result.warnings.extend(
        leftovers.undeleted(leftovers.remove_dead_temporaries(path), "dead temporary")
    )
    damage.renew(path)
    listing = segments.list_day(path, afresh=True)  # its sources are deleted on this proof
    result.warnings.extend(listing.warnings)
    damaged = listing.unread - {seg.path for seg in listing.rejected}  # `mark` proves each
    # A file whose footer could not be read may be a merged file hiding files listed now
    # (a writer killed within its grace keeps both): merged and deleted, those rows were
    # counted twice once it read again. The day waits for a pass that reads every footer.
    whole = not listing.unread
    left: list[str] = []  # sources that stay: the merge below names them again, not twice
    if whole:  # sources a crashed merge left behind: the day is closed, the merged file is here
        left = leftovers.undeleted(
            remove([path / name for seg in listing.segments for name in seg.sources]), "merged-away"
        )
        result.warnings.extend(left)
    merged = False
    if whole and len(listing.segments) >= 2:
        out = path / compacted_name(listing.segments)
        replaced, warnings = merge(listing.segments, out, damaged=damaged, covers=listing.rejected)
        result.warnings.extend(w for w in warnings if w not in left)
        if replaced:
            result.days += 1
            result.files_in += len(replaced)
            result.files_out += 1
            merged = True
    for file in damaged:
        damage.mark(file)  # unless it reads healthy now: then it is merged next time
    if merged or damaged:
        listing = segments.list_day(path)
    if table == "records":
        _roll_up(directory, path.name.removeprefix("day="), listing.segments, result)


def _roll_up(
    directory: Path, day: str, day_segments: Sequence[Segment], result: CompactionResult
) -> None:
    """Roll up a closed day of records. A segment failing its checksum is named, marked and
    left out: the rollup then covers what readers list, who skip the marked file and name it."""
    todo = list(day_segments)
    while True:  # each turn writes, gives up, or leaves out one more segment
        try:
            written = rollups.write_day(directory, day, todo)
            result.rollups += written is not None
            result.rollups_upgraded += written == "upgraded"
            return
        except rollups.Damaged as exc:
            result.warnings.append(f"not rolling up damaged segment {exc}")
            damage.mark(exc.path)
            todo = [seg for seg in todo if seg.path != exc.path]
        except Exception as exc:  # a page corrupted inside: the report reads raw
            result.warnings.append(f"no rollup for records/{day}: {exc}")
            if isinstance(exc, OSError):  # a full disk, no permission: left as it was
                result.failed += 1
            return


def apply_retentions(
    directory: Path,
    days: int | None,
    text_days: int | None,
    now: datetime | None = None,
    warnings: list[str] | None = None,
    stop: threading.Event | None = None,
) -> list[str]:
    """Every table's retention; returns the `table/day` partitions dropped. One loop over
    the schemas, so a new table is covered. Partitions that could not be deleted are named
    in `warnings` (logged if None), for the caller to show, and are not counted.

    Texts go at the shorter of `text_days` and `days`: a prompt whose record is gone (a
    `retention_days` below the default `text_retention_days`) is kept for nothing. Once
    `stop` is set no further table is begun (as `compact`)."""
    dropped: list[str] = []
    text_keep = min((d for d in (text_days, days) if d), default=None)
    for table in SCHEMAS:
        if stop is not None and stop.is_set():
            break
        keep = text_keep if table == "texts" else days
        if keep:
            found = apply_retention(directory, table, keep, now, warnings)
            dropped += [f"{table}/{d}" for d in found]
    return dropped


def apply_retention(
    directory: Path,
    table: str,
    days: int,
    now: datetime | None = None,
    warnings: list[str] | None = None,
) -> list[str]:
    """Drop whole day partitions older than `days`; returns the days dropped.

    A partition that cannot be deleted is named in `warnings` (logged if None) and is not
    returned: counted as dropped while it stayed, it hid that retention was not applied.
    A (UTC) day is dropped once it ended `days` days ago: what it holds is kept at least
    `days` days and at most `days` + 1. A cutoff before year 1 drops nothing: a huge
    `days` ("keep it all") raised OverflowError here, and no compaction followed it."""
    now = now or datetime.now(UTC)
    try:
        cutoff = (now - timedelta(days=days)).date().isoformat()
    except OverflowError:
        cutoff = ""  # no day sorts before it
    dropped: list[str] = []
    partitions, failed = segments.unlisted(directory, table)
    for path in partitions:
        day = path.name.removeprefix("day=")
        if day < cutoff:
            reason = segments.remove_tree(path)
            if reason:
                failed.append(f"not dropping {path} past retention: {reason}")
                continue
            lock_path(path).unlink(missing_ok=True)
            dropped.append(day)
    if table == "records":
        rollups.drop_before(directory, cutoff, failed)
    if warnings is None:
        for warning in failed:
            log.warning("%s", warning)
    else:
        warnings.extend(failed)
    return dropped
