"""The rows, by table, that queued records and rows make, and such counts as the log says them.

What a flush took from the writer's queues, or what `close()` found left in them, is counted
by table when it is lost: a record with a text is a row of `texts` too when texts are stored,
as `texts_table` makes it. Free of PyArrow on purpose: the writer counts with it, and the
writer imports no PyArrow (`router.ledger.writer`).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from router.record import Record

# What one queued request record holds in memory, its texts aside: ~1.4 KiB of resident
# memory per request queued behind a hung write (a hung-volume probe of the running router;
# tracemalloc of a bare `Record` says ~0.63 KB, the rest is what the request leaves on it).
QUEUED_RECORD_BYTES = 1_400


def queued_bytes(item: Record | Mapping[str, Any]) -> int:
    """An estimate of the memory a queued record or row (canary, shadow) holds: the fixed
    `QUEUED_RECORD_BYTES` plus the size of each text it carries, which with `store_text`
    (a prompt, a completion) can be tens of KB: `sys.getsizeof`, since Python keeps a
    Chinese text at two bytes a character and one with an emoji at four (`len` counted a
    character as one byte: a bound of 256 MiB let 1 GiB queue, found in review). A cheap
    estimate, not a measure: `submit` runs on the request path."""
    if isinstance(item, Record):
        texts = (item.prompt_text, item.completion_text)
    else:
        texts = tuple(item.values())
    return QUEUED_RECORD_BYTES + sum(sys.getsizeof(t) for t in texts if isinstance(t, str))


def has_text(record: Record) -> bool:
    """Whether `record` makes a row of `texts` when texts are stored (`texts_table`)."""
    return record.prompt_text is not None or record.completion_text is not None


def with_text(records: Sequence[Record]) -> int:
    """The rows of `texts` that `records` make: those that carry a text."""
    return sum(1 for r in records if has_text(r))


def rows(
    records: Sequence[Record], other: Mapping[str, Sequence[Any]], store_text: bool
) -> Counter[str]:
    """The rows `records` and the other tables' `other` make, by table; none of a table
    with none. `texts` counts the records with a text if `store_text`."""
    counts = Counter({table: len(taken) for table, taken in other.items() if taken})
    if records:
        counts["records"] = len(records)
    texts = with_text(records) if store_text else 0
    if texts:
        counts["texts"] = texts
    return counts


def described(counts: Counter[str]) -> str:
    """`counts` as a log line says them: "1 canary_runs rows, 3 records rows"."""
    return ", ".join(f"{n} {table} rows" for table, n in sorted(counts.items()))
