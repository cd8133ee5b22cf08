"""Where the rotation goes on, read from real ledger files: after the latest round however
old, within `RECALL_DAYS` and `retention_days`. It read yesterday and today only, and after a
longer gap (a router stopped over a weekend, rounds every few days, `canary run` by hand
weekly) every suite started at its first case again, repeating it in the gate windows."""

from __future__ import annotations

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
from router.canary_rotation import resume
from router.config import parse
from router.gating import GateBook
from router.ledger import LedgerWriter
from router.ledger.recent import RECALL_DAYS, RecentRows
from tests.canary.rounds import one_round
from tests.harness import INTENTS

NOW = time.time()


def _case(suite: str, i: int) -> Case:
    return Case(f"{suite}-{i}", f"{suite} {i}", suite, "easy", f"q{i}", "exact_match")


CASES = [_case("math", i) for i in range(7)]


def write_round(ledger: Path, days_ago: float, cases: Sequence[str]) -> None:
    """One round of `cases` on one backend, `days_ago` days back, through the writer."""
    writer = LedgerWriter(ledger, flush_interval_s=60)
    summary = {"run_id": f"r{days_ago}", "ts": NOW - days_ago * 86400, "backend": "local"}
    writer.submit_row("canary_runs", summary | {"cases": len(cases), "suites": "math"})
    for case in cases:
        row = {"suite": "math", "case_id": case, "status": "pass"}
        writer.submit_row("canary_results", summary | row)
    writer.close()


def ago(days: float) -> str:
    return (datetime.fromtimestamp(NOW, UTC) - timedelta(days=days)).date().isoformat()


def spy_days(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The first day of each `RecentRows.read`, from now on."""
    read = RecentRows.read
    days: list[str] = []

    def spied(self: RecentRows, first_day: str, last_day: str | None = None) -> Any:
        days.append(first_day)
        return read(self, first_day, last_day)

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
