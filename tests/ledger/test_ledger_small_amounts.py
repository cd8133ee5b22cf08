"""A report of a few cheap requests: its dollars read in the table and the HTML page, as
`smf-router report` prints them from a real ledger."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from router.ledger import LedgerWriter
from router.money import usd
from router.record import Attempt, Record, Usage
from tests.processes import smf_router

DAY = datetime(2026, 3, 1, 10, tzinfo=UTC).timestamp()
WINDOW = ["--since", "2026-03-01", "--until", "2026-03-02"]


def write_cheap_ledger(directory: Path) -> Path:
    """34 requests as a demo makes: 30 served locally (each saving $0.00015 of a $0.00025
    cloud price), 4 sent to the cloud at $0.0003 each."""
    writer = LedgerWriter(directory)
    for i in range(34):
        local = i < 30
        writer.submit(
            Record(
                f"r{i}",
                DAY + i,
                route="coding" if local else "math",
                backend="local" if local else "cloud",
                tier="local" if local else "cloud",
                attempts=[Attempt("local" if local else "cloud", "local" if local else "cloud")],
                usage=Usage(50, 20),
                cost_usd=0.0001 if local else 0.0003,
                counterfactual_usd=0.00025 if local else 0.0003,
            )
        )
    writer.close()
    return directory


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0, "$0"),
        (0.004542, "$0.0045"),
        (0.0999, "$0.10"),  # rounded to two digits first: not $0.100
        (0.77, "$0.77"),
        (0.999, "$1.00"),
        (1234.5, "$1,234.50"),
        (-0.004542, "-$0.0045"),
        (-1234.5, "-$1,234.50"),
        (float("nan"), "$nan"),  # math.floor(log10(nan)) raised ValueError
        (float("-inf"), "-$inf"),
    ],
)
def test_usd_keeps_two_significant_digits_under_a_dollar(value: float, shown: str) -> None:
    assert usd(value) == shown


def test_the_report_of_a_few_cheap_requests_shows_its_dollars(tmp_path: Path) -> None:
    """Every dollar cell of 34 demo requests read $0.00 (the TOTAL offloaded too) while JSON
    said 0.0045, and the total cloud spend was no sum of the rows shown (found in review)."""
    ledger = str(write_cheap_ledger(tmp_path / "ledger"))
    table = smf_router("report", "--ledger", ledger, *WINDOW)
    assert table.returncode == 0, table.stderr
    lines = [line.split("│") for line in table.stdout.splitlines() if line.startswith("│")]
    # the cloud $, local $, counterfactual $ and offloaded $ cells of each row
    cells = {row[1].strip(): [c.strip() for c in row[6:10]] for row in lines}
    assert cells["coding"] == ["$0", "$0.0030", "$0.0075", "$0.0045"]
    assert cells["math"] == ["$0.0012", "$0", "$0.0012", "$0"]
    assert cells["TOTAL"] == ["$0.0012", "$0.0030", "$0.0087", "$0.0045"]
    assert "$0.00 " not in table.stdout and "$0.01" not in table.stdout

    raw = json.loads(smf_router("report", "--ledger", ledger, *WINDOW, "--format", "json").stdout)
    assert raw["totals"]["offloaded_usd"] == pytest.approx(0.0045)  # JSON stays a number

    page = smf_router("report", "--ledger", ledger, *WINDOW, "--format", "html").stdout
    assert "<b>$0.0045</b><span>offloaded" in page and "<b>$0.0087</b>" in page
    assert "<td>$0.0030</td><td>$0.0075</td><td>$0.0045</td>" in page  # the coding row
    ticks = re.findall(r"text-anchor='end'>([^<]*)</text>", page)
    assert ticks[-5:] == ["0", "0.0012", "0.0025", "0.0037", "0.0050"]  # the savings axis (+10%)


def test_a_fraction_of_a_microdollar_is_kept_in_the_data_and_shown(tmp_path: Path) -> None:
    """A 10 ms local request on a $3,000 box costs $3.17e-7: the report rounded its dollars
    to six decimals before any renderer saw them, so JSON and CSV said 0.0 and the table and
    HTML "$0", which README keeps for exactly zero (found in review). Rounded only where
    written for people: two significant digits."""
    writer = LedgerWriter(tmp_path / "ledger")
    writer.submit(
        Record(
            "tiny",
            DAY,
            route="coding",
            backend="local",
            tier="local",
            attempts=[Attempt("local", "local", duration_s=0.01)],
            usage=Usage(5, 1),
            duration_s=0.01,
            cost_usd=3.17e-7,
            counterfactual_usd=1e-6,
        )
    )
    writer.close()
    args = ["report", "--ledger", str(tmp_path / "ledger"), *WINDOW]
    done = smf_router(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    for row in (data["totals"], data["groups"][0]):
        assert row["local_usd"] == pytest.approx(3.17e-7, rel=1e-9)
        assert row["offloaded_usd"] == pytest.approx(6.83e-7, rel=1e-9)
    assert data["daily_by_route"][0]["offloaded_usd"] == pytest.approx(6.83e-7, rel=1e-9)

    rows = list(csv.DictReader(io.StringIO(smf_router(*args, "--format", "csv").stdout)))
    assert [float(r["local_usd"]) for r in rows] == pytest.approx([3.17e-7] * 2, rel=1e-9)

    table = smf_router(*args).stdout
    lines = [line.split("│") for line in table.splitlines() if line.startswith("│")]
    cells = {row[1].strip(): [c.strip() for c in row[6:10]] for row in lines}
    assert cells["TOTAL"] == ["$0", "$0.00000032", "$0.0000010", "$0.00000068"]

    page = smf_router(*args, "--format", "html").stdout
    assert "<td>$0.00000032</td><td>$0.0000010</td><td>$0.00000068</td>" in page


def write_long_keyed_ledger(directory: Path) -> Path:
    """A CI runner with a long key, its local requests costing millionths of a dollar, and a
    caller whose offloaded dollars run to millions: the widest key and dollar cells."""
    writer = LedgerWriter(directory)
    for i, (caller, cost, counterfactual) in enumerate(
        [(LONG_CALLER, 3.17e-6, 0.0045678), ("big", 1.0, 1_234_567.0)]
    ):
        writer.submit(
            Record(
                f"r{i}",
                DAY + i,
                route="coding",
                backend="local",
                tier="local",
                caller=caller,
                attempts=[Attempt("local", "local", duration_s=0.01)],
                usage=Usage(123_456, 654_321),
                cost_usd=cost,
                counterfactual_usd=counterfactual,
            )
        )
    writer.close()
    return directory


LONG_CALLER = "platform-team-ci-runner-eu-west-1"


def test_the_table_in_a_pipe_cuts_no_key_and_no_dollars(tmp_path: Path) -> None:
    """At a fixed 140 columns, `report --by caller` cut the runner's key to `platform…` and
    its local dollars to `$0.00000…`, where README promises two significant digits (found
    in a new user's review). Out of a terminal the table is as wide as its cells."""
    ledger = str(write_long_keyed_ledger(tmp_path / "ledger"))
    for args in (["--by", "caller"], ["--by", "caller", "--out", str(tmp_path / "r.txt")]):
        done = smf_router("report", "--ledger", ledger, *WINDOW, *args)
        assert done.returncode == 0, done.stderr
        table = (tmp_path / "r.txt").read_text() if "--out" in args else done.stdout
        assert "…" not in table
        lines = [line.split("│") for line in table.splitlines() if line.startswith("│")]
        cells = {row[1].strip(): [c.strip() for c in row[6:10]] for row in lines}
        assert cells[LONG_CALLER] == ["$0", "$0.0000032", "$0.0046", "$0.0046"]
        assert cells["big"] == ["$0", "$1.00", "$1,234,567.00", "$1,234,566.00"]
        assert cells["TOTAL"] == ["$0", "$1.00", "$1,234,567.00", "$1,234,566.00"]
