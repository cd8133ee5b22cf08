"""`smf-router shadow report` as the real command: a ledger whose comparisons are (partly)
in damaged files is a partial report, exit 3 as `smf-router report`'s, and small dollars
keep two significant digits."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from router.ledger import LedgerWriter, compaction, segments
from tests.ledger.damaged_ledger import damage_file
from tests.processes import smf_router


def _row(intent: str, live_usd: float, shadow_usd: float) -> dict[str, Any]:
    return {
        "ts": time.time() - 60,
        "request_id": "r",
        "intent": intent,
        "route": intent,
        "live_backend": "cloud",
        "shadow_backend": "local",
        "agreed": True,
        "live_tokens": 40,
        "live_cost_usd": live_usd,
        "shadow_tokens": 40,
        "shadow_cost_usd": shadow_usd,
    }


def _segments(ledger: Path, *batches: list[dict[str, Any]]) -> list[Path]:
    """One shadow_comparisons segment per batch, written by the ledger's own writer."""
    for n, rows in enumerate(batches):
        writer = LedgerWriter(ledger, process_tag=f"w{n}")
        for row in rows:
            writer.submit_row("shadow_comparisons", row)
        writer.close()
    found = sorted((ledger / "shadow_comparisons").rglob("*.parquet"))
    assert len(found) == len(batches), found
    return found


def _report(ledger: Path, *options: str) -> Any:
    return smf_router("shadow", "report", "--ledger", str(ledger), *options)


@pytest.mark.parametrize("as_json", [False, True])
def test_comparisons_all_in_a_damaged_file_are_no_empty_ledger(
    tmp_path: Path, as_json: bool
) -> None:
    """It said "no shadow comparisons in the ledger yet" (`--json`: []), exit 0, below the
    warning that it skipped the file holding them (found in review)."""
    ledger = tmp_path / "ledger"
    (segment,) = _segments(ledger, [_row("math", 0.01, 0.0)])
    segment.write_bytes(b"garbage")
    done = _report(ledger, *(["--json"] if as_json else []))
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stderr.startswith(f"warning: skipped unreadable segment {segment}")
    if as_json:
        assert json.loads(done.stdout) == []
    else:
        assert done.stdout == (
            "no shadow comparisons readable (1 skipped file(s) or directories, named in the"
            " warnings)\n"
        )


def test_a_damaged_file_beside_readable_ones_is_a_partial_report(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger"
    _, damaged = _segments(ledger, [_row("math", 0.01, 0.0)], [_row("prose", 0.01, 0.0)])
    damaged.write_bytes(b"garbage")
    for options in ([], ["--json"]):
        done = _report(ledger, *options)
        assert done.returncode == 3, done.stderr
        assert f"warning: skipped unreadable segment {damaged}" in done.stderr
    assert [pair["intent"] for pair in json.loads(done.stdout)] == ["math"]


def test_costs_below_a_tenth_of_a_cent_keep_two_significant_digits(tmp_path: Path) -> None:
    """A live cost of $4.4e-05 read 0.0000 in the table, and a local shadow's $3e-7 was 0.0
    in the JSON too (rounded to six decimals) (found in review). The main report writes
    dollars so (`router.money`)."""
    ledger = tmp_path / "ledger"
    _segments(ledger, [_row("math", 4.4e-05, 3e-07), _row("prose", 0.25, 0.0)])
    table = _report(ledger)
    assert table.returncode == 0, table.stderr
    rows = {line.split("│")[1].strip(): line for line in table.stdout.splitlines() if "│" in line}
    assert "0.000044 / 0.00000030 / 0.0000" in rows["math"], rows["math"]
    assert "0.2500 / 0.0000 / 0.0000" in rows["prose"], rows["prose"]
    pairs = {pair["intent"]: pair for pair in json.loads(_report(ledger, "--json").stdout)}
    assert (pairs["math"]["live_cost_usd"], pairs["math"]["shadow_cost_usd"]) == (4.4e-05, 3e-07)


@pytest.mark.parametrize("as_json", [False, True])
def test_a_damaged_file_before_the_days_asked_for_is_not_read(
    tmp_path: Path, as_json: bool
) -> None:
    """`--days 7` exited 3, "partial", of a window it read whole, for a damaged file 100 days
    back, where `smf-router report --since 7d` exits 0 (found in review)."""
    ledger = tmp_path / "ledger"
    old = _row("math", 0.01, 0.0) | {"ts": time.time() - 100 * 86400}
    damaged, _ = _segments(ledger, [old], [_row("prose", 0.01, 0.0)])
    damaged.write_bytes(b"garbage")
    done = _report(ledger, "--days", "7", *(["--json"] if as_json else []))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stderr
    if as_json:
        assert [pair["intent"] for pair in json.loads(done.stdout)] == ["prose"]
    whole = _report(ledger)
    assert whole.returncode == 3, whole.stdout + whole.stderr  # the whole ledger: partial


def test_a_damaged_merged_file_whose_sources_are_read_leaves_nothing_out(tmp_path: Path) -> None:
    """A writer's merge that fails its checksum while the files it merged are still there is
    left out, and they are read instead: every row is in the report, which said "partial",
    exit 3 (found in review). A merge whose sources are gone leaves rows out: partial."""
    ledger = tmp_path / "ledger"
    sources = _segments(ledger, [_row("math", 0.01, 0.0)], [_row("math", 0.02, 0.0)])
    inputs = [segments.read_segment(path) for path in sources]
    merged = sources[0].parent / "w9-00000009.parquet"
    compaction.merge(inputs, merged, delete=False)
    damage_file(merged)
    done = _report(ledger, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    (pair,) = json.loads(done.stdout)
    assert pair["samples"] == 2
    sources[1].unlink()  # its rows are in the damaged merge only
    assert _report(ledger, "--json").returncode == 3
