"""Requests priced by a cloud backend with no known price: stored with an unknown (NULL)
cost, counted by the report as `unpriced_requests` and warned of in every format, and named
by `config check` (found in review: they read as $0 spend and negative offload)."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from router import report
from router.cli import app as main_app
from router.ledger import Ledger, LedgerWriter, compaction
from router.ledger.cli import app
from router.pricing import Pricer
from tests.ledger.unpriced_config import CONFIG, UNKNOWN, config, request_record
from tests.router.config_files import write

NOW = datetime(2026, 3, 10, tzinfo=UTC)


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    """math served by the unpriced cloud backend; reasoning served locally, its
    counterfactual the unpriced one; coding served locally against a priced cloud."""
    pricer = Pricer(config())
    writer = LedgerWriter(tmp_path / "ledger", process_tag="unpriced")
    for rid, route, backend, tier in (
        ("m", "math", "frontier", "cloud"),
        ("r", "reasoning", "local", "local"),
        ("c", "coding", "local", "local"),
    ):
        record = request_record(rid, route, backend, tier)
        record.cost_usd, record.counterfactual_usd = pricer.price(record)
        writer.submit(record)
    writer.close()
    return tmp_path / "ledger"


def _cli(ledger: Path, fmt: str, *more: str) -> tuple[str, str, int]:
    """(stdout, stderr, exit status) of `report`."""
    args = ["report", "--ledger", str(ledger), "--since", "2026-01-01", "--format", fmt, *more]
    result = CliRunner().invoke(app, args)
    return result.stdout, result.stderr, result.exit_code


def test_an_unpriced_cost_is_stored_unknown_not_zero(ledger: Path) -> None:
    with Ledger(ledger) as read:
        rows = read.sql("SELECT request_id, cost_usd, counterfactual_usd FROM records ORDER BY 1")
    by_id = {rid: (cost, counterfactual) for rid, cost, counterfactual in rows}
    assert by_id["m"] == (None, None)
    assert by_id["r"][0] > 0 and by_id["r"][1] is None  # its local cost is known
    assert by_id["c"][0] > 0 and by_id["c"][1] > by_id["c"][0]


def test_the_report_counts_unpriced_requests_and_offloads_nothing_negative(ledger: Path) -> None:
    out, err = _cli(ledger, "json")[:2]
    data = json.loads(out)
    t = data["totals"]
    assert t["unpriced_requests"] == 2
    groups = {g["key"]: g for g in data["groups"]}
    assert {k: g["unpriced_requests"] for k, g in groups.items()} == {
        "math": 1,
        "reasoning": 1,
        "coding": 0,
    }
    # reasoning's counterfactual is unknown: no offload from it, where it was −(local cost)
    assert groups["reasoning"]["offloaded_usd"] == 0
    assert groups["coding"]["offloaded_usd"] > 0
    assert t["offloaded_usd"] == groups["coding"]["offloaded_usd"]
    [said] = [w for w in data["warnings"] if "no known cloud price" in w]
    assert said.startswith("2 request(s) with no known cloud price")
    assert "frontier on route math" in said and "local on route reasoning" in said
    assert f"warning: {said}" in err


def test_every_format_says_so(ledger: Path) -> None:
    table = _cli(ledger, "table")[0]
    assert "unpriced" in table and "2 request(s) with no known cloud price" in table
    text, err, status = _cli(ledger, "csv")
    assert status == 0  # counted and warned of, nothing left out
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows[-1]["route"] == "TOTAL" and rows[-1]["unpriced_requests"] == "2"
    assert "warning: 2 request(s) with no known cloud price" in err
    html = _cli(ledger, "html")[0]
    assert "<th>unpriced</th>" in html and "2 request(s) with no known cloud price" in html


def test_a_rolled_up_day_keeps_the_count(ledger: Path) -> None:
    raw = report.build(ledger)
    assert compaction.compact(ledger, now=NOW).rollups == 1
    with Ledger(ledger) as read:
        assert read.use_rollups(datetime(1970, 1, 1), datetime(9999, 1, 1)) == 1
    rolled = report.build(ledger)
    assert rolled["totals"] == raw["totals"]
    assert rolled["totals"]["unpriced_requests"] == 2


def test_config_check_names_a_cloud_backend_without_a_price(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main_app, ["config", "check", "--config", str(write(tmp_path, CONFIG))]
    )
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if "no price for cloud model" in line]
    assert len(said) == 1 and said[0].startswith("warning: backends.frontier:")
    priced = CONFIG.replace(
        f"model: {UNKNOWN}}}",
        f"model: {UNKNOWN}, price: {{input_per_mtok: 1, output_per_mtok: 2}}}}",
    )
    result = CliRunner().invoke(
        main_app, ["config", "check", "--config", str(write(tmp_path, priced))]
    )
    assert "no price for cloud model" not in result.stderr


def test_the_shadow_and_judge_spend_is_reported_apart_from_live_spend(tmp_path: Path) -> None:
    """What shadow replays and their judge cost was in the ledger and in no report (found
    in review): shown apart, never in cloud_usd nor the offload; rows outside the window
    are not counted."""
    from tests.ledger.known_ledger import DAY1, write_known_ledger

    ledger = write_known_ledger(tmp_path / "ledger")
    live = report.build(ledger, since=datetime(2026, 3, 1, tzinfo=UTC))["totals"]
    writer = LedgerWriter(ledger, process_tag="shadow")
    for ts, shadow, judge in ((DAY1, 0.25, 0.5), (DAY1 + 60, 0.125, None), (DAY1 - 86400, 9, 9)):
        row = {"ts": ts, "request_id": "a", "shadow_cost_usd": shadow, "judge_cost_usd": judge}
        writer.submit_row("shadow_comparisons", row)
    writer.close()
    out, _, status = _cli(ledger, "json", "--since", "2026-03-01")
    assert status == 0
    data = json.loads(out)
    assert data["shadow_spend"] == {
        "comparisons": 2,
        "shadow_usd": 0.375,
        "judge_usd": 0.5,
        "unpriced": 0,
    }
    assert data["totals"] == live  # live spend and offload untouched
    line = "shadow, apart from the above: 2 comparison(s), replays $0.38, judge $0.50"
    assert line in _cli(ledger, "table", "--since", "2026-03-01")[0]
    assert line in _cli(ledger, "html", "--since", "2026-03-01")[0]
    text = _cli(ledger, "csv", "--since", "2026-03-01")[0]
    assert "#" not in text and text.splitlines()[-1].startswith("TOTAL,")  # rows only
