"""When a gated backend's canary round may reopen its gate (`Schedule.reopen_in`, a gate's
`Retry-After`): when that round ends, not when its run starts. Told the start, a client came
back into the round under way and its SDK gave up seconds before the gate reopened (found in
re-review). A stand-in canary and clock: no server."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from router.canary_reopen import ROUND_SLACK
from router.canary_schedule import Schedule

START = 1_000.0  # the last run's start, unix time
INTERVAL_S, TIMEOUT_S, ROUND_S = 20.0, 120.0, 8.0


def schedule(
    now: float,
    last: dict[str, Any] | None,
    running: bool = False,
    others: dict[str, dict[str, Any]] | None = None,
) -> Schedule:
    """`local`'s last round `last`, the other backends' `others` (in the run too)."""
    last_run = {**({} if last is None else {"local": last}), **(others or {})}
    canary = SimpleNamespace(
        clock=lambda: now,
        last_run=last_run,
        backends=[SimpleNamespace(name=name) for name in ("local", *(others or {}))],
        settings=SimpleNamespace(interval_s=INTERVAL_S, timeout_s=TIMEOUT_S),
    )
    made = Schedule(canary, dict, Path("ledger"))  # type: ignore[arg-type]
    made._started = (0.0, START)  # loop time 0 at START: the two clocks agree
    made.loop_time = lambda: now - START
    made.running_since = START if running else None
    made._running = tuple(b.name for b in canary.backends) if running else ()
    return made


ROUND = {"ts": START, "duration_s": ROUND_S, "skipped_reason": None, "passed": 0, "failed": 3}
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


SKIPPED = {**ROUND, "skipped_reason": "circuit_open", "duration_s": 0.0, "failed": 0}
UNREACHABLE = {**ROUND, "duration_s": 0.03, "failed": 0, "errors": 3}  # graded none


@pytest.mark.parametrize("last", [None, SKIPPED, UNREACHABLE])
def test_a_round_of_unknown_length_says_no_time(last: dict[str, Any] | None) -> None:
    """No round graded a case yet: one case's `timeout_s` as a guess told a client 109 s
    in a first run whose gate reopened after 24 s, and its SDK gave up."""
    assert schedule(START + 5, last).reopen_in("local") is None


def test_before_the_first_run_its_round_in_the_run_about_to_start() -> None:
    made = schedule(START, ROUND)
    made._started = None
    assert made.reopen_in("local") == pytest.approx(ROUND_S * ROUND_SLACK)


def test_a_run_longer_than_the_interval_is_followed_when_its_slowest_round_ends() -> None:
    """Local's round is over, cloud's (40 s last time) goes on past `interval_s`: the next
    run starts when cloud's round ends, not "now". Told `next_run_at` (now), each refusal
    said "retry in" one round of local until cloud's ended, and the SDK gave up (found in
    re-review)."""
    cloud = {**EARLIER, "duration_s": 40.0}
    now = START + INTERVAL_S + 5
    made = schedule(now, ROUND, running=True, others={"cloud": cloud})
    assert made.reopen_in("local") == pytest.approx(
        START + 40.0 * ROUND_SLACK - now + ROUND_S * ROUND_SLACK
    )


def test_a_run_whose_slowest_round_is_past_its_estimate_says_no_time() -> None:
    cloud = {**EARLIER, "duration_s": 20.0}
    now = START + 20.0 * ROUND_SLACK + 1
    assert schedule(now, ROUND, running=True, others={"cloud": cloud}).reopen_in("local") is None


def test_a_round_that_graded_none_keeps_the_length_of_the_last_that_did() -> None:
    """Local unreachable for a run (each case an error in milliseconds): its next round,
    reachable again, takes as long as the last one that graded its cases. Taken as the
    errors' milliseconds, the client came back at the run's start into a round then past
    its "estimate", with no time, and gave up (found in re-review)."""
    made = schedule(START + 9, {**ROUND, "ts": START - INTERVAL_S})
    made._remember_rounds()  # at the end of the run that graded it
    made.canary.last_run["local"] = UNREACHABLE
    made._remember_rounds()
    assert made.reopen_in("local") == pytest.approx(INTERVAL_S - 9 + ROUND_S * ROUND_SLACK)


def test_a_round_with_errors_is_no_shorter_than_the_last_clean_one() -> None:
    """A round cut short at shutdown grades a few cases and errs the rest: taken as the
    length, a restart told clients to come back before the next full round ended (found in
    re-review). With errors it is a lower bound: the longer of it and the earlier length,
    and not known without one."""
    cut = {**ROUND, "ts": START - INTERVAL_S, "duration_s": 2.0, "errors": 2}
    # a restart knows nothing earlier: a round with errors is a length then (a case that
    # errs every round left the gate with no time at all, found in re-review)
    assert schedule(START + 9, cut).reopen_in("local") == pytest.approx(
        INTERVAL_S - 9 + 2.0 * ROUND_SLACK
    )
    made = schedule(START + 9, {**ROUND, "ts": START - INTERVAL_S})
    made._remember_rounds()
    made.canary.last_run["local"] = cut  # shorter than the clean round before: a lower bound
    made._remember_rounds()
    assert made.reopen_in("local") == pytest.approx(INTERVAL_S - 9 + ROUND_S * ROUND_SLACK)


def test_a_slow_round_with_errors_counts_for_the_next_round_only() -> None:
    """Every round has errors (a case that errs each round): one slow round (a backend that
    hung) counts for the round after it, which may have been cut short, and no further.
    Compared with the length kept, itself the longer of two, it never came down (found in
    review)."""
    slow = {**ROUND, "ts": START - 3 * INTERVAL_S, "errors": 1, "duration_s": 600.0}
    made = schedule(START + 9, slow)
    made._remember_rounds()
    told = []
    for runs_ago in (2, 1):
        quick = {**ROUND, "ts": START - runs_ago * INTERVAL_S, "errors": 1, "duration_s": 5.0}
        made.canary.last_run["local"] = quick
        made._remember_rounds()
        told.append(made.reopen_in("local"))
    assert told == pytest.approx([INTERVAL_S - 9 + s * ROUND_SLACK for s in (600.0, 5.0)])


def test_a_backend_a_reload_added_mid_run_is_not_waited_for() -> None:
    """The next run waits for the rounds of the run under way, not for a backend a reload
    added since: it has no round in it, and its unknown length hid every gate's time."""
    now = START + INTERVAL_S + 2
    made = schedule(now, ROUND, running=True, others={"cloud": {**EARLIER, "duration_s": 30.0}})
    made.canary.backends.append(SimpleNamespace(name="added"))
    cloud_end = START + 30.0 * ROUND_SLACK
    assert made.reopen_in("local") == pytest.approx(cloud_end - now + ROUND_S * ROUND_SLACK)


def test_a_backend_a_reload_removed_mid_run_is_not_waited_for() -> None:
    """A removed backend's round ends unjudged, leaving no `last_run` that says it is over:
    waited for, its unknown length hid every gate's time until the run ended."""
    now = START + 5
    made = schedule(
        now, ROUND, running=True, others={"dead": {**EARLIER, "passed": 0, "failed": 0}}
    )
    made.canary.backends = [b for b in made.canary.backends if b.name != "dead"]
    del made.canary.last_run["dead"]  # as `Canary.prepare` drops a removed backend's
    assert made.reopen_in("local") == pytest.approx(INTERVAL_S - 5 + ROUND_S * ROUND_SLACK)


@pytest.mark.parametrize("step_s", [-3600.0, 3600.0])
def test_a_step_of_the_wall_clock_moves_neither_wait(step_s: float) -> None:
    """The runs wait on loop (monotonic) time (`Schedule._until_next`): the wall clock
    stepped an hour by NTP after a start, the round under way, the next run and the gate's
    `Retry-After` are as far away as that wait. Counted from the start's unix time, a step
    back said an hour more, and a step forward "now", into the same gate (found in review)."""
    wall, loop = [START], [0.0]
    made = schedule(START, EARLIER, running=True)
    made.canary.clock = lambda: wall[0]
    made.loop_time = lambda: loop[0]
    wall[0], loop[0] = START + 3 + step_s, 3.0
    assert made.reopen_in("local") == pytest.approx(ROUND_S * ROUND_SLACK - 3)
    made.running_since, made._running = None, ()  # the run is over, its round judged
    made.canary.last_run["local"] = ROUND
    wall[0], loop[0] = START + 9 + step_s, 9.0
    assert made.next_run_in() == pytest.approx(INTERVAL_S - 9)
    assert made.next_run_at() - wall[0] == pytest.approx(INTERVAL_S - 9)  # the status's
    assert made.reopen_in("local") == pytest.approx(INTERVAL_S - 9 + ROUND_S * ROUND_SLACK)
