"""A canary round as the ledger holds it: one `canary_runs` row and its `canary_results` rows.

The canary writes them (`run_row`, `write_round`), and a router that follows the ledger reads
them back into `Round`s (`finished_rounds`, `router.canary_follow`). Both sides are here so
that the columns one writes are the columns the other reads.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from evals.results import CaseResult
from router.canary_judge import server
from router.config import Backend as BackendSettings


class RowSink(Protocol):
    def submit_row(self, table: str, row: dict[str, Any]) -> None: ...

    def flush_soon(self) -> threading.Event: ...


def run_row(
    backend: BackendSettings,
    run_id: str,
    ts: float,
    duration: float,
    results: list[CaseResult],
    reason: str | None,
) -> dict[str, Any]:
    """One backend's round as its `canary_runs` row (also its `last_run` entry), which
    names the server asked (a follower judges only rounds of the server it knows)."""
    statuses = Counter(r.status for r in results)
    return {
        "run_id": run_id,
        "ts": ts,
        "backend": backend.name,
        "suites": ",".join(sorted({r.suite for r in results})),
        "cases": len(results),
        "passed": statuses["pass"],
        "failed": statuses["fail"],
        "errors": statuses["error"],
        "skipped_reason": reason,
        "duration_s": round(duration, 4),
        **server(backend),
    }


def write_round(
    rows: RowSink,
    summary: dict[str, Any],
    results: list[CaseResult],
    spent: Callable[[CaseResult], dict[str, Any]] | None = None,
) -> None:
    """Queue a round's rows: its `canary_runs` row (`run_row`), then one per result, with
    what its call cost when `spent` says (`router.canary_spend.Spend.columns`)."""
    run = {key: summary[key] for key in ("run_id", "ts", "backend")}
    rows.submit_row("canary_runs", summary)
    for r in results:
        rows.submit_row(
            "canary_results",
            {
                **run,
                "suite": r.suite,
                "case_id": r.id,
                "difficulty": r.difficulty,
                "status": r.status,
                "failure_kind": r.failure_kind,
                "latency_s": r.latency_s,
                **(spent(r) if spent is not None else {}),
            },
        )


@dataclass(frozen=True, slots=True)
class Round:
    """One backend's part of one canary run: its `canary_runs` row and its results."""

    summary: dict[str, Any]
    results: list[CaseResult]

    @property
    def key(self) -> tuple[str, str]:
        return self.summary["run_id"], self.summary["backend"]


def finished_rounds(
    runs: list[dict[str, Any]], results: list[dict[str, Any]], judged: Collection[tuple[str, str]]
) -> list[Round]:
    """The rounds whose every result is on disk and that are not judged yet, oldest first."""
    found: dict[tuple[str, str], dict[tuple[str, str], CaseResult]] = {}
    for row in results:
        cases = found.setdefault((row["run_id"], row["backend"]), {})
        cases[(row["suite"], row["case_id"])] = CaseResult(
            row["case_id"],
            row["suite"],
            row.get("difficulty") or "",
            row["status"],
            row.get("failure_kind"),
        )
    rounds: dict[tuple[str, str], Round] = {}
    for row in runs:
        summary = {**row, "ts": unix(row["ts"])}
        cases = found.get((row["run_id"], row["backend"]), {})
        if len(cases) >= (row.get("cases") or 0):
            rounds[(row["run_id"], row["backend"])] = Round(summary, list(cases.values()))
    fresh = [r for key, r in rounds.items() if key not in judged]
    return sorted(fresh, key=lambda r: r.summary["ts"])


def unix(ts: datetime) -> float:
    """A ledger time (naive UTC) as unix time."""
    return ts.replace(tzinfo=UTC).timestamp()
