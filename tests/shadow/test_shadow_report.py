"""The shadow report on a known ledger: counts, Wilson intervals, costs and the advice text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from router.ledger import Ledger, LedgerWriter, query, segment_write, segments
from router.ledger.schema import SHADOW_COMPARISONS, rows_table
from router.shadow_cli import app
from router.shadow_report import bounds, from_ledger, summarize
from tests.ledger_races import merge_a_day_after_each_listing

TIERS = {"local": "local", "cloud": "cloud"}
# prose: 50 of 50 compared agree, and one replay timed out (`_rows`): counted against local
PROSE_ADVICE = (
    "prose: local agrees with cloud on 100% (95% CI 92%–100%) of 50 compared (1 failed) — not"
    " conclusive yet: with its failed replay counted as a disagreement, local agrees on 98%"
    " (95% CI 89%–100%) of 51; keep shadowing"
)


def _rows() -> list[dict[str, Any]]:
    rows = []
    for i in range(230):  # math: live cloud, shadow local, 94 of 230 agree (41%)
        rows.append(_row("math", "cloud", "local", i < 94, 2.0, 1.0, 0.01))
    for i in range(100):  # coding: live local, shadow cloud, 97 of 100 agree
        rows.append(_row("coding", "local", "cloud", i < 97, 1.0, 2.0, 0.0, judge="tie"))
    for _ in range(50):  # prose: all agree, shadow on local
        rows.append(_row("prose", "cloud", "local", True, 3.0, 1.0, 0.02))
    rows.append(_row("prose", "cloud", "local", None, 3.0, 0.0, 0.0, error="timeout"))
    for i in range(5):
        rows.append(_row("writing", "cloud", "local", i < 4, 1.0, 1.0, 0.0))
    return rows


def _row(
    intent: str,
    live: str,
    shadow: str,
    agreed: bool | None,
    lat: float,
    slat: float,
    cost: float,
    judge: str | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    return {
        "ts": 1_790_000_000.0,
        "request_id": "r",
        "intent": intent,
        "route": intent,
        "live_backend": live,
        "shadow_backend": shadow,
        "agreed": agreed,
        "method": "m",
        "detail": "",
        "live_latency_s": lat,
        "shadow_latency_s": slat,
        "live_tokens": 10,
        "shadow_tokens": 10,
        "live_cost_usd": cost,
        "shadow_cost_usd": 0.001 if shadow == "cloud" else 0.0,
        "judge": judge,
        "shadow_error": error,
    }


def _ledger(tmp: Path) -> Path:
    writer = LedgerWriter(tmp / "ledger", flush_interval_s=0.1)
    for row in _rows():
        writer.submit_row("shadow_comparisons", row)
    writer.close()
    return tmp / "ledger"


def test_report_on_a_known_ledger(tmp_path: Path) -> None:
    with Ledger(_ledger(tmp_path)) as ledger:
        summaries = {s.intent: s for s in summarize(from_ledger(ledger), TIERS)}
    math = summaries["math"]
    assert (math.samples, math.agreed, math.live_p50_s, math.shadow_p50_s) == (230, 94, 2.0, 1.0)
    assert math.recommendation == (
        "math: local agrees with cloud on 41% (95% CI 34%–48%) of 230 compared — keep math on cloud"
    )
    coding = summaries["coding"]
    assert coding.judge == {"tie": 100} and coding.shadow_cost_usd == 0.1
    assert coding.recommendation.startswith("coding: local agrees with cloud on 97% (95% CI ")
    assert coding.recommendation.endswith("— keep coding on local")
    prose = summaries["prose"]
    assert (prose.samples, prose.errors) == (50, 1)
    assert prose.recommendation.endswith(PROSE_ADVICE)  # its failed replay counts against it
    assert "too few samples" in summaries["writing"].recommendation


def test_cli_prints_json_and_table(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    result = CliRunner().invoke(app, ["report", "--ledger", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {d["intent"] for d in data} == {"math", "coding", "prose", "writing"}
    table = CliRunner().invoke(app, ["report", "--ledger", str(path)])
    assert table.exit_code == 0 and "Shadow agreement" in table.output and "230" in table.output
    LedgerWriter(tmp_path / "empty").close()  # a ledger with no rows yet, as a router opens it
    empty = CliRunner().invoke(app, ["report", "--ledger", str(tmp_path / "empty")])
    assert empty.exit_code == 0 and "no shadow comparisons" in empty.output


def test_the_table_in_a_pipe_cuts_none_of_its_numbers(tmp_path: Path) -> None:
    """At a pipe's 80 columns rich cut the table's own numbers: `50%–7…` for an interval
    (found in review). It is as wide as `smf-router report`'s, and folds what is wider."""
    path = _ledger(tmp_path)
    with Ledger(path) as ledger:
        summaries = summarize(from_ledger(ledger), TIERS)
    table = CliRunner().invoke(app, ["report", "--ledger", str(path)], env={"COLUMNS": "80"})
    assert table.exit_code == 0, table.output
    assert "…" not in table.output
    for s in summaries:
        assert bounds(s.low, s.high) in table.output
        assert f"{s.live_cost_usd:.4f} / {s.shadow_cost_usd:.4f} / {s.judge_cost_usd:.4f}" in (
            table.output
        )


def test_cli_refuses_a_missing_ledger_and_a_window_below_one_day(tmp_path: Path) -> None:
    """`--ledger` with a typo said "no shadow comparisons yet" and exited 0 where `report`
    and `ledger compact` refuse it; `--days -3` was a DuckDB traceback and `--days 0` meant
    all time (found in review)."""
    typo = CliRunner().invoke(app, ["report", "--ledger", str(tmp_path / "none")])
    assert typo.exit_code == 2 and f"no ledger at {tmp_path / 'none'}" in typo.output
    path = _ledger(tmp_path)
    for days in ("0", "-3"):
        result = CliRunner().invoke(app, ["report", "--ledger", str(path), "--days", days])
        assert result.exit_code == 2 and "--days" in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
    with Ledger(path) as ledger, pytest.raises(ValueError, match="at least 1"):
        from_ledger(ledger, 0)


def test_cli_refuses_a_window_past_100_years(tmp_path: Path) -> None:
    """`--days 999999999` ended in a DuckDB ConversionException traceback (found in
    review): like the retention settings, a window is at most 36500 days (100 years)."""
    path = _ledger(tmp_path)
    for days in ("36501", "999999999"):
        result = CliRunner().invoke(app, ["report", "--ledger", str(path), "--days", days])
        assert result.exit_code == 2 and "--days" in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
    widest = CliRunner().invoke(app, ["report", "--ledger", str(path), "--days", "36500"])
    assert widest.exit_code == 0, widest.output


def test_advice_without_config_uses_the_tiers_the_rows_stored(tmp_path: Path) -> None:
    """Without `--config` the report knew no tiers and advised "keep prose on cloud" where
    it advises "consider routing prose to local first" (found in review). Rows carry the
    tiers now; rows from files written before they did get no advice, and say so."""
    path = tmp_path / "ledger"
    old_names = [f.name for f in SHADOW_COMPARISONS if not f.name.endswith("_tier")]
    old = [_row("math", "cloudy", "localish", True, 1.0, 1.0, 0.0) for _ in range(30)]
    day = segments.day_dir(path, "shadow_comparisons", "2026-09-21")
    segment_write.write_segment(
        day / "old.parquet", rows_table("shadow_comparisons", old).select(old_names)
    )
    writer = LedgerWriter(path, flush_interval_s=0.1)
    for row in _rows():
        tiers = {
            "live_tier": TIERS[row["live_backend"]],
            "shadow_tier": TIERS[row["shadow_backend"]],
        }
        writer.submit_row("shadow_comparisons", {**row, **tiers})
    writer.close()
    result = CliRunner().invoke(app, ["report", "--ledger", str(path), "--json"])
    assert result.exit_code == 0, result.output
    advice = {
        (d["intent"], d["live_backend"]): d["recommendation"] for d in json.loads(result.output)
    }
    assert advice[("prose", "cloud")].endswith(PROSE_ADVICE)
    assert advice[("math", "cloud")].endswith("keep math on cloud")
    assert advice[("math", "cloudy")].endswith("tiers are unknown (run with --config)")
    table = CliRunner().invoke(app, ["report", "--ledger", str(path)])
    assert table.exit_code == 0 and "run with --config" in table.output


def test_cli_says_in_one_line_when_a_compaction_keeps_overtaking_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compaction merging day after day while `shadow report` listed the ledger ended it
    in a traceback (found in review); `smf-router report` says it in one line, and so now
    does this."""
    path = tmp_path / "ledger"
    writer = LedgerWriter(path, process_tag="w")
    for n in range(6):  # three days, two segments each
        writer.submit_row(
            "shadow_comparisons", {**_rows()[0], "ts": 1_790_000_000.0 + 86_400 * (n // 2)}
        )
        writer.flush()
    writer.close()
    merge_a_day_after_each_listing(monkeypatch, sorted((path / "shadow_comparisons").glob("day=*")))
    monkeypatch.setattr(query, "LISTINGS", 2)
    result = CliRunner().invoke(app, ["report", "--ledger", str(path)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output.startswith(f"error: cannot read the ledger at {path}: its files kept")


def test_judge_spend_is_reported_and_files_from_before_it_still_read(tmp_path: Path) -> None:
    """The judge's cost is summed per pair beside the shadow's; a months-old ledger whose
    files have no judge columns still reports (their judge cost reads as 0)."""
    path = tmp_path / "ledger"
    new = {"judge_backend", "judge_tokens", "judge_cost_usd"}
    old_names = [f.name for f in SHADOW_COMPARISONS if f.name not in new]
    old = [_row("math", "cloud", "local", True, 2.0, 1.0, 0.01) for _ in range(10)]
    day = segments.day_dir(path, "shadow_comparisons", "2026-03-02")
    segment_write.write_segment(
        day / "old.parquet", rows_table("shadow_comparisons", old).select(old_names)
    )
    writer = LedgerWriter(path, flush_interval_s=0.1)
    judged = {"judge": "live", "judge_backend": "judge", "judge_tokens": 900}
    for _ in range(4):
        row = _row("math", "cloud", "local", False, 2.0, 1.0, 0.01)
        writer.submit_row("shadow_comparisons", {**row, **judged, "judge_cost_usd": 0.25})
    writer.close()
    result = CliRunner().invoke(app, ["report", "--ledger", str(path), "--json"])
    assert result.exit_code == 0, result.output
    (math,) = json.loads(result.output)
    assert (math["samples"], math["agreed"], math["judge"]) == (14, 10, {"live": 4})
    assert (math["judge_cost_usd"], math["shadow_cost_usd"]) == (1.0, 0.0)
    table = CliRunner().invoke(app, ["report", "--ledger", str(path)], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "0.1400 / 0.0000 / 1.0000" in table.output, table.output


def test_a_pair_whose_shadows_all_failed_shows_no_latency_not_zero(tmp_path: Path) -> None:
    """Every shadow timed out: no latency is known, and the table said 0.00 s for both
    sides, as if answered at once (found in review). It shows `-`."""
    path = tmp_path / "ledger"
    writer = LedgerWriter(path, flush_interval_s=0.1)
    for _ in range(3):
        row = _row("prose", "cloud", "local", None, 3.0, 120.0, 0.02, error="timeout")
        writer.submit_row("shadow_comparisons", row)
    writer.submit_row("shadow_comparisons", _row("math", "cloud", "local", True, 0.0, 0.0, 0.0))
    writer.close()
    table = CliRunner().invoke(app, ["report", "--ledger", str(path)], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    lines = {line.split("│")[1].strip(): line for line in table.output.splitlines() if "│" in line}
    assert "│ - / -" in lines["prose"] and "0.00 / 0.00" not in lines["prose"]
    assert "│ 0.00 / 0.00" in lines["math"]  # a measured 0 is still a number


def test_live_cost_counts_every_live_request_even_when_its_shadow_failed() -> None:
    """The live request was paid for whether or not its shadow answered: live cost summed
    only the rows without a shadow error, where the shadow's and judge's summed them all
    (found in review)."""
    rows = [_row("prose", "cloud", "local", True, 3.0, 1.0, 0.02) for _ in range(2)]
    rows.append(_row("prose", "cloud", "local", None, 3.0, 120.0, 0.02, error="timeout"))
    (prose,) = summarize(rows, TIERS)
    assert (prose.live_cost_usd, prose.errors) == (0.06, 1)


def test_undecided_comparisons_stay_out_of_the_agreement_rate() -> None:
    """Code that defines nothing on either side is compared undecided (`agreed` NULL, no
    shadow error): it counts as undecided, not as a sample that agreed."""
    rows = [_row("coding", "cloud", "local", i < 15, 1.0, 1.0, 0.0) for i in range(20)]
    rows += [_row("coding", "cloud", "local", None, 1.0, 1.0, 0.0) for _ in range(30)]
    (coding,) = summarize(rows, TIERS)
    assert (coding.samples, coding.agreed, coding.undecided, coding.errors) == (20, 15, 30, 0)
    assert coding.agreement == 0.75
    assert "on 75% (95% CI " in coding.recommendation and "of 20 compared —" in (
        coding.recommendation
    )


def test_fallback_traffic_gets_no_advice_to_move_its_route(tmp_path: Path) -> None:
    """Coding is routed local first: its requests that fell back or overflowed to the cloud,
    shadowed on local, were told "consider routing coding to local first" (or "keep coding on
    cloud") of a route that already starts there (found in review). With `--config` the
    report knows each route's first backend, and gives such a pair no advice to move; a pair
    live on its route's first backend keeps its advice."""
    path = tmp_path / "ledger"
    writer = LedgerWriter(path, flush_interval_s=0.1)
    for i in range(60):
        for intent in ("coding", "math"):
            row = _row(intent, "cloud", "local", i < 59, 2.0, 1.0, 0.01)
            writer.submit_row(
                "shadow_comparisons", {**row, "live_tier": "cloud", "shadow_tier": "local"}
            )
    writer.close()
    backends = "".join(
        f"  - {{name: {n}, tier: {n}, base_url: 'http://127.0.0.1:9/v1', model: m}}\n"
        for n in ("local", "cloud")
    )
    config = tmp_path / "router.yaml"
    config.write_text(f"backends:\n{backends}ledger: {{path: {path}}}\n")  # coding: local first

    def advice(*options: str) -> dict[str, str]:
        result = CliRunner().invoke(app, ["report", "--json", *options])
        assert result.exit_code == 0, result.output
        return {d["intent"]: d["recommendation"] for d in json.loads(result.output)}

    told = advice("--config", str(config))
    assert told["coding"].endswith(
        "no advice: cloud served these coding requests as fallback or overflow"
        " (the coding route starts with local)"
    )
    assert told["math"].endswith("consider routing math to local first")  # math: cloud first
    without = advice("--ledger", str(path))  # no routes known: the advice reads as before
    assert without["coding"].endswith("consider routing coding to local first")


def test_advice_reads_the_route_each_request_took_not_its_intents(tmp_path: Path) -> None:
    """The report compared the live backend with the first of the route named after the
    intent: math requests the classifier was unsure of (they took classifier.default_route,
    coding: local first) and coding requests pinned to `cloud` were both called "fallback or
    overflow" (found in review). The row's `route` is read: only a row live on another
    backend than its own route's first is fallback, and rows of another route than the
    intent's are summarised apart, with no advice to move the intent's route."""
    path = tmp_path / "ledger"
    writer = LedgerWriter(path, flush_interval_s=0.1)
    taken = [  # (intent, route taken, live, shadow)
        ("math", "coding", "local", "cloud"),  # low confidence: the default route, no fallback
        ("coding", "cloud", "cloud", "local"),  # pinned `model: cloud`
        ("math", "coding", "cloud", "local"),  # the default route's fallback
        ("coding", "coding", "cloud", "local"),  # the coding route's own fallback
        ("math", "math", "cloud", "local"),  # the math route's own traffic (cloud first)
    ]
    for intent, route, live, shadow in taken:
        for i in range(60):
            row = _row(intent, live, shadow, i < 59, 2.0, 1.0, 0.01)
            tiers = {"live_tier": live, "shadow_tier": shadow}
            writer.submit_row("shadow_comparisons", {**row, **tiers, "route": route})
    writer.close()
    backends = "".join(
        f"  - {{name: {n}, tier: {n}, base_url: 'http://127.0.0.1:9/v1', model: m}}\n"
        for n in ("local", "cloud")
    )
    config = tmp_path / "router.yaml"  # coding (the default route): local first; math: cloud
    config.write_text(f"backends:\n{backends}ledger: {{path: {path}}}\n")
    result = CliRunner().invoke(app, ["report", "--json", "--config", str(config)])
    assert result.exit_code == 0, result.output
    default_route = [d for d in json.loads(result.output) if d["live_backend"] == "local"]
    assert default_route and "fallback" not in default_route[0]["recommendation"]
    told = {
        (d["intent"], d["route"], d["live_backend"]): d["recommendation"]
        for d in json.loads(result.output)
    }
    assert all(d["samples"] == 60 for d in json.loads(result.output))
    assert "fallback" not in told[("math", "coding", "local")]
    assert told[("math", "coding", "local")].startswith("math via coding: local agrees")
    assert told[("math", "coding", "local")].endswith(
        "no advice to move the math route: these requests took coding"
        " (classifier.default_route for a low-confidence request, or a pinned model)"
    )
    assert "fallback" not in told[("coding", "cloud", "cloud")]
    pinned = told[("coding", "cloud", "cloud")]
    assert "no advice to move the coding route: these requests took cloud" in pinned
    assert told[("math", "coding", "cloud")].endswith(
        "no advice: cloud served these math requests as fallback or overflow"
        " (they took the coding route, which starts with local)"
    )
    assert told[("coding", "coding", "cloud")].endswith("(the coding route starts with local)")
    assert told[("math", "math", "cloud")].endswith("consider routing math to local first")
    without = CliRunner().invoke(app, ["report", "--json", "--ledger", str(path)])
    assert without.exit_code == 0, without.output
    for d in json.loads(without.output):  # the row says its route, config or not
        if d["route"] != d["intent"]:
            assert "no advice to move" in d["recommendation"], d
    table = CliRunner().invoke(app, ["report", "--config", str(config)], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "│ math   │ coding │" in table.output, table.output
