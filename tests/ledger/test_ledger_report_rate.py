"""The report's window as its rates count it, through the real `smf-router report`: savings
per day are over the days of the window (from the ledger's first record's day on), not the span
between the first and the last request; an open window ends now, and one that would start
after now is refused."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from router.pricing import MONTH_S
from router.record import Attempt, Record, Usage
from tests.ledger.known_ledger import write_known_ledger
from tests.processes import smf_router

DAY_S = 86400
HARDWARE = 2629.8
CONFIG = f"""
backends:
  - {{name: local, tier: local, base_url: "http://127.0.0.1:9/v1", model: laguna,
      local_cost: {{hardware_usd: {HARDWARE}, amortization_months: 1}}}}
  - {{name: cloud, tier: cloud, base_url: "http://127.0.0.1:9/v1", model: gpt-4o,
      price: {{input_per_mtok: 2, output_per_mtok: 8}}}}
routes:
  coding: [local, cloud]
  tool_calling: [local, cloud]
  instruction: [local, cloud]
  math: [cloud, local]
  reasoning: [cloud, local]
  prose: [local, cloud]
  writing: [local, cloud]
"""


def local_record(rid: str, at: datetime) -> Record:
    """A local request that saved $1 (free to serve: no seconds of hardware charged)."""
    return Record(
        rid,
        at.timestamp(),
        route="coding",
        intent="coding",
        backend="local",
        tier="local",
        attempts=[Attempt("local", "local", duration_s=0.0)],
        usage=Usage(10, 10),
        cost_usd=0.0,
        counterfactual_usd=1.0,
    )


def write(directory: Path, *times: datetime) -> Path:
    return write_known_ledger(directory, (local_record(f"r{i}", at) for i, at in enumerate(times)))


@pytest.fixture
def week(tmp_path: Path) -> list[str]:
    """`--ledger` and `--config` for a working week: 10 local requests, at 09:00 and 17:00
    from Monday 2026-11-16 to Friday 2026-11-20, $1 saved each."""
    times = [datetime(2026, 11, day, hour, tzinfo=UTC) for day in range(16, 21) for hour in (9, 17)]
    config = tmp_path / "router.yaml"
    config.write_text(CONFIG)
    return ["--ledger", str(write(tmp_path / "ledger", *times)), "--config", str(config)]


def break_even(*args: str) -> dict[str, float]:
    done = smf_router("report", *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["totals"]["offloaded_usd"] == 10.0
    return data["break_even"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("since", ["2026-11-16", "2026-11-01"])
def test_a_week_s_savings_are_a_rate_per_day_of_the_week(week: list[str], since: str) -> None:
    """$10 in a week, by the span from Monday 09:00 to Friday 17:00 (4⅓ days), was $2.31 a
    day and a payback of 37.44 months, not $10/7 (found in review). Days before the
    ledger's first record are not counted: from November 1 it is the same week."""
    be = break_even(*week, "--since", since, "--until", "2026-11-23")
    assert be["window_days"] == 7.0
    assert be["savings_per_day_usd"] == pytest.approx(10 / 7)
    assert be["payback_months"] == pytest.approx(HARDWARE / (10 / 7 * MONTH_S / DAY_S), abs=0.01)
    table = smf_router("report", *week, "--since", since, "--until", "2026-11-23").stdout
    assert "in this window, $1.43/day → pays back in 60.48 months at this rate" in table


@pytest.mark.parametrize("before", ["traffic", "an empty partition"])
def test_a_quiet_first_day_of_the_window_counts_when_the_ledger_ran_before(
    tmp_path: Path, before: str
) -> None:
    """Traffic October 28-30 and November 1-3, none on the 31st: a window from the 31st
    counted from the midnight of its own first record (November 1), 3 days where the ledger
    had run through the quiet 31st: 4 (found in review). A partition made ahead (a writer
    makes today's and tomorrow's) with no record in it is no traffic."""
    days = [(11, 1), (11, 2), (11, 3)]
    if before == "traffic":
        days += [(10, 28), (10, 29), (10, 30)]
    times = [datetime(2026, month, day, 12, tzinfo=UTC) for month, day in days]
    ledger = write(tmp_path / "ledger", *times)
    if before == "an empty partition":
        (ledger / "records" / "day=2026-10-20").mkdir()
    config = tmp_path / "router.yaml"
    config.write_text(CONFIG)
    window = ["--since", "2026-10-31", "--until", "2026-11-04"]
    done = smf_router(
        "report", "--ledger", str(ledger), "--config", str(config), *window, "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    be = json.loads(done.stdout)["break_even"]
    assert be["recovered_usd"] == 3.0
    days_counted = 4.0 if before == "traffic" else 3.0
    assert be["window_days"] == days_counted
    assert be["savings_per_day_usd"] == pytest.approx(3.0 / days_counted)


def test_an_open_window_s_rate_counts_its_days_to_now(week: list[str]) -> None:
    done = smf_router("report", *week, "--since", "2026-11-01", "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["until"] is None
    now = datetime.fromisoformat(data["generated_at"])  # the report's "now", to the second
    days = (now - datetime(2026, 11, 16, tzinfo=UTC)).total_seconds() / DAY_S
    assert data["break_even"]["window_days"] == pytest.approx(days, abs=2e-3)
    assert data["break_even"]["savings_per_day_usd"] == pytest.approx(10 / days, rel=1e-3)


def test_an_open_window_ends_now_as_its_first_line_says(tmp_path: Path) -> None:
    """An open window read to year 9999 while the table said it ended now: a record stamped
    ahead of the clock (a writer on a host whose clock runs fast) was counted. `--until`
    still reads what it names."""
    ledger = str(
        write(tmp_path, datetime(2026, 11, 16, 9, tzinfo=UTC), datetime(2099, 6, 1, tzinfo=UTC))
    )
    for until, requests in (([], 1), (["--until", "2100-01-01"], 2)):
        args = ["report", "--ledger", ledger, "--since", "2026-11-01", *until]
        done = smf_router(*args, "--format", "json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["totals"]["requests"] == requests


def test_a_window_starting_after_now_is_refused_naming_since(tmp_path: Path) -> None:
    """Without `--until` a window is open to now: one starting later is empty. It gave a $0
    report and exit status 0 (found in review), where README promised a usage error."""
    ledger = str(write(tmp_path, datetime(2026, 11, 16, 9, tzinfo=UTC)))
    done = smf_router("report", "--ledger", ledger, "--since", "2099-01-01")
    assert done.returncode == 2 and done.stdout == "", done.stdout
    said = " ".join(re.sub("[│╭╮╰╯─]", " ", done.stderr).split())
    assert "--since (2099-01-01T00:00:00+00:00) must be before now (" in said, said
    assert "when there is no --until: the window would be empty" in said
