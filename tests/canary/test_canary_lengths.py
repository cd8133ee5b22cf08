"""How long a backend's canary round takes, as its rounds tell (`router.canary_lengths`): what
a gated backend's `Retry-After` is counted from. A round a wait stopped part way
(`router.canary_wait`: `skipped_reason` beside the cases it graded first) may be a short
piece of a round, as one cut with errors may: it counted as a whole round's length, and a
gated backend was told to come back too soon (found in review)."""

from __future__ import annotations

from typing import Any

import pytest

from router.canary_lengths import Graded, graded_after, round_length

WHOLE = Graded(("before", 1000.0, 60.0), 60.0, errors=False, before=None)  # a whole round: 60 s


def _run(duration_s: float, **counts: Any) -> dict[str, Any]:
    """A `last_run` entry of a round after `WHOLE`, with its counts."""
    row = {"run_id": "next", "ts": 2000.0, "duration_s": duration_s, "errors": 0}
    return row | {"skipped_reason": None, "passed": 0, "failed": 0} | counts


@pytest.mark.parametrize(
    ("run", "seconds"),
    [
        (_run(50.0, passed=3), 50.0),  # a whole round, shorter: its own length
        (_run(2.0, passed=2, errors=1), 60.0),  # cut with errors: no shorter than the one before
        (_run(2.0, passed=2, skipped_reason="rate_limited"), 60.0),  # stopped by a 429's wait
        (_run(2.0, failed=1, skipped_reason="overloaded"), 60.0),  # by an overloaded 503's
        (_run(90.0, passed=2, skipped_reason="rate_limited"), 90.0),  # longer: its own
        (_run(0.01, skipped_reason="rate_limited"), 60.0),  # graded none: says nothing
    ],
)
def test_a_round_a_wait_stopped_counts_no_shorter_than_the_whole_round_before(
    run: dict[str, Any], seconds: float
) -> None:
    assert round_length(run, WHOLE) == seconds


def test_a_stopped_round_with_nothing_before_it_is_still_a_length() -> None:
    """As a cut round's: a gate is given a time, whatever the rounds before were."""
    run = _run(2.0, passed=1, skipped_reason="rate_limited")
    assert round_length(run, None) == 2.0
    known = graded_after(run, None)
    assert known is not None and known.errors  # the next round counts no shorter than 2 s
