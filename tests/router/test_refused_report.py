"""Refused requests in the report: errors with no cost, tokens or latency, grouped under
`(none)`, and left out of the local share and the fallback rate, which count traffic. The
rows come from a real router's refusals (`tests.router.refused_rows`) or a written ledger.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from router.ledger import LedgerWriter
from router.record import Record
from router.report import build
from router.report_render import to_csv
from tests.harness import RunningRouter
from tests.ledger.known_ledger import known_records, write_known_ledger
from tests.router.refused_rows import KEY, auth, refusing_router, rows


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    with refusing_router(tmp_path_factory.mktemp("refused")) as running:
        yield running


def test_the_report_counts_refusals_as_errors_without_cost_or_latency(
    proxy: RunningRouter,
) -> None:
    refused = httpx.post(proxy.url + "/chat/completions", json={}, headers=auth(KEY), timeout=10)
    assert refused.status_code == 400
    assert rows(proxy, refused.headers["x-request-id"])  # flushed
    report = build(Path(proxy.components.config.ledger.path), by="route")
    (none,) = [g for g in report["groups"] if g["key"] == "(none)"]
    assert none["requests"] >= 1 and none["error_rate"] == 1.0
    assert none["cloud_usd"] == none["local_usd"] == none["counterfactual_usd"] == 0
    assert none["prompt_tokens"] == none["completion_tokens"] == 0
    assert {entry["backend"] for entry in report["latency"]} == {"local"}  # the served one
    by_intent = build(Path(proxy.components.config.ledger.path), by="intent")
    assert "(none)" in {g["key"] for g in by_intent["groups"]} and "" not in {
        g["key"] for g in by_intent["groups"]
    }


def test_refusals_do_not_dilute_the_local_share_or_the_fallback_rate(tmp_path: Path) -> None:
    """The report divided the local share and the fallback rate by every request, refused
    ones included: a client's stream of bad requests read as traffic leaving the local box
    (found in review; the dashboards already left them out)."""
    plain = build(write_known_ledger(tmp_path / "plain"))["totals"]
    writer = LedgerWriter(tmp_path / "refused", process_tag="refused")
    for record in known_records():
        writer.submit(record)
    started = known_records()[0].started_at
    for n in range(6):  # a client's bad bodies: no route, no backend
        refused = Record(request_id=f"bad{n}", started_at=started, caller="alice")
        refused.outcome, refused.error_kind, refused.status = "client_error", "invalid_request", 400
        writer.submit(refused)
    writer.close()
    report = build(tmp_path / "refused")
    totals = report["totals"]
    assert (totals["requests"], totals["refused"]) == (plain["requests"] + 6, 6)
    shares = ("local_share_requests", "local_share_tokens", "fallback_rate")
    assert [totals[k] for k in shares] == [plain[k] for k in shares]
    assert totals["error_rate"] > plain["error_rate"]  # refusals are errors all the same
    assert sum(day["requests"] for day in report["local_share"]) == plain["requests"]
    total = list(csv.DictReader(io.StringIO(to_csv(report))))[-1]  # the CSV says it too
    assert (total["route"], total["refused"]) == ("TOTAL", "6")
