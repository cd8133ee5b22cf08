"""What the report does not know, said as unknown: a dollar sum of requests that are all
unpriced is null ("unknown"), one that leaves some out says so ("$X + ?"), and a share of
no request is null ("-"), in the JSON, CSV, table and HTML of the real command. They read
$0 and 0.0 % before: an unpriced cloud spend as free, an empty window as all on the cloud
(found in review)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from router.ledger import LedgerWriter
from router.pricing import Pricer
from router.record import Record
from tests.ledger.known_ledger import write_known_ledger
from tests.ledger.unpriced_config import DAY, config, request_record
from tests.processes import smf_router

WINDOW = ("--since", "2026-03-01", "--until", "2026-03-02")


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    """math served by the cloud backend no price is known for; coding served locally, its
    counterfactual priced; one request refused before it was classified."""
    pricer = Pricer(config())
    writer = LedgerWriter(tmp_path / "ledger", process_tag="unknowns")
    for rid, route, backend, tier in (
        ("m", "math", "frontier", "cloud"),
        ("c", "coding", "local", "local"),
    ):
        record = request_record(rid, route, backend, tier)
        record.cost_usd, record.counterfactual_usd = pricer.price(record)
        writer.submit(record)
    refused = Record(request_id="bad", started_at=DAY)
    refused.outcome, refused.error_kind, refused.status = "client_error", "invalid_request", 400
    writer.submit(refused)
    writer.close()
    return tmp_path / "ledger"


def _report(ledger: Path, fmt: str, *window: str) -> str:
    done = smf_router("report", "--ledger", str(ledger), *(window or WINDOW), "--format", fmt)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _groups(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["key"]: g for g in data["groups"]}


def test_an_unpriced_cloud_spend_is_null_not_zero(ledger: Path) -> None:
    data = json.loads(_report(ledger, "json"))
    t, math = data["totals"], _groups(data)["math"]
    assert (t["unpriced_requests"], t["unpriced_cloud_requests"]) == (1, 1)
    assert t["cloud_usd"] is None  # the one cloud request is unpriced: no spend is known
    assert math["cloud_usd"] is None and math["counterfactual_usd"] is None
    coding = _groups(data)["coding"]
    assert t["counterfactual_usd"] == coding["counterfactual_usd"] > 0  # math's left out
    assert t["local_usd"] == coding["local_usd"] > 0
    assert _groups(data)["(none)"]["cloud_usd"] == 0  # no cloud request: exactly $0


def _table(text: str) -> dict[str, list[str]]:
    """The table's rows by key: key, requests, prompt and completion tokens, local share,
    cloud $, local $, counterfactual $, offloaded $, errors, fallbacks, ..."""
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in text.splitlines()]
    return {row[0]: row for row in rows if row}


def test_the_table_says_unknown_and_what_a_sum_leaves_out(ledger: Path) -> None:
    rows = _table(_report(ledger, "table"))
    assert rows["math"][5] == rows["math"][7] == "unknown"  # cloud $, counterfactual $
    assert rows["TOTAL"][5] == "unknown"
    assert rows["TOTAL"][7] == f"{rows['coding'][7]} + ?"  # coding's, math's left out
    assert rows["coding"][5] == "$0" and "+ ?" not in " ".join(rows["coding"])


def test_the_html_cards_say_the_cloud_spend_is_unknown(ledger: Path) -> None:
    page = _report(ledger, "html")
    assert "<b>unknown</b><span>spent on cloud (1 unpriced request(s) not in it)</span>" in page
    assert "<span>had everything gone to cloud (1 unpriced request(s) not in it)</span>" in page
    assert "<b>$0</b><span>spent on cloud" not in page


def test_the_csv_leaves_an_unknown_cell_empty(ledger: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(_report(ledger, "csv"))))
    total = rows[-1]
    assert total["route"] == "TOTAL" and total["cloud_usd"] == ""
    assert total["unpriced_cloud_requests"] == "1" and float(total["counterfactual_usd"]) > 0


def test_a_share_of_no_request_is_null_and_a_dash(tmp_path: Path, ledger: Path) -> None:
    """The `(none)` group holds only the refused request, none of it routed: no local share
    nor fallback rate. An empty window has no share, no error rate, at all."""
    none = _groups(json.loads(_report(ledger, "json")))["(none)"]
    assert none["local_share_requests"] is None and none["fallback_rate"] is None
    assert none["local_share_tokens"] is None and none["error_rate"] == 1.0
    known = write_known_ledger(tmp_path / "known")
    quiet = ("--since", "2026-02-01", "--until", "2026-02-02")  # before its first record
    t = json.loads(_report(known, "json", *quiet))["totals"]
    assert t["requests"] == 0
    shares = ("local_share_requests", "local_share_tokens", "error_rate", "fallback_rate")
    assert [t[k] for k in shares] == [None] * 4
    assert t["cloud_usd"] == t["offloaded_usd"] == 0  # no request: exactly $0
    total = _table(_report(known, "table", *quiet))["TOTAL"]
    assert (total[4], total[9], total[10]) == ("-", "-", "-") and "%" not in "".join(total)
    page = _report(known, "html", *quiet)
    assert "<b>-</b><span>of requests served locally</span>" in page
    text = _report(known, "csv", *quiet)
    total_row = list(csv.DictReader(io.StringIO(text)))[-1]
    assert [total_row[k] for k in shares] == [""] * 4
