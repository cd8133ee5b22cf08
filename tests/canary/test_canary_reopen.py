"""When a gated backend's canary round may reopen its gate (`Schedule.reopen_in`, a gate's
`Retry-After`): when that round ends, not when its run starts. Told the start, a client came
back into the round under way and its SDK gave up seconds before the gate reopened (found in
re-review). A stand-in canary and clock: no server."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from router.canary_schedule import ROUND_SLACK, Schedule

START = 1_000.0  # the last run's start, unix time
INTERVAL_S, TIMEOUT_S, ROUND_S = 20.0, 120.0, 8.0


def schedule(now: float, last: dict[str, Any] | None, running: bool = False) -> Schedule:
    canary = SimpleNamespace(
        clock=lambda: now,
        last_run={} if last is None else {"local": last},
        settings=SimpleNamespace(interval_s=INTERVAL_S, timeout_s=TIMEOUT_S),
    )
    made = Schedule(canary, dict, Path("ledger"))  # type: ignore[arg-type]
    made._started = (0.0, START)
    made.running_since = START if running else None
    return made


ROUND = {"ts": START, "duration_s": ROUND_S, "skipped_reason": None}
EARLIER = {**ROUND, "ts": START - INTERVAL_S}  # its round of this run is not over


def test_between_runs_the_end_of_its_round_in_the_next_run() -> None:
    assert schedule(START + 9, ROUND).reopen_in("local") == pytest.approx(
        INTERVAL_S - 9 + ROUND_S * ROUND_SLACK
    )


def test_its_round_under_way_ends_about_as_long_after_the_start_as_the_last_one() -> None:
    assert schedule(START + 3, EARLIER, running=True).reopen_in("local") == pytest.approx(
        ROUND_S * ROUND_SLACK - 3
    )


def test_its_round_past_the_estimate_ends_when_it_ends() -> None:
    assert (
        schedule(START + ROUND_S * ROUND_SLACK + 1, EARLIER, running=True).reopen_in("local")
        is None
    )


def test_its_round_of_the_run_under_way_over_the_next_run_counts() -> None:
    """Another backend's round goes on; the gate stayed closed after this one's."""
    assert schedule(START + 12, ROUND, running=True).reopen_in("local") == pytest.approx(
        INTERVAL_S - 12 + ROUND_S * ROUND_SLACK
    )


@pytest.mark.parametrize(
    "last", [None, {**ROUND, "skipped_reason": "circuit_open", "duration_s": 0.0}]
)
def test_a_round_of_unknown_length_is_taken_as_one_case_timeout(
    last: dict[str, Any] | None,
) -> None:
    assert schedule(START + 5, last).reopen_in("local") == pytest.approx(INTERVAL_S - 5 + TIMEOUT_S)


def test_before_the_first_run_its_round_in_the_run_about_to_start() -> None:
    made = schedule(START, ROUND)
    made._started = None
    assert made.reopen_in("local") == pytest.approx(ROUND_S * ROUND_SLACK)
