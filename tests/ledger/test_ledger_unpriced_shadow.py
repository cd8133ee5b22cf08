"""Shadow and judge calls with no known price (a NULL cost while the call had tokens): the
report counts them as `shadow_spend.unpriced` and warns, and the shadow report shows "?" for
the group's dollars; both read them as $0 before (found in review)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from router.ledger import LedgerWriter
from router.ledger.cli import app
from router.shadow_cli import app as shadow_app
from tests.ledger.known_ledger import DAY1, write_known_ledger


def _row(ts: float, intent: str, shadow: float | None, judge: float | None) -> dict[str, Any]:
    return {
        "ts": ts,
        "request_id": "a",
        "intent": intent,
        "route": intent,
        "live_backend": "local",
        "shadow_backend": "frontier",
        "agreed": True,
        "live_tokens": 100,
        "live_cost_usd": 0.001,
        "shadow_tokens": 120,
        "shadow_cost_usd": shadow,
        "judge_backend": "judge",
        "judge_tokens": 50,
        "judge_cost_usd": judge,
    }


def _ledger(tmp_path: Path) -> Path:
    ledger = write_known_ledger(tmp_path / "ledger")
    writer = LedgerWriter(ledger, process_tag="shadow")
    for row in (
        _row(DAY1, "math", 0.25, 0.5),  # priced
        _row(DAY1 + 1, "coding", None, 0.125),  # an unpriced replay
        _row(DAY1 + 2, "coding", None, None),  # both unpriced: one comparison
        _row(DAY1 + 3, "prose", 0.0, None),  # an unpriced judge
        {**_row(DAY1 + 4, "math", None, None), "shadow_tokens": None, "judge_tokens": None},
    ):  # the last: a replay that failed and a judge never asked, no tokens: not unpriced
        writer.submit_row("shadow_comparisons", row)
    writer.close()
    return ledger


def test_the_report_counts_and_warns_of_unpriced_shadow_and_judge_calls(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    args = ["report", "--ledger", str(ledger), "--since", "2026-03-01", "--format"]
    result = CliRunner().invoke(app, [*args, "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["shadow_spend"] == {
        "comparisons": 5,
        "shadow_usd": 0.25,
        "judge_usd": 0.625,
        "unpriced": 3,
    }
    [said] = [w for w in data["warnings"] if "shadow comparison(s)" in w]
    assert said.startswith("3 shadow comparison(s) whose replay or judge call has no known")
    assert f"warning: {said}" in result.stderr
    table = CliRunner().invoke(app, [*args, "table"]).stdout
    assert "judge $0.62 (3 with no known price left out)" in table
    assert said in table


def test_the_shadow_report_shows_unknown_dollars_as_a_question_mark(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    result = CliRunner().invoke(shadow_app, ["report", "--ledger", str(ledger), "--json"])
    assert result.exit_code == 0, result.output
    pairs = {p["intent"]: p for p in json.loads(result.output)}
    costs = {k: (p["shadow_cost_usd"], p["judge_cost_usd"]) for k, p in pairs.items()}
    assert costs == {"math": (0.25, 0.5), "coding": (None, None), "prose": (0.0, None)}
    table = CliRunner().invoke(shadow_app, ["report", "--ledger", str(ledger)])
    assert table.exit_code == 0, table.output
    lines = {line.split("│")[1].strip(): line for line in table.output.splitlines() if "│" in line}
    assert "0.0020 / ? / ?" in lines["coding"] and "0.0010 / 0.0000 / ?" in lines["prose"]
    assert "0.0020 / 0.2500 / 0.5000" in lines["math"]
    assert "? : a call of that group had tokens and no known cloud price" in table.output
