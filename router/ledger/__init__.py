"""The usage ledger: records, canary results and shadow comparisons as Parquet segments.

`Ledger` (the DuckDB reader) is imported on first use: a router that only writes never
pays for DuckDB. PyArrow, too, loads only where a module needs it: the writer's flush thread
imports it with the first row it writes, so it is not on the path from start to ready, and
a router that has written nothing has not loaded it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from router.ledger.usage import normalize_usage
from router.ledger.writer import LedgerWriter

if TYPE_CHECKING:
    from router.ledger.query import Ledger
    from router.ledger.schema import SCHEMAS

__all__ = ["SCHEMAS", "Ledger", "LedgerWriter", "normalize_usage"]


def __getattr__(name: str) -> Any:
    if name == "Ledger":
        from router.ledger.query import Ledger

        return Ledger
    if name == "SCHEMAS":
        from router.ledger.schema import SCHEMAS

        return SCHEMAS
    raise AttributeError(name)
