"""The report's per-day series (`local_share`, `daily_by_route`, `daily_by_backend`) list
every day of the window, a quiet one as zeros for each route and backend of the window,
and a share of nothing as null: they listed only the days with records, so a line plotted
from the JSON jumped over a quiet weekend and a mean per day over the rows left it out.
And the table and HTML page say per group how many local requests were not credited, as
JSON and CSV did. Through the real `smf-router report`, on a ledger written by the real
writer, read raw and from its rollups."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import yaml

from router.ledger import Ledger, LedgerWriter, compaction
from router.record import Attempt, Outcome, Record, Usage
from router.report_svg import BOTTOM, H
from tests.processes import smf_router

SVG = {"svg": "http://www.w3.org/2000/svg"}
MARCH_1 = datetime(2026, 3, 1, 10, tzinfo=UTC).timestamp()
MARCH_3 = datetime(2026, 3, 3, 10, tzinfo=UTC).timestamp()
DAYS = ["2026-03-01", "2026-03-02", "2026-03-03"]  # the 2nd had no request
GAP = "2026-03-02"
WINDOW = ["--since", "2026-03-01", "--until", "2026-03-04"]


def _record(rid: str, at: float, route: str, tier: str, outcome: Outcome = "ok") -> Record:
    """A request served by the `tier` backend (named as its tier) on `route`: a local one
    costs $0.01 and displaces $0.30 when it delivered; a cloud one costs $0.20."""
    ok = outcome == "ok"
    return Record(
        rid,
        at,
        route=route,
        intent=route,
        backend=tier,
        tier=tier,  # type: ignore[arg-type]
        outcome=outcome,
        attempts=[Attempt(tier, tier, "ok" if ok else "error", duration_s=1.0)],  # type: ignore[arg-type]
        usage=Usage(1000, 200) if ok else Usage(),
        duration_s=1.0,
        cost_usd=0.01 if tier == "local" else 0.2,
        counterfactual_usd=(0.3 if ok else 0.0) if tier == "local" else 0.2,
    )


@pytest.fixture(params=["raw", "rolled-up"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """March 1: a local request on `coding`, a cloud one on `math`; March 2: nothing;
    March 3: a local request on `coding` that failed (no tokens, not credited). Read from
    its records, or with both days rolled up (`compact`)."""
    directory = tmp_path / "ledger"
    writer = LedgerWriter(directory, process_tag="dense")
    writer.submit(_record("a", MARCH_1, "coding", "local"))
    writer.submit(_record("b", MARCH_1 + 60, "math", "cloud"))
    writer.submit(_record("c", MARCH_3, "coding", "local", "upstream_error"))
    writer.close()
    if request.param == "rolled-up":
        assert compaction.compact(directory, now=datetime(2026, 3, 10, tzinfo=UTC)).rollups == 2
        with Ledger(directory) as read:
            assert read.use_rollups(datetime(2026, 3, 1), datetime(2026, 3, 4)) == 2
    return directory


def _config(tmp_path: Path) -> Path:
    """A config whose local box costs $100: the report then has a `break_even`."""
    local = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    box = {"hardware_usd": 100, "amortization_months": 36}
    cloud = {**local, "name": "cloud", "tier": "cloud", "model": "gpt-4o"}
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump({"backends": [{**local, "local_cost": box}, cloud]}))
    return path


def _report(ledger: Path, fmt: str, *more: str) -> str:
    done = smf_router("report", "--ledger", str(ledger), *WINDOW, "--format", fmt, *more)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_each_series_lists_the_quiet_day_for_each_route_and_backend(
    ledger: Path, tmp_path: Path
) -> None:
    data: dict[str, Any] = json.loads(_report(ledger, "json", "--config", str(_config(tmp_path))))
    assert [d["day"] for d in data["break_even"]["daily"]] == DAYS  # the one list of days
    assert data["local_share"] == [
        {
            "day": "2026-03-01",
            "requests": 2,
            "local_requests": 1,
            "share_requests": 0.5,
            "tokens": 2400,
            "local_tokens": 1200,
            "share_tokens": 0.5,
        },
        {  # nothing routed: no share, not a share of 0 %
            "day": GAP,
            "requests": 0,
            "local_requests": 0,
            "share_requests": None,
            "tokens": 0,
            "local_tokens": 0,
            "share_tokens": None,
        },
        {  # one request, served by local, failed before any token: no share of tokens
            "day": "2026-03-03",
            "requests": 1,
            "local_requests": 1,
            "share_requests": 1.0,
            "tokens": 0,
            "local_tokens": 0,
            "share_tokens": None,
        },
    ]
    # each key, each day: a key quiet on a day with traffic (math, cloud on the 3rd) too
    for series, keys, requests in (
        ("daily_by_route", ["coding", "math"], [1, 1, 0, 0, 1, 0]),
        ("daily_by_backend", ["cloud", "local"], [1, 1, 0, 0, 0, 1]),
    ):
        rows = data[series]
        assert [(r["day"], r["key"]) for r in rows] == [(d, k) for d in DAYS for k in keys]
        assert [r["requests"] for r in rows] == requests
        quiet = [(r["requests"], r["tokens"], r["offloaded_usd"]) for r in rows if r["day"] == GAP]
        assert quiet == [(0, 0, 0.0)] * 2
    by_route = {(r["day"], r["key"]): r for r in data["daily_by_route"]}
    assert by_route["2026-03-01", "coding"]["offloaded_usd"] == pytest.approx(0.29)
    assert by_route["2026-03-03", "coding"]["offloaded_usd"] == pytest.approx(-0.01)
    assert sum(r["requests"] for r in data["local_share"]) == data["totals"]["requests"]


def _charts(html: str) -> list[ElementTree.Element]:
    return [ElementTree.fromstring(svg) for svg in re.findall(r"<svg .*?</svg>", html)]


def test_the_html_charts_draw_the_quiet_day_empty(ledger: Path) -> None:
    """Each chart labels the quiet day in its place, and the bar charts draw nothing there."""
    charts = _charts(_report(ledger, "html"))
    under = str(H - BOTTOM + 16)  # the day labels' baseline, below the plot
    for chart in charts:
        labels = [t.text for t in chart.findall("svg:text", SVG) if t.attrib["y"] == under]
        assert labels == [day[5:] for day in DAYS]
    share, tokens = charts[:2]
    bars = [str(rect.findtext("svg:title", "", SVG)) for rect in share.findall("svg:rect", SVG)]
    bars = [title for title in bars if title]  # the legend's squares have no title
    assert [b.split(":")[0] for b in bars] == [
        "2026-03-01 cloud",
        "2026-03-01 local",
        "2026-03-03 local",
    ]
    drawn = [str(r.findtext("svg:title", "", SVG)) for r in tokens.findall("svg:rect", SVG)]
    assert not [title for title in drawn if title.startswith(GAP)]


def test_the_table_and_html_say_per_group_how_many_were_not_credited(ledger: Path) -> None:
    """The line under the table said how many local requests failed, not credited, in all;
    which route they were on was in JSON and CSV alone."""
    said = "1 of 2 local request(s) failed, not credited"
    table = _report(ledger, "table")
    assert said in table
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in table.splitlines()]
    header = next(line for line in table.splitlines() if "requests" in line)
    assert header.split("┃")[-2].strip() == "not credited"
    cells = {row[0]: row[-1] for row in rows if row}
    assert cells == {"coding": "1", "math": "0", "TOTAL": "1"}

    html = _report(ledger, "html")
    assert said in html
    (groups,) = re.findall(r"<table><tr><th>route</th>.*?</table>", html)
    assert "<th>not credited</th></tr>" in groups
    last = dict(re.findall(r"<tr><td>([^<]*)</td>(?:<td>[^<]*</td>)*<td>([^<]*)</td></tr>", groups))
    assert last == {"coding": "1", "math": "0", "total": "1"}

    (header_row, *body) = list(csv.reader(io.StringIO(_report(ledger, "csv"))))
    counts = {row[0]: row[header_row.index("uncredited_local_requests")] for row in body}
    assert counts == {"coding": "1", "math": "0", "TOTAL": "1"}


def test_a_table_without_failed_local_requests_has_no_such_column(tmp_path: Path) -> None:
    """As the `unpriced` column: only when there is something to count."""
    writer = LedgerWriter(tmp_path / "ledger", process_tag="ok")
    writer.submit(_record("a", MARCH_1, "coding", "local"))
    writer.close()
    for fmt in ("table", "html"):
        out = _report(tmp_path / "ledger", fmt)
        assert "not credited" not in out
