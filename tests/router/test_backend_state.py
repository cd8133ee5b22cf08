"""`BackendState.away`: the one answer routing, the canary and the shadow read."""

from __future__ import annotations

import pytest

from router.backend_state import BackendState

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
    ],
)
def test_away_names_an_open_circuit_first_then_a_429s_wait(
    state: BackendState, away: str | None
) -> None:
    assert state.away() == away
