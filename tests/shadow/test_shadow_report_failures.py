"""The shadow report's failed replays and intervals: advice to move a route counts failures
against the shadow, the headline says how many failed, and the interval is printed as is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from router.gating import wilson_interval
from router.ledger import LedgerWriter
from router.shadow_cli import app
from router.shadow_report import bounds, ci, summarize

TIERS = {"local": "local", "cloud": "cloud"}
# what failed replays' rows say (`router.shadow_replay`): most of them on the hard requests
FAILURES = ("timeout", "first_token_timeout", "unfinished: abort", "unfinished: length")


def _row(
    intent: str,
    live: str,
    shadow: str,
    agreed: bool | None,
    error: str | None = None,
    route: str | None = None,
) -> dict[str, Any]:
    """A comparison row as the shadow writes it, with the tiers it stores."""
    return {
        "ts": 1_790_000_000.0,
        "request_id": "r",
        "intent": intent,
        "route": route or intent,
        "live_backend": live,
        "shadow_backend": shadow,
        "agreed": agreed,
        "method": "final_answer",
        "detail": "",
        "live_latency_s": 2.0,
        "shadow_latency_s": None if error else 1.0,
        "live_tokens": 10,
        "shadow_tokens": 10,
        "live_cost_usd": 0.01,
        "shadow_cost_usd": 0.0,
        "shadow_error": error,
        "live_tier": TIERS[live],
        "shadow_tier": TIERS[shadow],
    }


def _mostly_failed() -> list[dict[str, Any]]:
    """The review's run: math live on the cloud, shadowed on local at a fault rate of 0.85;
    47 replays answered, every one agreeing, and 253 failed."""
    rows = [_row("math", "cloud", "local", True) for _ in range(47)]
    rows += [_row("math", "cloud", "local", None, FAILURES[i % 4]) for i in range(253)]
    return rows


def test_failed_replays_keep_the_route_where_it_is() -> None:
    """It said "local agrees with cloud on 100% ± 4% of 47 shadowed requests — local could
    serve math" while 253 of 300 replays had failed (found in review). Counted as
    disagreements, they leave local 47 of 300; the compared ones alone still clear 90%."""
    (math,) = summarize(_mostly_failed(), TIERS)
    assert (math.samples, math.agreed, math.errors, math.low > 0.9) == (47, 47, 253, True)
    assert math.recommendation == (
        "math: local agrees with cloud on 100% (95% CI 92%–100%) of 47 compared (253 failed)"
        " — keep math on cloud (local failed 253 of 300 replays)"
    )
    clean = [row for row in _mostly_failed() if not row["shadow_error"]]
    (answered,) = summarize(clean * 2, TIERS)  # the same answers, none failed: it could
    assert answered.recommendation.endswith(
        "local could serve math: consider routing math to local first"
    )


def test_a_failing_cloud_shadow_leaves_the_advice_to_stay_local() -> None:
    """Failures count against the shadow only where the advice would move traffic to it: a
    cloud shadow that often fails says nothing against the local backend serving the route."""
    rows = [_row("coding", "local", "cloud", True) for _ in range(60)]
    rows += [_row("coding", "local", "cloud", None, "timeout") for _ in range(200)]
    (coding,) = summarize(rows, TIERS)
    assert coding.recommendation == (
        "coding: local agrees with cloud on 100% (95% CI 93%–100%) of 60 compared (200 failed)"
        " — keep coding on local"
    )


def test_the_interval_is_printed_as_it_is() -> None:
    """30 of 30 read "100% ± 6%", at least 94%, beside advice that its lower bound, 88.6%,
    is not clear of 90% (found in review): the Wilson interval is not symmetric. Bounds
    are rounded outward, so that 89.7% does not read as 90%."""
    rows = [_row("coding", "cloud", "local", True) for _ in range(30)]
    (coding,) = summarize(rows, TIERS)
    assert round(coding.low, 3) == 0.886
    assert coding.recommendation == (
        "coding: local agrees with cloud on 100% (95% CI 88%–100%) of 30 compared"
        " — not conclusive yet; keep shadowing"
    )
    assert (bounds(0.8969, 0.9965), bounds(0.35, 0.47), bounds(0.0, 1.0)) == (
        "89%–100%",
        "35%–47%",
        "0%–100%",
    )
    # a bound on a whole percent is that percent, though float's percent lies just past it
    # (0.29 * 100 is 28.999999999999996, 0.56 * 100 is 56.00000000000001): outward by
    # that error alone, an interval computed as 29%–56% read "28%–57%"
    assert bounds(0.29, 0.56) == "29%–56%"
    failed = [_row("prose", "cloud", "local", None, "timeout") for _ in range(5)]
    (prose,) = summarize(failed, TIERS)
    assert prose.recommendation.startswith(
        "prose: no decided comparison between local and cloud yet (5 failed) — "
    )


def _ledger(tmp: Path, rows: list[dict[str, Any]]) -> str:
    """A ledger directory holding `rows`, written as the shadow writes them."""
    writer = LedgerWriter(tmp / "ledger", flush_interval_s=0.1)
    for row in rows:
        writer.submit_row("shadow_comparisons", row)
    writer.close()
    return str(tmp / "ledger")


def test_the_cli_says_how_many_failed_and_gives_no_advice_to_move(tmp_path: Path) -> None:
    """`smf-router shadow report` on a ledger of the review's run."""
    ledger = _ledger(tmp_path, _mostly_failed())
    table = CliRunner().invoke(app, ["report", "--ledger", ledger], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    assert "on 100% (95% CI 92%–100%) of 47 compared (253 failed)" in table.output
    assert "keep math on cloud (local failed 253 of 300 replays)" in table.output
    assert "could serve" not in table.output
    (line,) = [line for line in table.output.splitlines() if line.startswith("│ math")]
    assert "│ 92%–100% │" in line and line.rstrip(" │").endswith("253")  # the errors column


def test_failed_replays_count_toward_the_sample_the_advice_reads(tmp_path: Path) -> None:
    """5 compared and 295 failed said "too few samples to decide (need 20)": the check
    counted compared replays only, where the advice counts the failures against the shadow
    and 300 replays decide (found in review). The check reads the count of the interval the
    advice reads: replays compared or failed where it would move the route; compared ones
    where a cloud shadow's failures do not count."""
    rows = [_row("math", "cloud", "local", True) for _ in range(5)]
    rows += [_row("math", "cloud", "local", None, FAILURES[i % 4]) for i in range(295)]
    rows += [_row("coding", "local", "cloud", True) for _ in range(5)]
    rows += [_row("coding", "local", "cloud", None, "timeout") for _ in range(295)]
    rows += [_row("prose", "cloud", "local", True) for _ in range(3)]
    rows += [_row("prose", "cloud", "local", None, "timeout") for _ in range(4)]
    done = CliRunner().invoke(app, ["report", "--ledger", _ledger(tmp_path, rows), "--json"])
    assert done.exit_code == 0, done.output
    advice = {d["intent"]: d["recommendation"] for d in json.loads(done.output)}
    assert advice["math"] == (
        "math: local agrees with cloud on 100% (95% CI 56%–100%) of 5 compared (295 failed)"
        " — keep math on cloud (local failed 295 of 300 replays)"
    )
    assert advice["coding"].endswith(
        "of 5 compared (295 failed) — too few samples to decide (5 compared, need 20);"
        " keep shadowing"
    )
    assert advice["prose"].endswith(
        "of 3 compared (4 failed) — too few samples to decide (7 replays compared or failed,"
        " need 20); keep shadowing"
    )


def test_the_json_gives_the_interval_the_advice_read(tmp_path: Path) -> None:
    """`--json` gave only the compared interval (`low` 0.92 beside "keep math on cloud"),
    the failure-counted one the advice read only inside its text (found in review). It
    gives that one too, by name, and which of the two the advice read."""
    rows = _mostly_failed()
    rows += [_row("prose", "cloud", "local", True) for _ in range(50)]
    rows.append(_row("prose", "cloud", "local", None, "timeout"))
    rows += [_row("coding", "local", "cloud", True) for _ in range(60)]
    rows += [_row("coding", "local", "cloud", None, "timeout") for _ in range(10)]
    rows += [_row("writing", "cloud", "local", True, route="coding") for _ in range(30)]
    done = CliRunner().invoke(app, ["report", "--ledger", _ledger(tmp_path, rows), "--json"])
    assert done.exit_code == 0, done.output
    pairs = {d["intent"]: d for d in json.loads(done.output)}
    math = pairs["math"]
    assert (math["samples"], math["errors"], math["replays"]) == (47, 253, 300)
    assert math["low"] > 0.9  # the compared interval: clear of the threshold
    assert (math["replay_low"], math["replay_high"]) == wilson_interval(47, 300)
    assert (math["replay_agreement"], math["advice_basis"]) == (47 / 300, "replays")
    assert math["replay_high"] < 0.9 and math["recommendation"].endswith(
        "keep math on cloud (local failed 253 of 300 replays)"
    )
    prose = pairs["prose"]  # the numbers in its advice are the JSON's own
    said = ci(prose["replay_agreement"], prose["replay_low"], prose["replay_high"])
    assert said == "98% (95% CI 89%–100%)"
    assert prose["recommendation"].endswith(f"local agrees on {said} of 51; keep shadowing")
    coding = pairs["coding"]  # a cloud shadow's failures: the advice read the compared ones
    assert (coding["advice_basis"], coding["replays"]) == ("compared", 70)
    assert coding["recommendation"].endswith("keep coding on local")
    writing = pairs["writing"]  # another route's traffic: no advice, so no basis
    assert writing["advice_basis"] is None and writing["route"] == "coding"
    assert (writing["replays"], writing["replay_agreement"]) == (30, 1.0)
