"""The circuit breaker as a pure state machine, and `Health` as an attempt observer."""

from __future__ import annotations

import logging

import pytest

from router.health import STILL_DOWN_LOG_S, Breaker, BreakerPolicy, Health
from router.policy import Circuit

POLICY = BreakerPolicy(failure_threshold=3, open_s=1.0, max_open_s=4.0)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_opens_after_threshold_consecutive_failures() -> None:
    b = Breaker()
    b.failure(0.0, POLICY)
    b.failure(0.0, POLICY)
    assert b.state(0.0) == "closed"
    b.failure(0.0, POLICY)
    assert b.state(0.0) == "open"
    assert b.state(0.99) == "open"
    assert b.state(1.0) == "half_open"


def test_a_success_resets_the_consecutive_count() -> None:
    b = Breaker()
    for _ in range(2):
        b.failure(0.0, POLICY)
    b.success()
    for _ in range(2):
        b.failure(0.0, POLICY)
    assert b.state(0.0) == "closed"


def test_half_open_allows_exactly_one_trial() -> None:
    b = Breaker()
    for _ in range(3):
        b.failure(0.0, POLICY)
    assert not b.claim_trial(0.5)
    assert b.claim_trial(1.0)
    assert not b.claim_trial(1.0)
    b.success()
    assert b.state(1.0) == "closed"


@pytest.mark.parametrize(
    ("opens", "wait"), [(1, 1.0), (2, 2.0), (3, 4.0), (4, 4.0), (9, 4.0), (1025, 4.0), (10**6, 4.0)]
)
def test_wait_doubles_per_failed_trial_up_to_the_cap(opens: int, wait: float) -> None:
    assert POLICY.wait(opens) == wait


def test_failed_trial_reopens_with_longer_wait() -> None:
    b = Breaker()
    for _ in range(3):
        b.failure(0.0, POLICY)
    assert b.claim_trial(1.0)
    b.failure(1.0, POLICY)
    assert b.state(2.9) == "open"
    assert b.state(3.0) == "half_open"


def test_probe_success_keeps_the_backoff_live_success_clears_it() -> None:
    b = Breaker()
    for _ in range(3):
        b.failure(0.0, POLICY)
    b.claim_trial(1.0)
    b.success(live=False)
    assert b.opens == 1
    for _ in range(3):
        b.failure(2.0, POLICY)
    assert b.retry_at == 4.0  # second opening waits 2 s, not 1
    b.success(live=True)
    assert b.opens == 0


def test_stragglers_while_open_change_nothing() -> None:
    b = Breaker()
    for _ in range(3):
        b.failure(0.0, POLICY)
    b.failure(0.5, POLICY)
    assert b.retry_at == 1.0


def test_health_counts_only_failure_kinds() -> None:
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    for kind in ("rate_limited", "context_too_long", "rejected", "cancelled", "overloaded"):
        for _ in range(5):
            health.attempt_finished("local", "local", "error", kind)
    assert health.circuit("local") == "closed"
    for _ in range(3):
        health.attempt_finished("local", "local", "error", "unreachable")
    assert health.circuit("local") == "open"


def test_a_backend_refusing_the_routers_key_opens_its_circuit() -> None:
    """A wrong key fails every request until someone fixes it: stop paying the round trip."""
    health = Health(lambda: POLICY, Clock())
    for _ in range(3):
        health.attempt_finished("cloud", "cloud", "error", "backend_refused")
    assert health.circuit("cloud") == "open"


def test_a_refused_backend_is_cleared_by_a_live_request_not_by_a_probe() -> None:
    """/health answers without the key, so a probe closed the circuit of a backend that
    refuses the router every open period, and live requests hit the bad key again."""
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    for _ in range(3):
        health.attempt_finished("local", "local", "error", "backend_refused")
    clock.now += 1.0
    assert health.circuit("local") == "half_open"  # offered to one live request
    health.attempt_started("local", "local")
    health.attempt_finished("local", "local", "error", "backend_refused")
    assert health.circuit("local") == "open"
    clock.now += 10.0
    health.attempt_started("local", "local")
    health.attempt_finished("local", "local", "ok", None)  # the key was fixed
    assert health.circuit("local") == "closed" and "local" not in health.refused


@pytest.mark.parametrize("kind", ["silent", "first_token_timeout", "stall"])
def test_a_hanging_backend_is_cleared_by_a_live_request_not_by_a_probe(kind: str) -> None:
    """A backend that hangs on completions passes `/health`: a probe closed the circuit its
    hangs opened, and live traffic went to it first again after every open period."""
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    for _ in range(3):
        health.attempt_finished("local", "local", "error", kind)
    clock.now += 1.0
    assert health.circuit("local") == "half_open"  # offered to one live request, no probe
    health.attempt_started("local", "local")
    health.attempt_finished("local", "local", "ok", None)
    assert health.circuit("local") == "closed" and "local" not in health.unprobed


def test_a_hang_the_circuit_outlived_leaves_a_later_outage_to_probes() -> None:
    """One stall, a probe passing while the circuit stayed closed, then the backend down
    (unreachable, which a probe sees): the stall's mark kept probes away from that outage's
    circuit, and it stayed open until live traffic came (found in re-review)."""
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    health.attempt_finished("local", "local", "error", "stall")
    health.succeeded("local", live=False)  # a probe while closed
    for _ in range(3):
        health.attempt_finished("local", "local", "error", "unreachable")
    clock.now += 1.0
    assert not health.takes_live_trial("local")
    assert health.claim_probe_trial("local")


def test_listeners_hear_the_trial_begin() -> None:
    """An expired open circuit already reads half-open, so comparing states before and after
    claiming the trial saw no change: the half_open gauge was never 1 (found in review)."""
    clock = Clock()
    seen: list[tuple[str, Circuit, Circuit]] = []
    health = Health(lambda: POLICY, clock, [lambda b, x, y: seen.append((b, x, y))])
    for _ in range(3):
        health.attempt_finished("local", "local", "error", "timeout")
    clock.now += 1.0
    assert health.claim_probe_trial("local")
    health.failed("local", "probe failed")
    assert seen == [
        ("local", "closed", "open"),
        ("local", "open", "half_open"),
        ("local", "half_open", "open"),
    ]


def test_health_tells_listeners_about_transitions() -> None:
    clock = Clock()
    seen: list[tuple[str, Circuit, Circuit]] = []
    health = Health(lambda: POLICY, clock, [lambda b, x, y: seen.append((b, x, y))])
    health.live_trials.add("cloud")
    for _ in range(3):
        health.attempt_finished("cloud", "cloud", "error", "timeout")
    clock.now += 1.0
    assert health.circuit("cloud") == "half_open"  # a live request may be the trial
    health.attempt_started("cloud", "cloud")
    assert health.circuit("cloud") == "open"  # only one
    health.attempt_finished("cloud", "cloud", "ok", None)
    assert health.circuit("cloud") == "closed"
    assert seen == [
        ("cloud", "closed", "open"),
        ("cloud", "open", "half_open"),  # the live trial began (this test once left it out)
        ("cloud", "half_open", "closed"),
    ]


def test_probed_backends_never_offer_live_trials() -> None:
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    for _ in range(3):
        health.failed("local", "probe failed")
    clock.now += 10
    assert health.circuit("local") == "open"
    assert health.claim_probe_trial("local")
    assert not health.claim_probe_trial("local")
    health.succeeded("local", live=False)
    assert health.circuit("local") == "closed"


def test_neutral_outcome_releases_a_live_trial() -> None:
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    health.live_trials.add("cloud")
    for _ in range(3):
        health.failed("cloud", "x")
    clock.now += 1
    health.attempt_started("cloud", "cloud")
    health.attempt_finished("cloud", "cloud", "error", "rate_limited")
    assert health.circuit("cloud") == "half_open"


def test_a_backend_that_stays_down_logs_its_opening_once_then_rarely(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every failed probe trial re-opens the circuit, and each was logged as a new opening
    ("circuit open (probe failed); next trial in 8.0 s" every 8 s, ~10,800 lines a day for a
    GPU box off overnight; found in review). One opening, a "still down" line at most every
    `STILL_DOWN_LOG_S`, and the recovery once."""
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    with caplog.at_level(logging.WARNING, logger="smf_router.health"):
        for _ in range(3):
            health.failed("local", "probe failed")
        hours = 1  # ~900 trials at the 4 s cap
        trials = 0
        while clock.now < 100.0 + hours * 3600:
            clock.now = health.breaker("local").retry_at
            assert health.claim_probe_trial("local")
            health.failed("local", "probe failed")
            trials += 1
        clock.now = health.breaker("local").retry_at
        assert health.claim_probe_trial("local")
        health.succeeded("local", live=False)
        health.attempt_finished("local", "local", "ok", None)  # the outage ends here
    lines = [r.getMessage() for r in caplog.records]
    assert trials > 800
    opened = [m for m in lines if "circuit open" in m]
    assert opened == ["backend local: circuit open (probe failed); next trial in 1.0 s"]
    still = [m for m in lines if "still down" in m]
    assert len(still) == hours * 3600 // STILL_DOWN_LOG_S
    assert still[0].startswith("backend local: still down after 15 min (probe failed);")
    assert lines[-1].startswith("backend local: circuit closed again after 60.")
    assert len(lines) == len(opened) + len(still) + 1


def test_a_backend_whose_probe_passes_while_its_completions_fail_logs_like_one_down(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """vLLM's `/health` answers 200 while every completion fails: each probe closed the
    circuit and logged "circuit closed again after 0.0 min down", the next requests opened it
    and logged "circuit open", ~760 lines an hour (found in review). The circuit still closes
    on each probe; the log reads as one outage until a live request succeeds."""
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    cycles = 0
    with caplog.at_level(logging.INFO, logger="smf_router.health"):
        while clock.now < 100.0 + 3600:
            state = health.breaker("local").state(clock.now)
            if state == "closed":
                health.attempt_started("local", "local")
                health.attempt_finished("local", "local", "error", "server_error")
            elif state == "half_open" and health.claim_probe_trial("local"):
                health.succeeded("local", live=False)
                assert health.circuit("local") == "closed"  # the circuit itself is unchanged
                cycles += 1
            clock.now += 0.5
        during = [r.getMessage() for r in caplog.records]
        health.attempt_finished("local", "local", "ok", None)
        health.attempt_finished("local", "local", "ok", None)
    assert cycles > 300
    assert during[0] == "backend local: circuit open (server_error); next trial in 1.0 s"
    assert 1 <= len(during) - 1 <= 3600 // STILL_DOWN_LOG_S
    assert all(
        m.startswith("backend local: still down after ")
        and "a probe passed since, but no live request has succeeded" in m
        for m in during[1:]
    ), during
    recovered = [r.getMessage() for r in caplog.records][len(during) :]
    assert len(recovered) == 1 and recovered[0].startswith(
        "backend local: circuit closed again after 60."
    )


def test_a_backend_down_again_after_recovering_logs_a_new_opening(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    with caplog.at_level(logging.WARNING, logger="smf_router.health"):
        for _ in range(2):
            for _ in range(3):
                health.attempt_finished("local", "local", "error", "timeout")
            clock.now += 10
            health.claim_probe_trial("local")
            health.failed("local", "probe failed")  # a failed trial: no new line
            clock.now += 10
            health.claim_probe_trial("local")
            health.succeeded("local", live=False)  # not yet the end of the outage
            clock.now += 4
            health.attempt_finished("local", "local", "ok", None)
            health.attempt_finished("local", "local", "ok", None)
    closed = "backend local: circuit closed again after 0.3 min down"  # until the probe passed
    assert [r.getMessage() for r in caplog.records] == [
        "backend local: circuit open (timeout); next trial in 1.0 s",
        closed,
        "backend local: circuit open (timeout); next trial in 1.0 s",  # live reset backoff
        closed,
    ]


def test_a_recovery_only_probes_saw_ends_the_outage_before_a_new_one(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """On an idle router a probe closed the circuit and no live request came: a new outage
    a day later was logged as "still down after 1445 min", and the first live success as
    a day of downtime (found in review). Down time runs to the last probe that passed."""
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    with caplog.at_level(logging.WARNING, logger="smf_router.health"):
        for _ in range(3):
            health.attempt_finished("local", "local", "error", "timeout")
        clock.now += 300
        health.claim_probe_trial("local")
        health.succeeded("local", live=False)
        clock.now += 86400  # a quiet day
        for _ in range(3):
            health.attempt_finished("local", "local", "error", "timeout")
        clock.now += 600
        health.claim_probe_trial("local")
        health.succeeded("local", live=False)
        clock.now += 86400
        health.attempt_finished("local", "local", "ok", None)
    assert [r.getMessage() for r in caplog.records] == [
        "backend local: circuit open (timeout); next trial in 1.0 s",
        "backend local: circuit closed again after 5.0 min down (a probe passed; no live"
        " request came)",
        "backend local: circuit open (timeout); next trial in 2.0 s",  # only live resets it
        "backend local: circuit closed again after 10.0 min down",
    ]


def test_light_traffic_failing_after_each_passing_probe_stays_one_outage(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A completion failing every 6 minutes after each passing probe took over 15 minutes
    to re-open the circuit, and each cycle was logged as a recovery after 0.1 min down "(no
    live request came)" and a new opening (found in review): failures came."""
    clock = Clock()
    health = Health(lambda: POLICY, clock)
    with caplog.at_level(logging.WARNING, logger="smf_router.health"):
        for _ in range(3):
            health.attempt_finished("cloud", "cloud", "error", "server_error")
        for _ in range(4):
            clock.now += 8
            assert health.claim_probe_trial("cloud")
            health.succeeded("cloud", live=False)
            for _ in range(3):
                clock.now += 360
                health.attempt_finished("cloud", "cloud", "error", "server_error")
    said = [r.getMessage() for r in caplog.records]
    assert said[0].startswith("backend cloud: circuit open (server_error)")
    assert not any("closed again" in m for m in said), said
    assert all(m.startswith("backend cloud: still down after ") for m in said[1:]), said
