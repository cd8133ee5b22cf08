"""Days of bare records written one file per record, and the count a reader makes of them:
shared by the compaction, upkeep and permission tests, which need files to merge or keep."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from router.ledger import Ledger, LedgerWriter, segments
from router.record import Record


def write_day(directory: Path, day: datetime, n: int, tag: str, text: bool = False) -> Path:
    """`n` records of `day`, one file each (so the day has something to merge), their
    prompt text kept when `text`; returns the day's partition."""
    writer = LedgerWriter(directory, process_tag=tag, store_text=text)
    for i in range(n):
        writer.submit(Record(f"{tag}-{i}", day.timestamp() + i, prompt_text="p" if text else None))
        writer.flush()
    writer.close()
    return segments.day_dir(directory, "records", day.date().isoformat())


def count(directory: Path) -> int:
    """The records a reader counts: each once, however many files hold it."""
    with Ledger(directory) as ledger:
        return int(ledger.sql("SELECT count(*) FROM records")[0][0])
