"""Reading the ledger: an in-memory DuckDB with one view per table over validated segments.

Readers never open a database file, so they never conflict with running writers (FACTS.md:
a DuckDB file open read-write locks out every other process). Files are checked by their
footer first; if a query still fails (a page corrupted inside, or a file merged away since
we listed), the views are rebuilt from a full decode of every file and the query retried;
not when the query itself or the values read fail it (a sum beyond int64): those repeat.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from router.ledger import rollups, segments
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


def _sql_list(paths: Sequence[str]) -> str:
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


class Ledger:
    """A read-only view of a ledger directory, optionally limited to a range of days.

    What it skipped is named in `warnings` and not logged here: a CLI prints them, the
    router's report endpoint logs them (a log line here as well printed each one twice on
    a terminal)."""

    def __init__(
        self, directory: Path, first_day: str | None = None, last_day: str | None = None
    ) -> None:
        self.directory = Path(directory)
        self.first_day = first_day
        self.last_day = last_day
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
        self._build(full=False)

    def _build(self, full: bool) -> None:
        """List and validate segments, then create views; re-list if files vanish meanwhile."""
        for attempt in range(RETRIES + 1):
            try:
                self._build_once(full)
                return
            except duckdb.IOException:  # a file merged away between listing and binding
                if attempt == RETRIES:
                    raise

    def _build_once(self, full: bool) -> None:
        self.warnings.clear()
        self.price_map_versions.clear()
        for table, schema in SCHEMAS.items():
            listing = segments.list_table(
                self.directory, table, self.first_day, self.last_day, full=full
            )
            self.warnings.extend(listing.warnings)
            for seg in listing.segments:
                if seg.price_map_version:
                    self.price_map_versions.update(seg.price_map_version.split(","))
            self.rows[table] = sum(s.rows for s in listing.segments)
            self.listings[table] = listing
            uniform = len({s.schema for s in listing.segments}) <= 1
            self._view(table, schema, listing.paths, uniform)
        if self._window:
            self._split_rollups(*self._window, full=full)

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
        open_paths: list[str] = []
        self.open_rows = 0
        for day, segs in by_day.items():
            start = datetime.fromisoformat(day)
            found = None
            if since <= start and start + timedelta(days=1) <= until:
                found = rollups.current(self.directory, day, segs, self.warnings, full)
            if found:
                sums.append(str(found[0]))
                latency.append(str(found[1]))
            else:
                open_paths.extend(str(s.path) for s in segs)
                self.open_rows += sum(s.rows for s in segs)
        self.rolled_up_days = len(sums)
        uniform = len({s.schema for s in self.listings["records"].segments}) <= 1
        self._view("records_open", SCHEMAS["records"], open_paths, uniform)
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

    def _view(self, table: str, schema: pa.Schema, paths: list[str], uniform: bool) -> None:
        """The view over `paths`, always with every column of today's `schema`: files written
        before a column was added read it as NULL instead of failing the query."""
        empty = f"_empty_{table}"
        self.con.register(empty, schema.empty_table())
        source = f"SELECT * FROM {empty}"
        if paths:
            # union_by_name and hive partitions cost ~2 ms a file: only pay when schemas differ
            union = "" if uniform else ", union_by_name = true"
            files = f"SELECT * FROM read_parquet({_sql_list(paths)}{union})"
            source = f"{source} UNION ALL BY NAME {files}"
        self.con.execute(f"CREATE OR REPLACE VIEW {table} AS {source}")

    def sql(self, query: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        """Run a query and fetch all rows, rebuilding the views from scratch on read errors."""
        for attempt in range(RETRIES + 1):
            try:
                return self.con.execute(query, params or []).fetchall()
            except duckdb.Error as exc:  # a file gone or damaged (some damage is a bare Error)
                if attempt == RETRIES or isinstance(exc, QUERY_ERRORS):
                    raise
                log.warning("ledger query failed (%s); re-validating segments", exc)
                self._build(full=True)
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
