"""Per-day rollups: the report gives the same numbers from them as from raw records, and
never uses one that no longer matches its day's segments."""

from __future__ import annotations

import math
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from router import report
from router.ledger import Ledger, LedgerWriter, compaction, rollups, segments
from router.record import Attempt, Record, Usage
from tests.ledger.known_ledger import DAY1, known_config, write_known_ledger
from tests.processes import smf_router

NOW = datetime(2026, 3, 10, tzinfo=UTC)
# A ledger rolled up by the router of rollup format 5 (tests/fixtures/ledger-rollup-v5.md)
FORMAT_5 = Path(__file__).resolve().parents[1] / "fixtures" / "ledger-rollup-v5"
ALL = (datetime(1970, 1, 1), datetime(9999, 1, 1))


def comparable(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "generated_at"}


def rolled_up_days(directory: Path, since: datetime = ALL[0], until: datetime = ALL[1]) -> int:
    with Ledger(directory) as ledger:
        return ledger.use_rollups(since, until)


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    return write_known_ledger(tmp_path / "ledger")


@pytest.mark.parametrize("by", ["route", "caller", "day", "backend"])
def test_report_from_rollups_equals_report_from_records(ledger: Path, by: report.By) -> None:
    raw = report.build(ledger, by=by, config=known_config(), now=NOW)
    assert rolled_up_days(ledger) == 0
    assert compaction.compact(ledger, now=NOW).rollups == 2
    assert rolled_up_days(ledger) == 2
    assert comparable(report.build(ledger, by=by, config=known_config(), now=NOW)) == comparable(
        raw
    )
    assert compaction.compact(ledger, now=NOW).rollups == 0  # current ones are kept


def test_a_late_record_makes_its_day_read_raw_again(ledger: Path) -> None:
    compaction.compact(ledger, now=NOW)
    late = LedgerWriter(ledger, process_tag="late")
    late.submit(Record("late", DAY1 + 3600, route="coding", backend="local", tier="local"))
    late.close()
    assert rolled_up_days(ledger) == 1
    assert report.build(ledger)["totals"]["requests"] == 5
    assert compaction.compact(ledger, now=NOW).rollups == 1  # merged, and rolled up again
    assert rolled_up_days(ledger) == 2
    assert report.build(ledger)["totals"]["requests"] == 5
    rolled = segments.day_dir(ledger, rollups.TABLE, "2026-03-01")
    assert len(list(rolled.iterdir())) == 4  # sums and latency, and their checksums


@pytest.mark.parametrize("damage", ["torn", "empty"])
def test_an_unreadable_rollup_is_named_read_around_and_rewritten(ledger: Path, damage: str) -> None:
    raw = report.build(ledger, config=known_config(), now=NOW)
    compaction.compact(ledger, now=NOW)
    sums = next((ledger / rollups.TABLE).rglob("*.sums.parquet"))
    sums.write_bytes(sums.read_bytes()[:-20] if damage == "torn" else b"")
    damaged = report.build(ledger, config=known_config(), now=NOW)
    assert damaged["totals"] == raw["totals"]
    assert any(str(sums) in warning for warning in damaged["warnings"])
    assert rolled_up_days(ledger) == 1
    assert compaction.compact(ledger, now=NOW).rollups == 1  # written again
    assert rolled_up_days(ledger) == 2
    assert comparable(report.build(ledger, config=known_config(), now=NOW)) == comparable(raw)


def test_days_partly_inside_the_window_are_read_raw(ledger: Path) -> None:
    compaction.compact(ledger, now=NOW)
    since = datetime(2026, 3, 1, 10, 0, 30)  # between a (10:00) and b (10:01) of day 1
    assert rolled_up_days(ledger, since=since) == 1
    data = report.build(ledger, since=since.replace(tzinfo=UTC))
    assert data["totals"]["requests"] == 3


def test_open_days_get_no_rollup(ledger: Path) -> None:
    assert compaction.compact(ledger, now=datetime(2026, 3, 2, 12, tzinfo=UTC)).rollups == 1


def test_histogram_percentiles_are_within_a_percent(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exact = {x["backend"]: x for x in report.build(ledger)["latency"]}
    monkeypatch.setattr(report, "EXACT_MAX", 0)  # as if the ledger were big
    for _ in range(2):  # from raw records, then from rollups
        approx = {x["backend"]: x for x in report.build(ledger)["latency"]}
        assert approx.keys() == exact.keys()
        for backend, want in exact.items():
            got = approx[backend]
            assert got["requests"] == want["requests"]
            for metric in ("ttft_s", "total_s"):
                for q in ("p50", "p99"):
                    value = want[metric][q]
                    assert value is not None
                    assert got[metric][q] == pytest.approx(value, rel=0.01), (backend, metric, q)
        compaction.compact(ledger, now=NOW)


def test_percentiles_of_a_histogram() -> None:
    values = [0.0, 0.1, 0.2, 0.3, 1.0]
    hist: dict[int, float] = {}
    for v in values:
        b = rollups.ZERO_BUCKET if v <= 0 else math.floor(math.log(v) * rollups.BUCKETS_PER_E)
        hist[b] = hist.get(b, 0) + 1
    p = rollups.percentiles(hist.items(), (0.0, 0.5, 1.0))
    assert p[0] == 0.0
    assert p[1] == pytest.approx(0.2, rel=0.01)
    assert p[2] == pytest.approx(1.0, rel=0.01)
    assert rollups.percentiles([], (0.5,)) == [None]


def test_retention_drops_rollups_with_their_days(tmp_path: Path) -> None:
    writer = LedgerWriter(tmp_path, process_tag="r")
    for back in (5, 40):
        when = (NOW - timedelta(days=back)).timestamp()
        writer.submit(Record(f"r{back}", when, attempts=[Attempt("x", "local")], usage=Usage(1, 1)))
    writer.close()
    assert compaction.compact(tmp_path, now=NOW).rollups == 2
    compaction.apply_retention(tmp_path, "records", 30, now=NOW)
    days = [p.name for p in segments.day_dirs(tmp_path, rollups.TABLE)]
    assert days == [f"day={(NOW - timedelta(days=5)).date()}"]


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((directory / rollups.TABLE).rglob("*.*"))}


def test_a_newer_router_s_rollup_is_left_alone(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older compaction (a CronJob not yet upgraded) rewrote a newer router's rollups,
    which rewrote them back, every pass (found in review). It leaves them alone and reads
    those days raw; a rollup of an older format is still replaced."""
    raw = report.build(ledger, config=known_config(), now=NOW)
    newer = str(int(rollups.VERSION) + 1)
    with monkeypatch.context() as m:
        m.setattr(rollups, "VERSION", newer)
        assert compaction.compact(ledger, now=NOW).rollups == 2
    written = _files(ledger)
    assert compaction.compact(ledger, now=NOW).rollups == 0
    assert _files(ledger) == written  # untouched, none of this version's added
    assert rolled_up_days(ledger) == 0  # not this version's: read raw, the same numbers
    assert comparable(report.build(ledger, config=known_config(), now=NOW)) == comparable(raw)
    with monkeypatch.context() as m:
        m.setattr(rollups, "VERSION", str(int(rollups.VERSION) - 1))
        compaction.compact(ledger, now=NOW)  # an older router's: it leaves the newer too
    assert _files(ledger) == written


def test_an_older_rollup_is_replaced(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:
        m.setattr(rollups, "VERSION", str(int(rollups.VERSION) - 1))
        assert compaction.compact(ledger, now=NOW).rollups == 2
    older = _files(ledger)
    assert compaction.compact(ledger, now=NOW).rollups == 2
    assert rolled_up_days(ledger) == 2 and not set(older) & set(_files(ledger))


def test_compact_says_it_rebuilt_the_rollups_of_an_older_format(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an upgrade (a new rollup format) `ledger compact` rebuilt every closed day's
    rollup and said "compacted 0 day(s)", as for nothing done (found in review). A rollup
    written again because its day's files changed is no rebuild of an older format."""
    with monkeypatch.context() as m:
        m.setattr(rollups, "VERSION", str(int(rollups.VERSION) - 1))
        assert compaction.compact(ledger, now=NOW).rollups == 2
    upgraded = smf_router("ledger", "compact", "--ledger", str(ledger))
    assert upgraded.returncode == 0, upgraded.stderr
    assert upgraded.stdout == (
        "compacted 0 day(s): 0 files → 0; rolled up 2 day(s) (2 rebuilt from an older"
        " rollup format); dropped 0 day partition(s)\n"
    )
    assert rolled_up_days(ledger) == 2
    late = LedgerWriter(ledger, process_tag="late")
    late.submit(Record("late", DAY1 + 3600, route="coding", backend="local", tier="local"))
    late.close()
    merged = smf_router("ledger", "compact", "--ledger", str(ledger))
    assert merged.stdout == (
        "compacted 1 day(s): 2 files → 1; rolled up 1 day(s); dropped 0 day partition(s)\n"
    )
    again = smf_router("ledger", "compact", "--ledger", str(ledger))
    assert again.stdout.startswith("compacted 0 day(s): 0 files → 0; rolled up 0 day(s);")


def test_unserved_estimates_read_the_same_from_a_rollup(tmp_path: Path) -> None:
    """A request no backend served carries only the router's estimate (what its attempt read
    and held): `unserved_tokens`, in no token column, from raw records and rollups alike."""
    writer = LedgerWriter(tmp_path, process_tag="t")
    served = Record("s", DAY1, route="coding", backend="local", tier="local", usage=Usage(100, 20))
    failed = Record("u", DAY1 + 60, route="coding", outcome="upstream_error", status=502)
    failed.usage = Usage(30, 40, estimated=True)
    for record in (served, failed):
        writer.submit(record)
    writer.close()
    raw = report.build(tmp_path)["totals"]
    assert (raw["unserved_requests"], raw["unserved_tokens"]) == (1, 70)
    assert (raw["prompt_tokens"], raw["completion_tokens"], raw["estimated_tokens"]) == (100, 20, 0)
    assert compaction.compact(tmp_path, now=NOW).rollups == 1
    assert rolled_up_days(tmp_path) == 1
    assert report.build(tmp_path)["totals"] == raw


def test_a_rollup_the_previous_format_wrote_is_read_raw_until_rebuilt(tmp_path: Path) -> None:
    """Format 6 added `uncredited`. A day that the router before it rolled up has no such
    column: taken as current, the report failed (`Binder Error: ... "uncredited"`). The tests
    that set VERSION back wrote the new columns under the old number, and passed with
    VERSION put back to 5 (found in review). The day is read raw, the same report as from a
    fresh compaction's rollup, which rebuilds it."""
    (sums,) = (FORMAT_5 / "rollups").rglob("*.sums.parquet")
    assert (pq.read_metadata(sums).metadata or {})[rollups.VERSION_KEY] == b"5"
    assert "uncredited" not in pq.read_schema(sums).names  # as that router wrote it
    ledger = tmp_path / "ledger"
    shutil.copytree(FORMAT_5, ledger)
    assert rolled_up_days(ledger) == 0
    since = datetime(2026, 3, 1, tzinfo=UTC)
    raw = report.build(ledger, since=since, now=NOW)
    totals = raw["totals"]
    assert (totals["requests"], totals["uncredited_local_requests"]) == (5, 2)
    assert totals["offloaded_usd"] == pytest.approx(0.35 - 0.04)
    assert compaction.compact(ledger, now=NOW).rollups_upgraded == 1
    assert rolled_up_days(ledger) == 1
    assert comparable(report.build(ledger, since=since, now=NOW)) == comparable(raw)
