"""The JSON report's `break_even.daily` lists every day the HTML charts draw, a quiet one as
$0: it listed only the days with records, so a line plotted from the JSON (a Grafana JSON
source, a script) jumped over the quiet days the HTML drew flat. Through the real
`smf-router report`, on a ledger written by the real writer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from router.report_svg import BOTTOM, H
from tests.ledger.known_ledger import local_days_ledger
from tests.processes import smf_router

SVG = {"svg": "http://www.w3.org/2000/svg"}


def _ledger(tmp_path: Path, days: tuple[int, ...]) -> list[str]:
    """One local request a day of `days` (from March 1), each saving $1 and charged $0;
    the report's arguments for it, with a config whose local box costs $100."""
    return local_days_ledger(tmp_path, days, 0.0, 1.0, 100.0)


def _report(args: list[str], fmt: str) -> str:
    done = smf_router("report", *args, "--format", fmt)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _drawn_days(html: str) -> list[list[str]]:
    """Each chart's day labels (`MM-DD`), in order."""
    charts = [ElementTree.fromstring(svg) for svg in re.findall(r"<svg .*?</svg>", html)]
    under = str(H - BOTTOM + 16)  # the labels' baseline, below the plot
    return [
        [str(t.text) for t in chart.findall("svg:text", SVG) if t.attrib["y"] == under]
        for chart in charts
    ]


@pytest.mark.parametrize(
    ("until", "quiet_end"),
    [("2026-03-06", ["2026-03-05"]), ("2026-03-06T12:00:00", ["2026-03-05", "2026-03-06"])],
    ids=["until-midnight", "until-midday"],
)
def test_daily_lists_every_day_of_the_window_a_quiet_one_as_zero(
    tmp_path: Path, until: str, quiet_end: list[str]
) -> None:
    """$1 saved on March 1, 2 and 4: the 3rd and the window's last days had no record.
    `daily` said three days, the HTML's charts five (or six, to a midday `until`)."""
    args = [*_ledger(tmp_path, (0, 1, 3)), "--since", "2026-03-01", "--until", until]
    data: dict[str, Any] = json.loads(_report(args, "json"))
    daily = data["break_even"]["daily"]
    days = [d["day"] for d in daily]
    assert days == ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04", *quiet_end]
    assert [d["recovered_usd"] for d in daily] == [1.0, 1.0, 0.0, 1.0] + [0.0] * len(quiet_end)
    assert sum(d["recovered_usd"] for d in daily) == data["break_even"]["recovered_usd"] == 3.0
    # the very days the HTML report of the same window draws, in each of its charts
    drawn = _drawn_days(_report(args, "html"))
    assert len(drawn) == 3
    for labels in drawn:
        assert labels == [day[5:] for day in days]


def test_daily_starts_at_the_first_day_with_records_not_at_since(tmp_path: Path) -> None:
    """As the charts do: a `--since` years back lists no day before the ledger's first
    record (the series would be thousands of zeros long); from it on, every day."""
    args = [*_ledger(tmp_path, (2, 4)), "--since", "2020-01-01", "--until", "2026-03-06"]
    daily = json.loads(_report(args, "json"))["break_even"]["daily"]
    assert [(d["day"], d["recovered_usd"]) for d in daily] == [
        ("2026-03-03", 1.0),
        ("2026-03-04", 0.0),
        ("2026-03-05", 1.0),
    ]
