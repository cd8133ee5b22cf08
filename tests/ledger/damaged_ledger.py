"""A closed day of records written through `LedgerWriter`, one segment per process tag, and
damage done to one of them as rot on disk would: shared by the tests of damaged segments."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from router import report
from router.ledger import LedgerWriter, compaction, segments
from router.record import Record, Usage

# Closed (ended more than the hour of grace ago) and well inside the default retention.
DAY = (datetime.now(UTC) - timedelta(days=3)).replace(hour=10, minute=0, second=0, microsecond=0)
# (process tag, records, prompt tokens each): one segment per tag, the last one damaged.
HEALTHY = (("a", 3, 100), ("b", 4, 10), ("c", 2, 1))
VICTIM = ("victim", 5, 1000)
ALL = (*HEALTHY, VICTIM)

# What a read of a healthy file can raise that says nothing about its bytes (out of memory,
# a network volume's I/O error), and one that looks like a decode error but is not one
# either (the file matches its checksum).
FAILURES = {
    "arrow-memory": pa.ArrowMemoryError("malloc of size 67108864 failed"),
    "memory": MemoryError(),
    "codec-memory": OSError("ZSTD decompression failed: Allocation error : not enough memory"),
    "eio": OSError(5, "Input/output error"),
    "decode": pa.ArrowInvalid("Couldn't deserialize thrift"),
}


def write(ledger: Path, tag: str, n: int, tokens: int) -> None:
    """`n` records of `tokens` prompt tokens each, in one segment named after `tag`."""
    writer = LedgerWriter(ledger, process_tag=tag)
    for i in range(n):
        writer.submit(
            Record(
                f"{tag}-{i}",
                DAY.timestamp() + i,
                route="coding",
                intent="coding",
                backend="local",
                tier="local",
                usage=Usage(tokens, 1),
                ttft_s=0.1,
                duration_s=1.0,
                cost_usd=0.01,
                counterfactual_usd=0.5,
            )
        )
    writer.close()  # one flush: one segment per tag


def day_dir(ledger: Path, table: str = "records") -> Path:
    return segments.day_dir(ledger, table, DAY.date().isoformat())


def write_parts(ledger: Path, parts: Any) -> Path:
    """Each of `parts` (tag, records, tokens each) as its own segment; returns the day's
    partition."""
    for tag, n, tokens in parts:
        write(ledger, tag, n, tokens)
    return day_dir(ledger)


def day_with_victim(ledger: Path) -> Path:
    """ALL written, one segment per tag; returns VICTIM's segment, not damaged yet."""
    (victim,) = write_parts(ledger, ALL).glob("victim-*.parquet")
    return victim


def damage_file(victim: Path, how: str = "page") -> None:
    """Flip bytes of its first data page (the footer still reads: only the checksum tells),
    or of its footer (no reader can open it); in place, as rot (same inode)."""
    raw = bytearray(victim.read_bytes())
    if how == "page":
        start = pq.read_metadata(victim).row_group(0).column(0).data_page_offset
        raw[start : start + 16] = bytes(b ^ 0xFF for b in raw[start : start + 16])
    else:
        raw[-40:-8] = b"\xff" * 32
    victim.write_bytes(bytes(raw))


def compact(ledger: Path) -> compaction.CompactionResult:
    """One compaction pass, two days after DAY: the day is closed."""
    return compaction.compact(ledger, now=DAY + timedelta(days=2))


def check_report(ledger: Path, parts: Any, damaged: str | None) -> None:
    """Exact totals of `parts` (tag, records, tokens each), and whether `damaged` is named."""
    expected = {
        "requests": sum(n for _, n, _ in parts),
        "prompt_tokens": sum(n * tokens for _, n, tokens in parts),
        "completion_tokens": sum(n for _, n, _ in parts),
    }
    data = report.build(ledger, since=DAY - timedelta(days=5))
    totals = {k: data["totals"][k] for k in expected}
    assert totals == expected, f"{totals} != {expected}"
    shares = [d["requests"] for d in data["local_share"]]
    # every day from DAY's to the report's (now), DAY's with all the requests, the rest quiet
    days = [d["day"] for d in data["local_share"]]
    assert (days[0], days[-1]) == (DAY.date().isoformat(), data["generated_at"][:10]), days
    assert shares == [expected["requests"]] + [0] * (len(days) - 1), shares
    named = [w for w in data["warnings"] if damaged and damaged in w]
    assert bool(named) == bool(damaged), data["warnings"]


def fail_once(
    monkeypatch: pytest.MonkeyPatch, victim: Path, exc: BaseException, where: str
) -> None:
    """The first read of `victim` by a merge (its rows) or by a listing (its footer) raises
    `exc`; later reads succeed."""
    name = "read_file" if where == "merge" else "read_segment"  # a merge reads rows by the first
    real = getattr(segments, name)
    failed: list[Path] = []

    def flaky(path: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(path) == victim and not failed:
            failed.append(victim)
            raise exc
        return real(path, *args, **kwargs)

    monkeypatch.setattr(segments, name, flaky)
