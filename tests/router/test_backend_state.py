"""`BackendState.away`: the one answer routing, the canary and the shadow read."""

from __future__ import annotations

import pytest

from router.backend_state import BackendState
from router.shadow_sampling import held_away

OPEN = BackendState(circuit="open", circuit_retry_in_s=4.0)
WAITING = BackendState(rate_limited_for_s=30.0)


@pytest.mark.parametrize(
    ("state", "away"),
    [
        (BackendState(), None),
        (BackendState(circuit="half_open"), None),  # it takes its trial
        (BackendState(saturated=True), None),  # each caller weighs saturation its own way
        (BackendState(gated_intents=frozenset({"math"})), None),  # a gate is one route's
        (BackendState(rate_limited_for_s=0.0), "rate_limited"),  # 0 s left is still a wait
        (WAITING, "rate_limited"),
        (OPEN, "circuit_open"),
        (BackendState(circuit="open", rate_limited_for_s=30.0), "circuit_open"),
        (BackendState(overloaded_for_s=30.0), "overloaded"),  # a 503's `Retry-After`
        # of two waits, the one that ends later (this case said rate_limited: a fixed order)
        (BackendState(rate_limited_for_s=5.0, overloaded_for_s=30.0), "overloaded"),
        (BackendState(rate_limited_for_s=30.0, overloaded_for_s=5.0), "rate_limited"),
        (BackendState(rate_limited_for_s=30.0, overloaded_for_s=30.0), "rate_limited"),  # tie
    ],
)
def test_away_names_an_open_circuit_first_then_the_wait_that_ends_later(
    state: BackendState, away: str | None
) -> None:
    assert state.away() == away


def test_the_later_of_a_429s_and_a_503s_wait_is_when_it_may_serve_again() -> None:
    assert BackendState().asked_wait_s() is None
    assert BackendState(rate_limited_for_s=5.0, overloaded_for_s=30.0).asked_wait_s() == 30.0
    assert BackendState(rate_limited_for_s=5.0).asked_wait_s() == 5.0


@pytest.mark.parametrize(
    ("state", "drop"),
    [
        (WAITING, "rate_limited"),
        (OPEN, "saturated"),  # the drop reasons name no circuit: no room for a replay
        (BackendState(overloaded_for_s=30.0), "saturated"),
        (BackendState(saturated=True, rate_limited_for_s=30.0), "saturated"),
    ],
)
def test_the_shadow_counts_an_away_backend_under_its_own_drop_reasons(
    state: BackendState, drop: str
) -> None:
    assert held_away(state) == drop
