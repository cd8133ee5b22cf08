"""The report's JSON and CSV content on a ledger with hand-checked numbers."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from router import report, report_window
from router.ledger import Ledger, LedgerWriter, compaction
from router.ledger.cli import app
from router.pricing import MONTH_S
from router.record import Attempt, Record, Usage
from router.report_html import to_html
from router.report_render import to_csv, to_json, to_table
from tests.ledger.known_ledger import DAY1 as DAY
from tests.ledger.known_ledger import known_config, write_known_ledger


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    return write_known_ledger(tmp_path / "ledger")


def test_totals_on_the_known_ledger(ledger: Path) -> None:
    data = report.build(ledger, config=known_config())
    t = data["totals"]
    assert t["requests"] == 4
    assert (t["prompt_tokens"], t["completion_tokens"]) == (6000, 2500)
    assert t["cloud_usd"] == pytest.approx(0.2)
    assert t["local_usd"] == pytest.approx(0.03)
    assert t["counterfactual_usd"] == pytest.approx(1.0)  # 0.5 + 0.2 + 0.3; failed c costs 0
    assert t["offloaded_usd"] == pytest.approx(0.77)  # (0.5 - 0.01) + (0.3 - 0.02)
    assert t["local_share_requests"] == 0.5
    assert t["local_share_tokens"] == pytest.approx(5500 / 8500, abs=1e-6)
    assert t["error_rate"] == 0.25
    assert t["fallback_rate"] == 0.5  # c and d each tried two backends
    assert data["price_map_version"].startswith("litellm-")
    assert data["warnings"] == []


def test_groups_by_route_and_by_day(ledger: Path) -> None:
    by_route = {g["key"]: g for g in report.build(ledger, by="route")["groups"]}
    assert by_route["coding"]["requests"] == 3
    assert by_route["coding"]["offloaded_usd"] == pytest.approx(0.77)
    assert by_route["math"]["cloud_usd"] == pytest.approx(0.2)
    days = report.build(ledger, by="day")["groups"]
    assert [(g["key"], g["requests"]) for g in days] == [("2026-03-01", 2), ("2026-03-02", 2)]
    callers = {g["key"]: g["requests"] for g in report.build(ledger, by="caller")["groups"]}
    assert callers == {"alice": 2, "bob": 2}
    backends = {g["key"] for g in report.build(ledger, by="backend")["groups"]}
    assert backends == {"local", "cloud", "(none)"}


def test_local_share_latency_and_break_even(ledger: Path) -> None:
    data = report.build(ledger, until=datetime(2026, 3, 3, tzinfo=UTC), config=known_config())
    assert [(d["day"], d["share_requests"]) for d in data["local_share"]] == [
        ("2026-03-01", 0.5),
        ("2026-03-02", 0.5),
    ]
    lat = {x["backend"]: x for x in data["latency"]}
    assert lat["local"]["requests"] == 2
    assert lat["local"]["ttft_s"]["p50"] == pytest.approx(0.2)
    assert lat["cloud"]["total_s"]["p99"] == pytest.approx(3.0)
    be = data["break_even"]
    assert be["hardware_usd"] == 3000
    # Two serving attempts of 1 s: d's 2 s include a second lost on a rate-limited cloud
    # attempt, which its cost (pricing.served_duration) does not charge either.
    amortized = 2.0 * 3000 / 36 / MONTH_S
    assert be["recovered_usd"] == pytest.approx(0.77 + amortized, abs=1e-6)
    # from the midnight before the first record (DAY1 10:00) to `until`, March 3: 2 days
    window = 2.0
    assert be["window_days"] == pytest.approx(window, abs=1e-3)
    per_month = (0.77 + amortized) / window * MONTH_S / 86400
    assert be["payback_months"] == pytest.approx(3000 / per_month, abs=0.01)
    assert report.build(ledger)["break_even"] is None  # no config, no hardware price


def test_time_window_filters_records(ledger: Path) -> None:
    since = datetime(2026, 3, 2, tzinfo=UTC)
    data = report.build(ledger, since=since)
    assert data["totals"]["requests"] == 2
    until = datetime(2026, 3, 1, 10, 0, 30, tzinfo=UTC)
    assert report.build(ledger, until=until)["totals"]["requests"] == 1


def test_a_window_ending_at_midnight_does_not_read_the_next_day(ledger: Path) -> None:
    """`until` is exclusive, yet a window ending at midnight listed that day's files too, and
    warned of a damaged one there that no number of the report came from (found in review)."""
    junk = ledger / "records" / "day=2026-03-02" / "junk.parquet"
    junk.write_bytes(b"garbage")
    until = datetime(2026, 3, 2, tzinfo=UTC)
    data = report.build(ledger, since=datetime(2026, 3, 1, tzinfo=UTC), until=until)
    assert data["totals"]["requests"] == 2
    assert data["warnings"] == []
    later = report.build(ledger, until=datetime(2026, 3, 2, 0, 0, 1, tzinfo=UTC))
    assert [w for w in later["warnings"] if str(junk) in w]  # a day the window reaches


def test_estimated_token_counts_are_counted_in_every_format(tmp_path: Path) -> None:
    """Token counts the router estimated (no usage from the backend, a stream cut short)
    were summed with the backends' own and no output said so (found in review). Counted
    from raw records and from a compacted day's rollup alike."""
    writer = LedgerWriter(tmp_path, process_tag="est")
    for rid, estimated in (("a", True), ("b", False), ("c", True)):
        usage = Usage(100, 20, estimated=estimated)
        writer.submit(Record(rid, DAY, route="coding", backend="local", tier="local", usage=usage))
    writer.close()
    raw = report.build(tmp_path)
    assert compaction.compact(tmp_path, now=datetime(2026, 3, 10, tzinfo=UTC)).rollups == 1
    for data in (raw, report.build(tmp_path)):
        t = data["totals"]
        assert (t["estimated_requests"], t["estimated_tokens"]) == (2, 240)
        assert data["groups"][0]["estimated_requests"] == 2
    rows = list(csv.DictReader(io.StringIO(to_csv(raw))))
    assert (rows[-1]["estimated_requests"], rows[-1]["estimated_tokens"]) == ("2", "240")
    note = "240 of the tokens (2 request(s)) are the router's estimates"
    assert note in to_table(raw) and html.escape(note) in to_html(raw)
    assert "est. tok" in to_table(raw) and "<th>estimated tokens</th>" in to_html(raw)


def test_json_and_csv_renderings(ledger: Path) -> None:
    data = report.build(ledger, by="intent")
    assert json.loads(to_json(data))["totals"]["requests"] == 4
    rows = list(csv.DictReader(io.StringIO(to_csv(data))))
    assert [r["intent"] for r in rows] == ["coding", "math", "TOTAL"]
    assert rows[0]["requests"] == "3"
    assert float(rows[0]["offloaded_usd"]) == pytest.approx(0.77)
    assert float(rows[-1]["counterfactual_usd"]) == pytest.approx(1.0)
    assert "TOTAL" in to_table(data)


def test_the_table_prints_key_names_and_warnings_as_text_not_markup(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger[/]x"
    writer = LedgerWriter(ledger)
    for caller in ("ci[bot]", "ops[/]"):
        writer.submit(Record(caller, time.time(), caller=caller, backend="x", tier="local"))
    writer.close()
    junk = next((ledger / "records").iterdir()) / "junk.parquet"
    junk.write_bytes(b"garbage")
    result = CliRunner().invoke(app, ["report", "--ledger", str(ledger), "--by", "caller"])
    assert result.exit_code == 3, result.output  # written, a file skipped: partial
    assert "│ ci[bot] " in result.output and "│ ops[/] " in result.output
    assert f"warning: skipped unreadable segment {junk}" in result.output


def test_a_retry_on_the_same_backend_is_not_a_fallback(tmp_path: Path) -> None:
    """fallback_rate is the share of requests that tried more than one backend: a retry
    after a short Retry-After, on the same backend, was counted as a fallback too."""
    limited = Attempt("local", "local", "error", "rate_limited", 429, 0.1)
    writer = LedgerWriter(tmp_path)
    for name, backend, tier in (("retried", "local", "local"), ("moved", "cloud", "cloud")):
        attempts = [limited, Attempt(backend, tier)]
        writer.submit(Record(name, time.time(), backend=backend, tier=tier, attempts=attempts))
    writer.close()
    with Ledger(tmp_path) as ledger:
        rows = ledger.sql("SELECT request_id, fallbacks FROM records ORDER BY 1")
    assert rows == [("moved", 1), ("retried", 0)]
    assert report.build(tmp_path)["totals"]["fallback_rate"] == 0.5


def test_n_attempts_counts_the_attempts_that_ran(tmp_path: Path) -> None:
    """A backend skipped after another's context-length refusal is in `attempts` as
    `skipped`; counted in n_attempts, the row said 3 where `x-smf-attempts` and
    `smf_router_attempts_total` said 2 (found in review)."""
    attempts = [
        Attempt("small", "local", "error", "context_too_long", 400, 0.1),
        Attempt("small2", "local", "skipped"),
        Attempt("cloud", "cloud"),
    ]
    writer = LedgerWriter(tmp_path)
    writer.submit(Record("r", time.time(), backend="cloud", tier="cloud", attempts=attempts))
    writer.close()
    with Ledger(tmp_path) as ledger:
        rows = ledger.sql("SELECT n_attempts, len(attempts), fallbacks FROM records")
    assert rows == [(2, 3, 1)]


def test_empty_ledger_reports_zeros(tmp_path: Path) -> None:
    data = report.build(tmp_path)
    assert data["totals"]["requests"] == 0
    assert data["groups"] == [] and data["latency"] == []


def test_cli_report_json_and_bad_since(ledger: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = CliRunner().invoke(
        app,
        [
            "report",
            "--ledger",
            str(ledger),
            "--since",
            "2026-01-01",
            "--format",
            "json",
            "--out",
            str(out),
            "--by",
            "caller",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["by"] == "caller"
    bad = CliRunner().invoke(app, ["report", "--ledger", str(ledger), "--since", "yesterday"])
    assert bad.exit_code != 0
    assert "neither a time before now" in words(bad.output)
    swapped = ["--since", "2030-01-02", "--until", "2030-01-01"]  # 0 requests, $0, before
    refused = CliRunner().invoke(app, ["report", "--ledger", str(ledger), *swapped])
    assert refused.exit_code == 2 and "must be after --since" in words(refused.output)


def words(output: str) -> str:
    """A CLI error's text without the box rich draws around it and its line breaks."""
    return " ".join(re.sub("[│╭╮╰╯─]", " ", output).split())


def test_cli_report_on_a_missing_ledger_says_so_and_writes_into_new_directories(
    ledger: Path, tmp_path: Path
) -> None:
    """A mistyped --ledger printed a table of zeros with status 0, and --out into a
    directory that did not exist ended in a traceback (found in review)."""
    typo = CliRunner().invoke(app, ["report", "--ledger", str(tmp_path / "leger")])
    assert typo.exit_code == 2 and "no ledger at" in typo.output
    out = tmp_path / "reports" / "2026" / "r.html"
    made = CliRunner().invoke(
        app, ["report", "--ledger", str(ledger), "--format", "html", "--out", str(out)]
    )
    assert made.exit_code == 0, made.output
    assert out.read_text().startswith("<!doctype html>")


def test_cli_report_to_a_path_it_cannot_write_says_so(ledger: Path, tmp_path: Path) -> None:
    """`--out` naming a directory, or a place no directory can be made, ended in a
    traceback (found in review)."""
    for out in (tmp_path, Path("/proc/nope/r.txt")):
        result = CliRunner().invoke(app, ["report", "--ledger", str(ledger), "--out", str(out)])
        assert result.exit_code == 2, result.output
        assert f"error: cannot write {out}: " in result.output
        assert not isinstance(result.exception, OSError)


def test_cli_report_under_a_file_says_it_is_not_a_directory(ledger: Path, tmp_path: Path) -> None:
    """`--out file/r.txt` said "File exists", the error of the `mkdir` of its parent, which
    reads as if r.txt were in the way (found in review)."""
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "r.txt"
    result = CliRunner().invoke(app, ["report", "--ledger", str(ledger), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert result.output == f"error: cannot write {out}: Not a directory\n"


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--since", "99999999d"),
        ("--since", "0001-01-01T00:00:00+01:00"),  # before year 1 in UTC
        ("--until", "9999-12-31T23:00:00-05:00"),  # after 9999 in UTC
    ],
)
def test_cli_report_names_the_option_holding_a_time_out_of_range(
    ledger: Path, option: str, value: str
) -> None:
    result = CliRunner().invoke(app, ["report", "--ledger", str(ledger), option, value])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.output


def test_parse_since() -> None:
    now = datetime(2026, 3, 31, tzinfo=UTC)
    assert report_window.parse_since("30d", now) == datetime(2026, 3, 1, tzinfo=UTC)
    assert report_window.parse_since("12h", now) == datetime(2026, 3, 30, 12, tzinfo=UTC)
    assert report_window.parse_since("2026-03-05", now) == datetime(2026, 3, 5, tzinfo=UTC)


def test_a_report_right_after_the_router_started_finds_an_empty_ledger(tmp_path: Path) -> None:
    from router.ledger import LedgerWriter

    writer = LedgerWriter(tmp_path / "var" / "ledger")  # as the router makes it at start
    result = CliRunner().invoke(app, ["report", "--ledger", str(tmp_path / "var" / "ledger")])
    writer.close()
    assert result.exit_code == 0, result.output


def test_no_savings_read_naturally_and_the_window_says_it_is_utc(tmp_path: Path) -> None:
    """With nothing recovered the table said "pays back in never at this rate"; `since` was
    a UTC time without its offset (read as local time by whoever parsed it), and the HTML
    page printed it bare (found in review)."""
    data = report.build(tmp_path, since=datetime(2026, 3, 1, tzinfo=UTC), config=known_config())
    assert data["break_even"]["payback_months"] is None
    assert (data["since"], data["until"]) == ("2026-03-01T00:00:00+00:00", None)
    text = to_table(data)
    assert "→ does not pay back at this rate" in text and "never" not in text
    assert "From 2026-03-01 00:00 UTC to now" in to_html(data)
