"""Reading the ledger: an in-memory DuckDB with one view per table over validated segments.

Readers never open a database file, so they never conflict with running writers (FACTS.md:
a DuckDB file open read-write locks out every other process). Files are listed by their
footer; a file's checksum is checked before the first query that names a view over it, so
only the rows a reader scans cost a read of their bytes (a report over a year of rollups
reads today's segments, not the year's). A file merged away between the listing and its
read (a compaction running) makes the reader list again, as long as each failure names a
file the fresh listing no longer holds, a few times at most: then it raises `Busy`. If a
query fails otherwise (a page corrupted inside), the views are rebuilt from a full decode
of every file and the query retried; not when the query itself or the values read fail it
(a sum beyond int64): those repeat.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from router.ledger import checksum, rollups, segments
from router.ledger.schema import SCHEMAS

log = logging.getLogger("smf_router.ledger.query")

RETRIES = 2
# Errors in the values read (a sum beyond int64), deterministic: re-reading cannot help.
DATA_ERRORS = (duckdb.ConversionException, duckdb.OutOfRangeException)
# Errors in the query itself or in those values: re-decoding every file would only repeat
# them (twice, at the cost of a full decode of the whole window each time).
QUERY_ERRORS = (
    duckdb.BinderException,
    duckdb.ParserException,
    duckdb.CatalogException,
    *DATA_ERRORS,
)
MEMORY_LIMIT = "512MB"
WORD = re.compile(r"\w+")  # a query's words, of which the views it names
# How DuckDB names a listed file that is gone when a view is bound or read (2.0).
GONE = re.compile(r'(?:No files found that match the pattern|Cannot open file) "([^"]+)"')
# Listings in a row that a merge may overtake: one pass of `compact` over a backlog merges
# day after day, each a new failure of the listing made meanwhile.
LISTINGS = 8


class Busy(Exception):
    """Files kept being merged away between listing and reading them: no consistent view
    of the ledger could be made while a compaction runs. Trying again later succeeds."""


def _busy(gone: Path) -> Busy:
    return Busy(
        f"its files kept being merged away while read, the last {gone} "
        "(a compaction running?): try again"
    )


def _sql_list(paths: Sequence[str]) -> str:
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


class Ledger:
    """A read-only view of a ledger directory, optionally limited to a range of days and to
    some `tables` (a query naming another one fails: no view was made for it).

    What it skipped is named in `warnings` and not logged here: a CLI prints them, the
    router's report endpoint logs them (a log line here as well printed each one twice on
    a terminal)."""

    def __init__(
        self,
        directory: Path,
        first_day: str | None = None,
        last_day: str | None = None,
        tables: Sequence[str] | None = None,
    ) -> None:
        self.directory = Path(directory)
        self.first_day = first_day
        self.last_day = last_day
        self.tables = tuple(SCHEMAS) if tables is None else tuple(tables)
        self.con = duckdb.connect(":memory:")
        self.con.execute("SET TimeZone = 'UTC'")
        # Reports aggregate into small tables: bound DuckDB's buffers (the 1 GB report target).
        self.con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
        self.con.execute("SET enable_progress_bar = false")  # it would corrupt JSON on stdout
        self.warnings: list[str] = []  # files skipped and why: the caller shows them
        self.price_map_versions: set[str] = set()
        self.rows: dict[str, int] = {}
        self.listings: dict[str, segments.Listing] = {}
        self._window: tuple[datetime, datetime] | None = None
        self.rolled_up_days = 0
        self.open_rows = 0
        # Each view's schema and files; a file's checksum is checked before a query names it.
        self._views: dict[str, tuple[pa.Schema, list[segments.Segment]]] = {}
        self._checked: set[Path] = set()  # matched their checksum (in this reader's lifetime)
        self._damaged: dict[Path, str] = {}  # did not: left out of every view, and why
        self._build(full=False)

    def _build(self, full: bool) -> None:
        """List and validate segments, then create views; list again while files listed
        are merged away before the views are bound, at most `LISTINGS` times in all."""
        for attempt in range(LISTINGS):
            try:
                self._build_once(full)
                return
            except duckdb.IOException as exc:
                gone = self._merged_away(exc)
                if gone is None:
                    raise
                if attempt == LISTINGS - 1:
                    raise _busy(gone) from None
                log.info("%s was merged away since listed; listing again", gone)

    def _merged_away(self, exc: duckdb.Error) -> Path | None:
        """The file `exc` says is missing, if a fresh listing of its day no longer holds it
        (merged away, or its day dropped): re-listing makes progress. None for any other
        error, or a file still listed, which listing again would only repeat."""
        found = GONE.search(str(exc))
        if not found:
            return None
        path = Path(found[1])
        try:
            listed = {s.path for s in segments.list_day(path.parent).segments}
        except FileNotFoundError:  # the whole day dropped by retention
            return path
        return None if path in listed else path

    def _build_once(self, full: bool) -> None:
        self.warnings.clear()
        self.price_map_versions.clear()
        for table in self.tables:
            listing = segments.list_table(
                self.directory, table, self.first_day, self.last_day, full=full
            )
            self.warnings.extend(listing.warnings)
            for seg in listing.segments:
                if seg.price_map_version:
                    self.price_map_versions.update(seg.price_map_version.split(","))
            self.rows[table] = sum(s.rows for s in listing.segments)
            self.listings[table] = listing
            self._view(table, SCHEMAS[table], listing.segments)
        self.warnings.extend(self._damaged.values())
        if self._window:
            self._split_rollups(*self._window, full=full)

    @property
    def skipped(self) -> int:
        """How many files (and directories, whole) of its tables were left out though they
        may hold rows: unreadable, damaged or not listable (`segments.Listing.skipped`), or
        failing their checksum when queried. Its `warnings` say more: also a directory that
        is no day partition, which holds none of the ledger's rows."""
        listed = set().union(*(listing.skipped for listing in self.listings.values()))
        return len(listed | self._damaged.keys())

    def use_rollups(self, since: datetime, until: datetime) -> int:
        """Read closed days inside [since, until) from their rollups; returns how many.

        Creates the views `records_open` (records of every other day), `rollup_sums` and
        `rollup_latency` (see router.ledger.rollups), used by the report's aggregate.
        """
        self._window = (since, until)
        try:
            self._split_rollups(since, until)
        except duckdb.IOException:  # a file merged away since the listing: list again
            self._build(full=False)  # (it splits with the window set, and retries itself)
        return self.rolled_up_days

    def _split_rollups(self, since: datetime, until: datetime, full: bool = False) -> None:
        by_day: dict[str, list[segments.Segment]] = {}
        for seg in self.listings["records"].segments:
            by_day.setdefault(seg.day, []).append(seg)
        sums: list[str] = []
        latency: list[str] = []
        open_segments: list[segments.Segment] = []
        for day, segs in by_day.items():
            start = datetime.fromisoformat(day)
            found = None
            if since <= start and start + timedelta(days=1) <= until:
                found = rollups.current(self.directory, day, segs, self.warnings, full)
            if found:
                sums.append(str(found[0]))
                latency.append(str(found[1]))
            else:
                open_segments.extend(segs)
        self.rolled_up_days = len(sums)
        self._view("records_open", SCHEMAS["records"], open_segments)
        self.open_rows = sum(s.rows for s in self._views["records_open"][1])
        # Both views always exist, empty when no day is rolled up: a query written before a
        # retry re-listed the files must still find them, and fresh ones (never old files).
        window = [since, until]
        for name, paths, sql, params in (
            (
                "rollup_sums",
                sums,
                rollups.SUMS_SQL.format(source="_empty_records", caller="caller"),
                window,
            ),
            (
                "rollup_latency",
                latency,
                rollups.LATENCY_SQL.format(source="_empty_records"),
                window * 2,
            ),
        ):
            if paths:
                source = f"read_parquet({_sql_list(paths)}, hive_partitioning = false)"
            else:
                self.con.register(
                    f"_empty_{name}", self.con.sql(sql, params=params).to_arrow_table()
                )
                source = f"_empty_{name}"
            self.con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM {source}")

    def _view(self, name: str, schema: pa.Schema, files: Sequence[segments.Segment]) -> None:
        """The view over `files` but damaged ones, always with every column of today's
        `schema`: files written before a column was added read it as NULL instead of failing
        the query."""
        kept = [s for s in files if s.path not in self._damaged]
        self._views[name] = (schema, kept)
        empty = f"_empty_{name}"
        self.con.register(empty, schema.empty_table())
        source = f"SELECT * FROM {empty}"
        if kept:
            # union_by_name and hive partitions cost ~2 ms a file: only pay when schemas differ
            union = "" if len({s.schema for s in kept}) <= 1 else ", union_by_name = true"
            paths = [str(s.path) for s in kept]
            files_sql = f"SELECT * FROM read_parquet({_sql_list(paths)}{union})"
            source = f"{source} UNION ALL BY NAME {files_sql}"
        self.con.execute(f"CREATE OR REPLACE VIEW {name} AS {source}")

    def _check(self, query: str) -> None:
        """Check the checksum of each file of the views `query` names (once per file), and
        make the views again without the damaged ones before it runs. A query reaches a
        view's rows only by naming it, or a table an earlier query built from it (and was
        checked for): naming one in passing only checks more than needed."""
        named = set(WORD.findall(query.lower())) & self._views.keys()
        damaged = False
        for name in sorted(named):
            for seg in self._views[name][1]:
                if seg.path in self._checked:
                    continue
                try:
                    checksum.verify(seg.path)
                except FileNotFoundError:
                    continue  # merged away since listed: the query fails, and lists again
                except (OSError, checksum.Mismatch) as exc:
                    self._damaged[seg.path] = f"skipped unreadable segment {seg.path}: {exc}"
                    self.warnings.append(self._damaged[seg.path])
                    damaged = True
                else:
                    self._checked.add(seg.path)
        if damaged:
            for name, (schema, files) in list(self._views.items()):
                self._view(name, schema, files)

    def sql(self, query: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        """Run a query and fetch all rows, checking the checksums of the files it reads
        first, and rebuilding the views from scratch on read errors."""
        for attempt in range(RETRIES + 1):
            try:
                self._check(query)
                return self.con.execute(query, params or []).fetchall()
            except duckdb.Error as exc:  # a file gone or damaged (some damage is a bare Error)
                if isinstance(exc, QUERY_ERRORS):
                    raise
                gone = self._merged_away(exc)
                if attempt == RETRIES:
                    if gone:
                        raise _busy(gone) from None
                    raise
                if gone:  # nothing is damaged: a fresh listing will do
                    log.info("%s was merged away since listed; listing again", gone)
                    self._build(full=False)
                    continue
                log.warning("ledger query failed (%s); re-validating segments", exc)
                self._build(full=True)
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
