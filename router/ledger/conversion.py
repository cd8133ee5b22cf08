"""A ledger flush's new rows as Arrow tables (`router.ledger.schema`), one per table.

A row that cannot be converted to its column types (a token count beyond int64) is dropped
alone, and counted; a table whose conversion fails even row by row (a bug, no memory) is
dropped whole, and counted, and the flush's other tables are converted all the same. Each
is logged with its error, never with the value (`flush_errors.said`).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

import pyarrow as pa

from router.ledger.flush_errors import Raised, said, traced
from router.ledger.schema import records_table, rows_table, texts_table
from router.ledger.tally import with_text
from router.record import Record

log = logging.getLogger("smf_router.ledger.conversion")

_T = TypeVar("_T")


class Converter:
    """Converts each flush's rows; what it drops is added to the `dropped` it is given."""

    def __init__(self, store_text: bool, raised: Raised) -> None:
        self.store_text = store_text
        self._raised = raised  # the appender's: what each step raised, logged once

    def tables(
        self,
        records: Sequence[Record],
        rows: dict[str, list[dict[str, Any]]],
        dropped: Counter[str],
    ) -> list[tuple[str, pa.Table]]:
        """The new rows as Arrow, by table. The text row of a record that does not convert
        is lost with it, and counted in `dropped["texts"]`, as when the writer's full queue
        refuses the record: `texts` counts every text lost, made into a row or not. Records
        dropped whole (`_converted`) lost their texts uncounted, those dropped one by one
        too (found in review)."""
        tables: list[tuple[str, pa.Table]] = []
        if records:
            converted = self._converted("records", records, records_table, len, dropped)
            good = converted[0] if converted is not None else []
            if self.store_text:
                dropped["texts"] += with_text(records) - with_text(good)
            if converted is not None:
                tables.append(("records", converted[1]))
                if self.store_text:
                    texts = self._converted("texts", good, texts_table, with_text, dropped)
                    if texts is not None and texts[1].num_rows:
                        tables.append(("texts", texts[1]))
        for name, batch in rows.items():
            if batch:
                convert = partial(rows_table, name)
                table_rows = self._converted(name, batch, convert, len, dropped)
                if table_rows is not None:
                    tables.append((name, table_rows[1]))
        return tables

    def _converted(
        self,
        table: str,
        items: Sequence[_T],
        convert: Callable[[Sequence[_T]], pa.Table],
        rows: Callable[[Sequence[_T]], int],
        dropped: Counter[str],
    ) -> tuple[Sequence[_T], pa.Table] | None:
        """`_convert`, or None when it raises past its per-row fallback (a bug, no memory):
        the `rows(items)` rows are then dropped, counted and logged (once while flush after
        flush raises the same). Raised out of the flush, they were lost uncounted, and the
        flush's other tables' rows with them (found in review)."""
        try:
            converted = self._convert(table, items, convert, dropped)
        except BaseException as exc:
            lost = rows(items)
            dropped[table] += lost
            if self._raised.first_time(f"convert {table}", exc):
                # the error and where it was raised, never a row: a row may hold a caller's data
                log.error(
                    "ledger dropped %d %s rows it could not convert: %s",
                    lost,
                    table,
                    said(exc),
                    exc_info=traced(exc),
                )
            return None
        self._raised.passed(f"convert {table}")
        return converted

    def _convert(
        self,
        table: str,
        items: Sequence[_T],
        convert: Callable[[Sequence[_T]], pa.Table],
        dropped: Counter[str],
    ) -> tuple[Sequence[_T], pa.Table]:
        """`items` as Arrow, and the items that converted."""
        try:
            return items, convert(items)
        except Exception:
            return self._convert_each(table, items, convert, dropped)

    def _convert_each(
        self,
        table: str,
        items: Sequence[_T],
        convert: Callable[[Sequence[_T]], pa.Table],
        dropped: Counter[str],
    ) -> tuple[list[_T], pa.Table]:
        """One odd value (a token count beyond int64) must not lose the whole batch with it:
        convert one item at a time, and drop (and count) only those that fail."""
        good: list[_T] = []
        parts: list[pa.Table] = []
        errors: list[Exception] = []
        for item in items:
            try:
                parts.append(convert([item]))
            except Exception as exc:
                errors.append(exc)
            else:
                good.append(item)
        converted = pa.concat_tables(parts) if parts else convert([])
        if errors:  # counted once this returns: raised, every item is (`_converted`)
            dropped[table] += len(errors)
            # the error's type and message, never the row: a row may hold a caller's data
            log.error(
                "ledger dropped %d %s rows it could not convert: %s",
                len(errors),
                table,
                said(errors[0]),
            )
        return good, converted
