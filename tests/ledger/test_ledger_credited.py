"""A local request's counterfactual (the cloud spend it displaced) is credited only when it
delivered its answer, or was cancelled mid-answer: a local stream that failed credited the
cloud price of the prompt its client got an error for, and the report counted it as
offloaded (found in review: `local, upstream_error, counterfactual 6.75e-05`)."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import openai
import pytest

from router import report
from router.config import parse
from router.ledger import Ledger, LedgerWriter, compaction
from router.record import Attempt, Outcome, Record, Usage
from tests.harness import config_for, router, scrape, simulator
from tests.processes import smf_router

ASK = [{"role": "user", "content": "Write a Python function that reverses a list."}]
PRICE = {"input_per_mtok": 3, "output_per_mtok": 15}  # Sonnet's, on the cloud backend


def _stream(client: openai.OpenAI, ask: str) -> bool:
    """Stream one answer from the local backend; whether it ended without an error."""
    try:
        stream = client.chat.completions.create(
            model="local",  # forced: its counterfactual is the first cloud backend's price
            messages=[{"role": "user", "content": ask}],
            stream=True,
            max_tokens=40,
        )
        for _ in stream:
            pass
    except openai.APIError:
        return False
    return True


def test_a_local_stream_that_failed_is_not_credited_live_nor_in_the_report(
    tmp_path: Path,
) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="vllm", model="cloud-model") as cloud,
    ):
        base = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump()
        for backend in base["backends"]:
            if backend["name"] == "cloud":
                backend["price"] = PRICE
        with router(parse(base)) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0, timeout=30)
            ended = [_stream(client, "Reverse a list in Python.")]
            for fault in ("cut_stream", "error_event:5"):
                local.control("faults", {"fault": fault})
                ended.append(_stream(client, f"Reverse a list in Python ({fault})."))
            local.control("faults", {"fault": None})
            metrics = scrape(proxy.root)
    assert ended == [True, False, False]  # the router has stopped: its ledger is flushed
    with Ledger(tmp_path / "ledger") as read:
        rows = read.sql(
            "SELECT outcome, backend, cost_usd, counterfactual_usd FROM records ORDER BY started_at"
        )
    [(outcome, backend, cost, credited), *failed] = rows
    assert (outcome, backend, cost) == ("ok", "local", 0.0) and credited > 0
    # cut, and ended by an error: served by local (committed), no answer delivered
    assert failed == [("upstream_error", "local", 0.0, 0.0)] * 2
    totals = report.build(tmp_path / "ledger", since=datetime(2026, 1, 1, tzinfo=UTC))["totals"]
    assert totals["requests"] == 3 and totals["local_requests"] == 3
    assert totals["counterfactual_usd"] == totals["offloaded_usd"] == round(credited, 10)
    live = sum(
        value
        for (name, labels), value in metrics.samples.items()
        if name in ("smf_router_counterfactual_usd_total", "smf_router_offloaded_usd_total")
        and ("backend", "local") in labels
    )
    assert live == pytest.approx(2 * credited)  # each counter counted the delivered one only


DAY = datetime(2026, 3, 2, 10, tzinfo=UTC).timestamp()


def _old_row(rid: str, outcome: Outcome, tier: str, cost: float, counterfactual: Any) -> Record:
    """A row as the router wrote it before 2026-12-05: the route's cloud price whatever the
    local request's outcome (None: that price was unknown)."""
    return Record(
        rid,
        DAY,
        route="coding",
        intent="coding",
        backend=tier,
        tier=tier,  # type: ignore[arg-type]
        outcome=outcome,
        attempts=[Attempt(tier, tier, "ok" if outcome == "ok" else "error", duration_s=2.0)],  # type: ignore[arg-type]
        usage=Usage(100_000, 500),
        duration_s=2.0,
        cost_usd=cost,
        counterfactual_usd=counterfactual,
    )


def test_an_older_ledgers_failed_local_requests_are_read_by_the_same_rule(tmp_path: Path) -> None:
    """Rows written before the rule are read by it, raw and rolled up alike: the report of
    an old ledger and of a new one agree."""
    writer = LedgerWriter(tmp_path, process_tag="old")
    for row in (
        _old_row("ok", "ok", "local", 0.01, 0.3),
        _old_row("cut", "upstream_error", "local", 0.01, 0.3),  # credited $0.30 before
        _old_row("bug", "router_error", "local", 0.01, None),  # counted unpriced before
        _old_row("left", "cancelled", "local", 0.01, 0.05),  # the client hung up mid-answer
        _old_row("retry", "ok", "cloud", 0.3, 0.3),  # the failed one's retry, paid for
        _old_row("cloud_cut", "upstream_error", "cloud", 0.2, 0.2),  # the cloud bills it
    ):
        writer.submit(row)
    writer.close()
    raw = report.build(tmp_path, since=datetime(2026, 3, 1, tzinfo=UTC))
    totals = raw["totals"]
    assert totals["unpriced_requests"] == 0  # a failed request displaced nothing: known
    assert totals["cloud_usd"] == 0.5 and totals["local_usd"] == 0.04
    assert totals["counterfactual_usd"] == pytest.approx(0.3 + 0.05 + 0.5)
    # each local request's cost; the cloud price of those that delivered or were cancelled
    assert totals["offloaded_usd"] == pytest.approx((0.3 - 0.01) + (0.05 - 0.01) - 0.02)
    assert totals["offloaded_usd"] == pytest.approx(
        totals["counterfactual_usd"] - totals["cloud_usd"] - totals["local_usd"]
    )
    now = datetime(2026, 3, 10, tzinfo=UTC)
    assert compaction.compact(tmp_path, now=now).rollups == 1
    with Ledger(tmp_path) as read:
        assert read.use_rollups(datetime(1970, 1, 1), datetime(9999, 1, 1)) == 1
    rolled = report.build(tmp_path, since=datetime(2026, 3, 1, tzinfo=UTC))
    assert rolled["totals"] == totals and rolled["groups"] == raw["groups"]


def _formats(ledger: Path) -> dict[str, str]:
    """`smf-router report` of March 1-4 in each format, as a reader gets it."""
    out = {}
    for fmt in ("json", "table", "csv", "html"):
        args = ["--ledger", str(ledger), "--since", "2026-03-01", "--until", "2026-03-05"]
        done = smf_router("report", *args, "--format", fmt)
        assert done.returncode == 0, done.stderr
        out[fmt] = done.stdout
    return out


def test_the_report_says_how_many_local_requests_failed_and_are_not_credited(
    tmp_path: Path,
) -> None:
    """The report's "offloaded $0.31" said nothing of the two local requests that failed,
    whose cloud price it leaves out (found in review): the table, the HTML page, the JSON
    and the CSV count them, raw and rolled up alike; a cloud request that failed is not one."""
    writer = LedgerWriter(tmp_path, process_tag="now")
    for row in (
        _old_row("ok", "ok", "local", 0.01, 0.3),
        _old_row("cut", "upstream_error", "local", 0.01, 0.0),
        _old_row("bug", "router_error", "local", 0.01, 0.0),
        _old_row("left", "cancelled", "local", 0.01, 0.05),
        _old_row("cloud_cut", "upstream_error", "cloud", 0.2, 0.2),
    ):
        writer.submit(row)
    writer.close()
    said = "2 of 4 local request(s) failed, not credited"
    raw = _formats(tmp_path)
    data = json.loads(raw["json"])
    assert data["totals"]["uncredited_local_requests"] == 2
    assert data["totals"]["offloaded_usd"] == pytest.approx(0.35 - 0.04)
    assert [(g["key"], g["uncredited_local_requests"]) for g in data["groups"]] == [("coding", 2)]
    assert said in raw["table"] and said in raw["html"]
    (header, *_, total) = list(csv.reader(io.StringIO(raw["csv"])))
    assert dict(zip(header, total, strict=True))["uncredited_local_requests"] == "2"
    assert compaction.compact(tmp_path, now=datetime(2026, 3, 10, tzinfo=UTC)).rollups == 1
    with Ledger(tmp_path) as read:
        assert read.use_rollups(datetime(1970, 1, 1), datetime(9999, 1, 1)) == 1
    rolled = _formats(tmp_path)
    assert json.loads(rolled["json"])["totals"] == data["totals"]
    assert said in rolled["table"] and said in rolled["html"]
