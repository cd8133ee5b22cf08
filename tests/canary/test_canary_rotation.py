"""Where the rotation goes on, read from real ledger files: after the latest round however
old, within `RECALL_DAYS` and `retention_days`. It read yesterday and today only, and after a
longer gap (a router stopped over a weekend, rounds every few days, `canary run` by hand
weekly) every suite started at its first case again, repeating it in the gate windows."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from evals.endpoint import Endpoint
from evals.results import CaseResult
from evals.suite import Case
from router.canary import Canary
from router.canary_rotation import resume, rotating_sample
from router.config import parse
from router.gating import GateBook
from router.ledger import LedgerWriter
from router.ledger.recent import RECALL_DAYS, RecentRows
from tests.canary.rounds import one_round
from tests.harness import INTENTS
from tests.ledger.file_modes import unlistable

NOW = time.time()


def _case(suite: str, i: int) -> Case:
    return Case(f"{suite}-{i}", f"{suite} {i}", suite, "easy", f"q{i}", "exact_match")


CASES = [_case("math", i) for i in range(7)]


def write_round(ledger: Path, days_ago: float, cases: Sequence[str], run_id: str = "") -> None:
    """One round of `cases` on one backend, `days_ago` days back, through the writer; each
    case's suite is its id's prefix."""
    writer = LedgerWriter(ledger, flush_interval_s=60)
    ts = NOW - days_ago * 86400
    summary = {"run_id": run_id or f"r{days_ago}", "ts": ts, "backend": "local"}
    suites = ",".join(sorted({case.split("-")[0] for case in cases}))
    writer.submit_row("canary_runs", summary | {"cases": len(cases), "suites": suites})
    for case in cases:
        row = {"suite": case.split("-")[0], "case_id": case, "status": "pass"}
        writer.submit_row("canary_results", summary | row)
    writer.close()


def ago(days: float) -> str:
    return (datetime.fromtimestamp(NOW, UTC) - timedelta(days=days)).date().isoformat()


def spy_days(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The first day of each `RecentRows.read`, from now on."""
    read = RecentRows.read
    days: list[str] = []

    def spied(
        self: RecentRows, first_day: str, last_day: str | None = None, now: float | None = None
    ) -> Any:
        days.append(first_day)
        return read(self, first_day, last_day, now)

    monkeypatch.setattr(RecentRows, "read", spied)
    return days


def first_sample(ledger: Path, retention_days: int = 730) -> list[str]:
    """The cases the first round of a canary given `ledger` runs (3 per suite)."""
    asked: list[str] = []

    async def runner(cases: Sequence[Case], endpoint: Endpoint, *a: Any, **k: Any) -> Any:
        asked.extend(case.id for case in cases)
        return [CaseResult(c.id, c.suite, c.difficulty, "pass") for c in cases]  # type: ignore[arg-type]

    backend = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    ledger_settings = {"path": str(ledger), "retention_days": retention_days}
    routes = {intent: ["local"] for intent in INTENTS}
    canary = {"sample_per_suite": 3}
    config = parse(
        {"backends": [backend], "routes": routes, "ledger": ledger_settings, "canary": canary}
    )
    one_round(Canary(config, CASES, GateBook({}), runner=runner, history=ledger))
    return asked


def test_a_round_five_days_old_is_where_the_next_one_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing since a round five days ago (a stopped weekend and more): the first cases
    were run again. Only the days on disk are read, newest first, up to that round's."""
    write_round(tmp_path, 9, ["math-3", "math-4", "math-5"])
    write_round(tmp_path, 5, ["math-0", "math-1", "math-2"])
    read = spy_days(monkeypatch)
    assert resume(tmp_path, CASES, NOW, 730) == {"math": 3}
    assert read == [ago(5)]  # not the empty days since, nor the older round's
    assert first_sample(tmp_path) == ["math-3", "math-4", "math-5"]


def test_a_recent_round_costs_todays_files_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_round(tmp_path, 5, ["math-0", "math-1", "math-2"])
    write_round(tmp_path, 0, ["math-3", "math-4", "math-5"])
    read = spy_days(monkeypatch)
    assert resume(tmp_path, CASES, NOW, 730) == {"math": 6}
    assert read == [ago(0)]


def test_the_walk_goes_back_recall_days_at_most(tmp_path: Path) -> None:
    """As the gates' recall: `RECALL_DAYS` back, not the 730 days the ledger keeps."""
    write_round(tmp_path / "within", RECALL_DAYS - 2, ["math-0", "math-1", "math-2"])
    write_round(tmp_path / "past", RECALL_DAYS + 10, ["math-0", "math-1", "math-2"])
    assert resume(tmp_path / "within", CASES, NOW, 730) == {"math": 3}
    assert resume(tmp_path / "past", CASES, NOW, 730) == {}
    assert first_sample(tmp_path / "past") == ["math-0", "math-1", "math-2"]


def test_a_round_older_than_retention_days_is_ignored(tmp_path: Path) -> None:
    """Compaction drops those days: where the rotation stands must not depend on whether it
    has yet. The canary reads `retention_days` from its config."""
    write_round(tmp_path, 5, ["math-0", "math-1", "math-2"])
    assert resume(tmp_path, CASES, NOW, 6) == {"math": 3}
    assert resume(tmp_path, CASES, NOW, 4) == {}
    assert first_sample(tmp_path, retention_days=6) == ["math-3", "math-4", "math-5"]
    assert first_sample(tmp_path, retention_days=4) == ["math-0", "math-1", "math-2"]


def test_an_empty_ledger_starts_at_the_first_case(tmp_path: Path) -> None:
    assert resume(tmp_path / "none", CASES, NOW, 730) == {}


def test_a_round_stamped_in_the_future_does_not_stop_the_rotation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer's clock two days ahead, then stepped back: its round was the latest, and
    every round since (a CronJob's, every 15 minutes) ran the same sample after it, until
    the clock caught up. Its day is not read, nor a row later than now by over a minute."""
    write_round(tmp_path, -2, ["math-0", "math-1", "math-2"], "ahead")
    read = spy_days(monkeypatch)
    samples = []
    for i in range(3):
        now = NOW + i * 900
        sample = rotating_sample(CASES, 3, resume(tmp_path, CASES, now, 730))
        samples.append([case.id for case in sample])
        write_round(tmp_path, -i * 900 / 86400, samples[-1], f"round{i}")
    assert samples == [
        ["math-0", "math-1", "math-2"],
        ["math-3", "math-4", "math-5"],
        ["math-6", "math-0", "math-1"],
    ]
    assert ago(-2) not in read

    behind = tmp_path / "behind"
    write_round(behind, 1, ["math-0", "math-1", "math-2"], "yesterday")
    write_round(behind, -600 / 86400, ["math-3", "math-4", "math-5"], "ten minutes ahead")
    assert resume(behind, CASES, NOW, 730) == {"math": 3}
    write_round(behind, -30 / 86400, ["math-1", "math-2", "math-3"], "within the skew")
    assert resume(behind, CASES, NOW, 730) == {"math": 4}


def test_a_results_table_it_may_not_list_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`canary_results/` another account's (0700): the rotation started over without a word,
    where a read of it logs why."""
    write_round(tmp_path, 0, ["math-0", "math-1", "math-2"])
    folder = tmp_path / "canary_results"
    with unlistable(folder), caplog.at_level(logging.WARNING, logger="smf_router.ledger.recent"):
        assert resume(tmp_path, CASES, NOW, 730) == {}
    named = [r.getMessage() for r in caplog.records if str(folder) in r.getMessage()]
    assert named == [f"canary_results: skipped unreadable {folder}: Permission denied"]


def test_a_stray_directory_is_logged_once_however_many_days_are_walked(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A `day=….bak` someone kept was logged again by each day's read of a walk back (up to
    31 times a start); the damaged files the walk passes are each named once."""
    write_round(tmp_path, 5, ["math-0", "math-1", "math-2"])
    for days in range(4):
        write_round(tmp_path, days, ["math-3", "math-4", "math-5"], f"damaged{days}")
        for file in (tmp_path / "canary_results" / f"day={ago(days)}").glob("*.parquet"):
            file.write_bytes(b"not parquet")
    stray = tmp_path / "canary_results" / "day=2026-01-01.bak"
    stray.mkdir()
    with caplog.at_level(logging.WARNING, logger="smf_router.ledger.recent"):
        assert resume(tmp_path, CASES, NOW, 730) == {"math": 3}
    logged = [r.getMessage() for r in caplog.records]
    assert [m for m in logged if str(stray) in m] == [
        f"canary_results: ignored {stray}: not a day partition (day=YYYY-MM-DD)"
    ]
    assert len([m for m in logged if "skipped unreadable segment" in m]) == 4


def test_what_a_one_off_read_logged_is_logged_again_once_gone_and_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A one-off read's warnings count as said, for the reads of the latest days too (as
    the follower's recall reads them: latest days, then older ones, then latest each
    minute); what those reads no longer list is said again when back."""
    write_round(tmp_path, 0, ["math-0"])
    stray = tmp_path / "canary_results" / "day=2026-01-01.bak"
    stray.mkdir()
    results = RecentRows(tmp_path, "canary_results")

    def said() -> int:
        return len([r for r in caplog.records if str(stray) in r.getMessage()])

    with caplog.at_level(logging.WARNING, logger="smf_router.ledger.recent"):
        assert len(results.read(ago(0), ago(0))) == 1  # a one-off
        assert len(results.read(ago(1))) == len(results.read(ago(1), ago(0))) == 1
        assert said() == 1
        stray.rmdir()
        results.read(ago(1))
        stray.mkdir()
        results.read(ago(1))
        assert said() == 2


def test_each_suite_goes_on_after_its_own_latest_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk stopped at the newest day holding any row: a `canary run --config` of some
    suites, or of suites no longer configured, on the same ledger sent every other suite
    back to its first case. It goes on until each suite has rows, and no further."""
    cases = CASES + [_case("code", i) for i in range(5)]
    write_round(tmp_path, 9, ["math-0", "math-1", "math-2", "code-0", "code-1"])
    write_round(tmp_path, 5, ["math-3", "math-4", "math-5", "code-2", "code-3"])
    write_round(tmp_path, 2, ["math-6", "math-0", "math-1"], "math alone")
    write_round(tmp_path, 1, ["retired-0", "retired-1"], "a suite no longer configured")
    read = spy_days(monkeypatch)
    assert resume(tmp_path, cases, NOW, 730) == {"math": 2, "code": 4}
    assert read == [ago(1), ago(2), ago(5)]
    write_round(tmp_path, 0, ["retired-2"], "again")
    assert resume(tmp_path, CASES, NOW, 730) == {"math": 2}


def test_a_suite_no_round_ran_costs_one_pass_over_the_days_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One just added: the walk goes to the bound looking for it, but in the one pass that
    resolves every suite (each day on disk read once, newest first, no empty day), and the
    other suites go on where they would without it. Its first round writes its rows: the
    next start finds it on today's files."""
    write_round(tmp_path, 9, ["math-0", "math-1", "math-2"])
    write_round(tmp_path, 2, ["math-3", "math-4", "math-5"])
    cases = CASES + [_case("new", i) for i in range(4)]
    read = spy_days(monkeypatch)
    assert resume(tmp_path, cases, NOW, 730) == resume(tmp_path, CASES, NOW, 730) == {"math": 6}
    assert read == [ago(2), ago(9), ago(2)]  # the pass with `new`, then the one without it
    write_round(tmp_path, 0, ["math-6", "math-0", "math-1", "new-0", "new-1", "new-2"])
    read.clear()
    assert resume(tmp_path, cases, NOW, 730) == {"math": 2, "new": 3}
    assert read == [ago(0)]
