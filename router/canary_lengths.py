"""How long a backend's canary round takes, as far as its rounds tell: what a gated
backend's `Retry-After` is counted from (`Schedule.reopen_in`).

A round that graded no case says nothing of it: skipped, every case an error (an
unreachable backend's, over in milliseconds), or cut at shutdown before it graded one. The
length kept is then the one before, in a running router's schedule as in its recall
(`Follower.graded_s`): taken from the latest round alone, a restart after a run cut at
shutdown knew no length, and every gated 503 went without `Retry-After` until the next run
graded a round (found in review).
"""

from __future__ import annotations

from typing import Any


def round_length(run: dict[str, Any] | None, earlier: float | None) -> float | None:
    """A backend's round length as far as known, from its last round (`run`) and the length
    kept from before (`earlier`): the last round's if it graded a case, but no shorter than
    the earlier one when it had errors (a round cut short at shutdown grades a few cases;
    found in re-review); else the earlier one. A round with errors is still a length with
    nothing earlier: a case that errs every round (no sandbox, a slow case) left a gate
    without any time for good (found in re-review); a restart after a cut round may tell
    too short a time, and then none once it has passed."""
    if run is None or not graded(run):
        return earlier
    length = float(run["duration_s"])
    if run.get("errors") and earlier is not None:
        return max(length, earlier)
    return length


def graded(run: dict[str, Any]) -> bool:
    """Whether a round (a `last_run` entry) graded a case, its length known."""
    passed, failed = run.get("passed") or 0, run.get("failed") or 0
    return run.get("duration_s") is not None and int(passed) + int(failed) > 0
