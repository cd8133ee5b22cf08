"""Reports: multi-metric tables of one results document, and a case-by-case comparison of two.

Never an overall percentage alone: per suite, per difficulty, failure modes (the coding
"syntax floor" apart), errors by kind apart from failures, latency. Data first (pure),
rendering with rich.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console, Group
from rich.table import Table

from evals.results import CaseResult

DIFFICULTIES = ("easy", "medium", "hard", "expert", "frontier", "unrated")
KINDS = ("syntax_error", "assertion", "runtime_error", "timeout", "mismatch", "no_answer")
ERROR_KINDS = ("timeout", "transport", "sandbox", "case", "grader", "other")


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.1f}%"


def _secs(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def suite_table(summary: Mapping[str, Mapping[str, Any]]) -> Table:
    """One row per suite: counts, pass rate over graded cases, latency."""
    table = Table(title="Per suite (pass rate = pass / (pass + fail))")
    for name in ("suite", "cases", "pass", "fail", "error", "n/a", "pass rate", "p50 s", "p90 s"):
        table.add_column(name, justify="left" if name == "suite" else "right")
    for suite, s in summary.items():
        lat = s["latency_s"]
        table.add_row(
            suite,
            str(s["total"]),
            str(s["passed"]),
            str(s["failed"]),
            str(s["errors"]),
            str(s["n/a"]),
            _pct(s["pass_rate"]),
            _secs(lat["p50"]),
            _secs(lat["p90"]),
        )
    return table


def difficulty_table(summary: Mapping[str, Mapping[str, Any]]) -> Table:
    """Pass-rate curve by difficulty: ``passed/graded`` per suite and level."""
    present = {d for s in summary.values() for d in s["by_difficulty"]}
    levels = [d for d in DIFFICULTIES if d in present] + sorted(present - set(DIFFICULTIES))
    table = Table(title="Per difficulty (passed/graded)")
    table.add_column("suite")
    for level in levels:
        table.add_column(level, justify="right")
    for suite, s in summary.items():
        cells = []
        for level in levels:
            d = s["by_difficulty"].get(level)
            cells.append("" if d is None else f"{d['passed']}/{d['passed'] + d['failed']}")
        table.add_row(suite, *cells)
    return table


def syntax_floor(summary: Mapping[str, Mapping[str, Any]], suite: str = "coding") -> str:
    """The coding failures that never reached a test: SyntaxErrors, as a share of failures."""
    s = summary.get(suite)
    if not s:
        return f"syntax floor: no {suite} suite in this run"
    syntax = s["failure_kinds"].get("syntax_error", 0)
    return f"syntax floor ({suite}): {syntax} of {s['failed']} failures are SyntaxErrors"


def failure_table(summary: Mapping[str, Mapping[str, Any]]) -> Table:
    """The model's failures per suite, by kind (a program's timeout is one of them)."""
    table = Table(title="Failure modes (fail)")
    table.add_column("suite")
    present = {k for s in summary.values() for k in s["failure_kinds"]}
    kinds = [*KINDS, *sorted(present - set(KINDS))]
    for kind in kinds:
        table.add_column(kind, justify="right")
    for suite, s in summary.items():
        found = s["failure_kinds"]
        table.add_row(suite, *(str(found.get(k, 0)) for k in kinds))
    return table


def error_table(summary: Mapping[str, Mapping[str, Any]]) -> Table:
    """Cases with no verdict per suite, by kind: a request timeout or a down endpoint is
    not the model's failure, so it is counted here and nowhere else."""
    table = Table(title="Errors (not graded)")
    table.add_column("suite")
    present = {k for s in summary.values() for k in s.get("error_kinds", {})}
    kinds = [k for k in ERROR_KINDS if k in present] + sorted(present - set(ERROR_KINDS))
    for kind in kinds:
        table.add_column(kind, justify="right")
    table.add_column("errors", justify="right")
    for suite, s in summary.items():
        found = s.get("error_kinds", {})
        table.add_row(suite, *(str(found.get(k, 0)) for k in kinds), str(s["errors"]))
    return table


def render(document: Mapping[str, Any]) -> Group:
    """Everything a person reads after a run."""
    summary = document["summary"]
    return Group(
        suite_table(summary),
        difficulty_table(summary),
        failure_table(summary),
        error_table(summary),
        syntax_floor(summary),
    )


@dataclass(frozen=True)
class Change:
    """One case whose status differs between two runs."""

    id: str
    suite: str
    old: str
    new: str
    detail: str

    @property
    def regression(self) -> bool:
        return self.old == "pass" and self.new in ("fail", "error")


def compare(old: Sequence[CaseResult], new: Sequence[CaseResult]) -> list[Change]:
    """Cases whose status changed, plus cases present in only one run (status ``absent``)."""
    before = {r.id: r for r in old}
    after = {r.id: r for r in new}
    changes: list[Change] = []
    for case_id in [*after, *(i for i in before if i not in after)]:
        was, now = before.get(case_id), after.get(case_id)
        old_status = was.status if was else "absent"
        new_status = now.status if now else "absent"
        if old_status != new_status:
            ref = now or was
            assert ref is not None
            detail = now.detail if now else ""
            changes.append(Change(case_id, ref.suite, old_status, new_status, detail))
    return changes


def compare_table(
    changes: Sequence[Change], old_doc: Mapping[str, Any], new_doc: Mapping[str, Any]
) -> Group:
    """Per-suite pass-rate deltas, then the changed cases, regressions first."""
    rates = Table(title="Pass rate, old -> new")
    for name in ("suite", "old", "new"):
        rates.add_column(name)
    for suite in dict.fromkeys([*new_doc["summary"], *old_doc["summary"]]):
        o, n = old_doc["summary"].get(suite, {}), new_doc["summary"].get(suite, {})
        rates.add_row(suite, _pct(o.get("pass_rate")), _pct(n.get("pass_rate")))
    cases = Table(title=f"Changed cases ({len(changes)})")
    for name in ("case", "suite", "old", "new", "detail"):
        cases.add_column(name)
    for c in sorted(changes, key=lambda c: (not c.regression, c.suite, c.id)):
        cases.add_row(c.id, c.suite, c.old, c.new, c.detail[:80])
    return Group(rates, cases)


def print_report(document: Mapping[str, Any], console: Console | None = None) -> None:
    """Print the full report of one run."""
    (console or Console()).print(render(document))
