"""A closed day with one damaged segment: the router's hourly housekeeping must still merge
and roll up the rest of the day, name the damaged file once (not every hour), leave it as
it is, and keep every report over the day saying that its totals exclude it."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from router import report
from router.config import parse
from router.ledger import Ledger, checksum, compaction, segments
from router.maintenance import housekeep
from tests.harness import INTENTS
from tests.ledger.damaged_ledger import (
    DAY,
    HEALTHY,
    VICTIM,
    check_report,
    damage_file,
    day_with_victim,
    write,
)

OFFLINE = {  # one backend nobody calls: housekeeping needs only the ledger settings
    "backends": [
        {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    ],
    "routes": {intent: ["local"] for intent in INTENTS},
}


def _hour(config: Any, caplog: pytest.LogCaptureFixture) -> list[str]:
    """One housekeeping pass; the warnings it logged."""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="smf_router"):
        housekeep(config)
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def _rolled_up_days(ledger: Path) -> int:
    with Ledger(ledger) as reader:
        return reader.use_rollups(datetime(1970, 1, 1), datetime(9999, 1, 1))


@pytest.mark.parametrize("how", ["page", "footer"])
def test_a_damaged_segment_is_named_once_and_the_rest_of_its_day_is_rolled_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    ledger = tmp_path / "ledger"
    victim = day_with_victim(ledger)
    day = victim.parent
    original = victim.read_bytes()
    damage_file(victim, how)
    kept = {p: p.read_bytes() for p in (victim, checksum.sidecar(victim))}
    config = parse({**OFFLINE, "ledger": {"path": str(ledger)}})

    check_report(ledger, HEALTHY, damaged=victim.name)  # raw: the damaged file left out
    first = _hour(config, caplog)
    second = _hour(config, caplog)
    check_report(ledger, HEALTHY, damaged=victim.name)  # the same, from the rollup

    assert {p: p.read_bytes() for p in kept} == kept, "the damaged file is left as it was"
    assert len([w for w in first if victim.name in w]) == 1, first
    assert second == [], "named once, not every hour"
    assert _rolled_up_days(ledger) == 1, "the day's healthy records are rolled up"
    assert len(list(day.glob("*.parquet"))) == 2  # the merged healthy ones, and the victim

    victim.write_bytes(original)  # restored from a backup, in place: read again, once
    check_report(ledger, (*HEALTHY, VICTIM), damaged=None)
    assert _hour(config, caplog) == []
    check_report(ledger, (*HEALTHY, VICTIM), damaged=None)
    assert _rolled_up_days(ledger) == 1
    assert len(list(day.glob("*.parquet"))) == 1


def test_a_day_whose_only_segment_is_damaged_is_named_once(tmp_path: Path) -> None:
    """No merge to find it: the rollup does, once."""
    ledger = tmp_path / "ledger"
    write(ledger, *VICTIM)
    (victim,) = segments.day_dir(ledger, "records", DAY.date().isoformat()).glob("*.parquet")
    damage_file(victim, "page")
    later = DAY + timedelta(days=2)
    first = compaction.compact(ledger, now=later)
    assert [w for w in first.warnings if victim.name in w] == first.warnings
    assert len(first.warnings) == 1
    assert compaction.compact(ledger, now=later).warnings == []
    assert victim.exists()
    assert report.build(ledger)["totals"]["requests"] == 0
    assert victim.name in "\n".join(report.build(ledger)["warnings"])
