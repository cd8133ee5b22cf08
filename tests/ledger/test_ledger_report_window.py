"""The window `smf-router report` covers: said in its table, defaulted from `--until` when
only that is given, and refused, naming both options, when it ends before it starts. Run as
the real command on the known ledger (records of 2026-03-01 and 2026-03-02)."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from tests.ledger.known_ledger import write_known_ledger
from tests.processes import smf_router


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    return write_known_ledger(tmp_path / "ledger")


def test_the_table_says_which_window_it_covers_as_the_json_does(ledger: Path) -> None:
    """A pasted table did not say which 30 days it summed (found in review). Its first line
    says it, from the report's own `since` and `until`, which the JSON gives."""
    window = ["--ledger", str(ledger), "--since", "2026-03-01", "--until", "2026-03-02T12:00"]
    table = smf_router("report", *window)
    assert table.returncode == 0, table.stderr
    first = table.stdout.splitlines()[0]
    assert first == "window (UTC): 2026-03-01T00:00:00+00:00 → 2026-03-02T12:00:00+00:00"
    data = json.loads(smf_router("report", *window, "--format", "json").stdout)
    assert (data["since"], data["until"]) == (
        "2026-03-01T00:00:00+00:00",
        "2026-03-02T12:00:00+00:00",
    )
    ascii_table = smf_router("report", *window, env={"PYTHONIOENCODING": "ascii"})
    assert ascii_table.stdout.splitlines()[0] == first.replace("→", "->")


def test_an_open_ended_table_says_until_when_it_was_made(ledger: Path) -> None:
    done = smf_router("report", "--ledger", str(ledger), "--since", "2026-03-01")
    assert done.returncode == 0, done.stderr
    said = re.fullmatch(
        r"window \(UTC\): 2026-03-01T00:00:00\+00:00 → (\S+) \(now\)", done.stdout.splitlines()[0]
    )
    assert said is not None, done.stdout.splitlines()[0]
    assert datetime.fromisoformat(said.group(1)).utcoffset() is not None  # a time, in UTC


@pytest.mark.parametrize(
    ("until", "since", "requests"),
    [
        ("2026-03-03", "2026-02-01T00:00:00+00:00", 4),
        ("2026-03-02", "2026-01-31T00:00:00+00:00", 2),  # `until` is exclusive: the first day
    ],
)
def test_until_alone_reads_the_30_days_before_it(
    ledger: Path, until: str, since: str, requests: int
) -> None:
    """`since` stayed 30 days before now: `--until` of a past month alone was refused as
    an inverted window, and one ahead read from a month ago to it (found in review)."""
    done = smf_router("report", "--ledger", str(ledger), "--until", until, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["since"], data["until"]) == (since, f"{until}T00:00:00+00:00")
    assert data["totals"]["requests"] == requests


@pytest.mark.parametrize("since", ["2026-03-03", "7d"])
def test_an_inverted_window_is_refused_naming_both_options(ledger: Path, since: str) -> None:
    """The refusal named `--until` and a bare "since": which since, the default or the one
    given, it did not say. It is the command line's usage error: status 2, no report."""
    done = smf_router("report", "--ledger", str(ledger), "--since", since, "--until", "2026-03-01")
    assert done.returncode == 2 and done.stdout == "", done.stdout
    said = " ".join(re.sub("[│╭╮╰╯─]", " ", done.stderr).split())
    assert "--until (2026-03-01T00:00:00+00:00) must be after --since (" in said, said
    assert "the window would be empty" in said


def test_until_alone_at_the_first_moment_names_only_until(ledger: Path) -> None:
    """`--until 0001-01-01T00:00:00` alone was told to be after a `--since` nobody gave
    (found in review): the window before it is what is empty."""
    until = ["--until", "0001-01-01T00:00:00"]
    done = smf_router("report", "--ledger", str(ledger), *until, env={"COLUMNS": "300"})
    assert done.returncode == 2 and done.stdout == "", done.stdout
    said = " ".join(re.sub("[│╭╮╰╯─]", " ", done.stderr).split())
    assert "--until (0001-01-01T00:00:00+00:00) is the first moment there is" in said, said
    assert "with no --since, the window is the 30 days before it, and would be empty" in said
    assert "after --since" not in said


def test_until_takes_a_time_before_now_as_its_help_says(ledger: Path) -> None:
    """`--until 30d` was read as 30 days ago while `--help` said an ISO time only (found in
    review): the help names both forms, as `--since`'s does."""
    shown = smf_router("report", "--help", env={"COLUMNS": "300"})
    assert shown.returncode == 0, shown.stderr
    (line,) = [line for line in shown.stdout.splitlines() if "--until " in line]
    assert "`30d`, `12h`, `2w` before now, or an ISO date/time" in line, line
    done = smf_router("report", "--ledger", str(ledger), "--until", "1d", "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert datetime.fromisoformat(data["until"]) < datetime.fromisoformat(data["generated_at"])
