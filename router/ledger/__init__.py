"""The usage ledger: records, canary results and shadow comparisons as Parquet segments."""

from router.ledger.query import Ledger
from router.ledger.schema import SCHEMAS
from router.ledger.usage import normalize_usage
from router.ledger.writer import LedgerWriter

__all__ = ["SCHEMAS", "Ledger", "LedgerWriter", "normalize_usage"]
