"""How long a backend's canary round takes, as far as its rounds tell: what a gated
backend's `Retry-After` is counted from (`router.canary_reopen`).

A round that graded no case says nothing of it: skipped, every case an error (an
unreachable backend's, over in milliseconds), or cut at shutdown before it graded one. The
length kept is then the one before, in a running router's schedule as in its recall
(`Follower.graded`): taken from the latest round alone, a restart after a run cut at
shutdown knew no length, and every gated 503 went without `Retry-After` until the next run
graded a round (found in review).

A round with errors may have been cut short (at shutdown, at a deadline: a few cases graded,
the rest errors), so it counts no shorter than the graded round before it, that round's own
length. Not the length kept before: that is itself the longer of two, and where every round
has errors (code cases without a sandbox) it never came down, each restart's recall running
it over two days of rounds: one slow round (a backend that hung) told every client 750 s
for a 5 s round (found in review). Two cut rounds in a row take the second's length. So
may a round a wait stopped part way (`router.canary_wait`: its row says `skipped_reason`
beside the cases it graded first): a 2 s round stopped at its third case counted as a whole
round's length, where one cut with errors counted 60 s, and a gated backend's `Retry-After`
was told too short (found in review).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from router.config_sections import MAX_CANARY_INTERVAL_S


@dataclass(frozen=True, slots=True)
class Graded:
    """A backend's last round that graded a case (`key`: its run, start and length) and the
    own length of the graded round before it (`before`, None if none is known)."""

    key: tuple[Any, float, float]
    length: float  # its `duration_s`
    errors: bool  # it may have been cut short (`cut`)
    before: float | None

    @property
    def seconds(self) -> float:
        """How long a round takes: this one's, or the one before's if longer and this one
        had errors or was stopped by a wait (it may have been cut short)."""
        if self.errors and self.before is not None:
            return max(self.length, self.before)
        return self.length


def graded_after(run: dict[str, Any] | None, known: Graded | None) -> Graded | None:
    """What is known of a backend's graded rounds once its round `run` (a `last_run` entry)
    is over, from what was `known` before: `known` itself when `run` graded no case or is
    the round `known` already holds (the latest round is read again and again)."""
    if run is None or not graded(run):
        return known
    length = float(run["duration_s"])
    key = (run.get("run_id"), float(run["ts"]), length)
    if known is not None and known.key == key:
        return known
    before = None if known is None else known.length
    return Graded(key, length, cut(run), before)


def round_length(run: dict[str, Any] | None, known: Graded | None) -> float | None:
    """A backend's round length as far as known (`Graded.seconds`), from its last round
    (`run`) and its graded rounds before (`known`); None before any graded a case. A round
    with errors and nothing before it is still a length: a case that errs every round (no
    sandbox, a slow case) left a gate without any time for good (found in re-review); a
    restart after a cut round may tell too short a time, and then none once it has passed."""
    after = graded_after(run, known)
    return None if after is None else after.seconds


def cut(run: dict[str, Any]) -> bool:
    """Whether a round may have ended before its whole sample was asked: it had errors (a
    shutdown, a deadline, a backend that stopped answering), or a wait stopped it part way
    (its `skipped_reason` beside the cases it graded)."""
    return bool(run.get("errors")) or bool(run.get("skipped_reason"))


def graded(run: dict[str, Any]) -> bool:
    """Whether a round (a `last_run` entry) graded a case, its length known: a finite number
    of seconds, zero to the longest `canary.interval_s` allowed. A recalled row may say NaN,
    less than zero or something huge (one another writer corrupted): NaN reached `math.ceil`
    as a gated 503 was made, and the request failed, and 1.5e308 s, with `ROUND_SLACK`,
    overflowed to inf, where `math.ceil` raised OverflowError (found in review); such a
    round says nothing of the length, as one that graded none."""
    passed, failed = run.get("passed") or 0, run.get("failed") or 0
    length = run.get("duration_s")
    if not isinstance(length, int | float) or isinstance(length, bool):
        return False
    return 0 <= length <= MAX_CANARY_INTERVAL_S and int(passed) + int(failed) > 0
