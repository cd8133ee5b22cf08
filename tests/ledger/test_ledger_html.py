"""The HTML report opens in a real headless Chromium, offline, and its SVG charts render."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from router import report
from router.report_html import to_html
from tests.ledger.known_ledger import known_config, write_known_ledger

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
