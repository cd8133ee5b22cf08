"""The HTML report opens in a real headless Chromium, offline, and its SVG charts render
and agree with the numbers printed beside them."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from xml.etree import ElementTree

import pytest

from router import report
from router.config import parse
from router.ledger import LedgerWriter
from router.pricing import MONTH_S
from router.record import Attempt, Record
from router.report_break_even import DAY_S
from router.report_html import to_html
from router.report_svg import BOTTOM, TOP, H
from tests.ledger.known_ledger import DAY1, known_config, local_days_ledger, write_known_ledger
from tests.processes import smf_router

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def chromium() -> str:
    path = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if path is None:
        if os.environ.get("SMF_REQUIRE_SYSTEM_TOOLS"):
            pytest.fail("chromium is required (SMF_REQUIRE_SYSTEM_TOOLS is set) but missing")
        pytest.skip("chromium is not installed")
    return path


def run_chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    base = [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
    ]
    return subprocess.run([*base, *args], capture_output=True, text=True, timeout=90, check=False)


def html_of_local_days(
    tmp_path: Path,
    days: tuple[int, ...],
    until: str,
    hardware: float | None,
    cost_usd: float,
    counterfactual_usd: float,
) -> str:
    """`smf-router report --format html` over one local request a day of `days` (counted
    from March 1), each costing `cost_usd` and displacing `counterfactual_usd`; with
    `hardware`, a config whose local box costs that much."""
    args = local_days_ledger(tmp_path, days, cost_usd, counterfactual_usd, hardware)
    args += ["--since", "2026-03-01", "--until", until]
    done = smf_router("report", *args, "--format", "html")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_html_report_renders_its_charts_in_chromium(tmp_path: Path) -> None:
    binary = chromium()
    ledger = write_known_ledger(tmp_path / "ledger")
    html = to_html(report.build(ledger, config=known_config()))
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")  # nothing fetched
    assert "https://" not in html and "<script" not in html
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    url = page.as_uri()

    dom = run_chromium(binary, tmp_path / "p1", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert dom.stdout.count("<svg") == 3
    assert len(re.findall(r"<rect class=\"bar\"", dom.stdout)) >= 4
    assert "<polyline" in dom.stdout and "local hardware cost" in dom.stdout
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line]
    assert console == [], console

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "ledger-report.png"
    shot.unlink(missing_ok=True)
    result = run_chromium(
        binary, tmp_path / "p2", f"--screenshot={shot}", "--window-size=1100,1800", url
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert shot.stat().st_size > 10_000  # a blank page is a few KB


def test_the_savings_chart_crosses_the_hardware_price_on_the_day_payback_says(
    tmp_path: Path,
) -> None:
    """The chart drew offloaded dollars alone, from which the amortisation charged to local
    requests is taken out, while `payback_months` adds it back: its line crossed the
    hardware price later than the page's own payback, or never (found in review). Here a
    day offloads $0.50 after $0.50 of amortisation, so $1.00 a day pays back $2.50 on the
    third day; offloaded dollars alone ($2.00 in four days) never would."""
    writer = LedgerWriter(tmp_path, process_tag="days")
    for i in range(4):
        served = Attempt("local", "local", duration_s=3600.0)
        writer.submit(
            Record(
                f"r{i}",
                DAY1 + i * DAY_S,
                backend="local",
                tier="local",
                attempts=[served],
                duration_s=3600.0,
                cost_usd=0.5,
                counterfactual_usd=1.0,
            )
        )
    writer.close()
    # $2.50 written off at $0.50 per hour of serving
    months = 2.5 / (0.5 / 3600) / MONTH_S
    box = {"hardware_usd": 2.5, "amortization_months": months}
    local = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    cloud = {**local, "name": "cloud", "tier": "cloud"}
    config = parse({"backends": [{**local, "local_cost": box}, cloud]})
    # the rate of the 4 days that had traffic: to now, it was diluted over months
    data = report.build(tmp_path, until=datetime(2026, 3, 5, tzinfo=UTC), config=config)
    be = data["break_even"]
    payback_days = be["payback_months"] * MONTH_S / DAY_S
    paid = datetime.fromtimestamp(DAY1, UTC) + timedelta(days=payback_days)
    assert paid.date().isoformat() == "2026-03-03"

    html = to_html(data)
    (line,) = re.findall(r"<polyline class='line' points='([^']*)'", html)
    target = float(re.findall(r"<line class='target'[^>]* y1='([0-9.]+)'", html)[0])
    heights = [float(point.split(",")[1]) for point in line.split()]
    days = [d["day"] for d in data["local_share"]]
    assert len(heights) == len(days) == 4
    crossing = next((i for i, y in enumerate(heights) if y <= target), None)  # SVG y: down
    assert crossing is not None, "the line never reaches the hardware price"
    assert days[crossing] == paid.date().isoformat()


@pytest.mark.parametrize("hardware", [None, 1.0])
def test_the_savings_chart_draws_a_loss_below_zero_and_inside_its_frame(
    tmp_path: Path, hardware: float | None
) -> None:
    """Local serving that cost more than the cloud would have ($1 against $0.50 a day) is a
    loss growing each day. The axis ran from 0 to 1.1 × the largest value: negative when
    every value was, drawn upside down; with a hardware price above zero, the loss fell
    below the frame (found in review)."""
    stdout = html_of_local_days(tmp_path, (0, 1, 2), "2026-03-04", hardware, 1.0, 0.5)
    chart = ElementTree.fromstring(re.findall(r"<svg .*?</svg>", stdout)[-1])
    ns = {"svg": "http://www.w3.org/2000/svg"}
    (line,) = chart.findall("svg:polyline[@class='line']", ns)
    heights = [float(point.split(",")[1]) for point in line.attrib["points"].split()]
    assert len(heights) == 3
    top, bottom = TOP, H - BOTTOM
    assert all(top <= y <= bottom for y in heights), heights  # within the frame
    (zero,) = chart.findall("svg:line[@class='zero']", ns)
    zero_y = float(zero.attrib["y1"])
    assert top <= zero_y < bottom
    for y in heights:  # SVG y grows downwards: below zero is a larger y
        assert zero_y < y, (zero_y, heights)
    assert heights == sorted(heights)  # -$0.50, -$1, -$1.50: each lower than the last


@pytest.mark.parametrize("hardware", [None, 100.0])
def test_a_quiet_day_is_drawn_flat_between_its_neighbours(
    tmp_path: Path, hardware: float | None
) -> None:
    """$1 saved on March 1, 2 and 4, nothing on the 3rd nor the 5th: the charts drew
    only the days with rows, side by side, so the 4th followed the 2nd a day apart and the
    savings line climbed $1 a day where it had climbed $1 in two (found in review). Every
    day of the window is drawn; a quiet one adds nothing."""
    stdout = html_of_local_days(tmp_path, (0, 1, 3), "2026-03-06", hardware, 0.0, 1.0)
    ns = {"svg": "http://www.w3.org/2000/svg"}
    charts = [ElementTree.fromstring(svg) for svg in re.findall(r"<svg .*?</svg>", stdout)]
    for chart in charts:  # each chart's day labels: one per day, the quiet ones too
        labels = [
            t.text for t in chart.findall("svg:text", ns) if t.attrib["y"] == str(H - BOTTOM + 16)
        ]
        assert labels == ["03-01", "03-02", "03-03", "03-04", "03-05"], labels
    titles = [str(t.text) for t in charts[0].findall("svg:rect[@class='bar']/svg:title", ns)]
    assert [t[:10] for t in titles] == ["2026-03-01", "2026-03-02", "2026-03-04"]
    (line,) = charts[-1].findall("svg:polyline[@class='line']", ns)
    points = [tuple(map(float, p.split(","))) for p in line.attrib["points"].split()]
    xs, ys = [x for x, _ in points], [y for _, y in points]
    assert len(points) == 5
    assert len({round(b - a, 1) for a, b in itertools.pairwise(xs)}) == 1  # a day apart
    # $1, $2, $2, $3, $3: flat over the 3rd and the 5th, up by as much on the 2nd and 4th
    assert ys[1] == ys[2] and ys[3] == ys[4]
    assert ys[0] - ys[1] == pytest.approx(ys[2] - ys[3], abs=0.2) and ys[0] > ys[1]
