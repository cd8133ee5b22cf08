"""When a gated backend's canary round may reopen its gates, as a router's schedule stands:
what a gate's `Retry-After` says (`Schedule.reopen_in`, `router.canary_gates`).

A gate is judged when its backend's round ends, not when the run starts: told the start, a
client came back into the round under way, was refused with no time (none was known then),
and its SDK gave up seconds before the gate reopened (found in re-review). A round is taken
to last as long as the backend's last round that graded a case (`router.canary_lengths`),
give or take (`ROUND_SLACK`); where that is unknown, or a round runs past it, no time is
said rather than a wrong one.

Its times are seconds from now, counted on the schedule's loop (monotonic) clock, as the
run waits them out (`Schedule._until_next`): counted from wall-clock stamps, an NTP step
back of an hour told clients an hour too long, and a step forward "now", into the same gate
(found in review).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from router.canary_lengths import Graded, round_length

# A round asks the same number of cases each run, but its backend answers faster or slower:
# a client told to come back when the last round's length has passed again would sometimes
# meet the round still under way.
ROUND_SLACK = 1.25


@dataclass(frozen=True, slots=True)
class Runs:
    """A schedule's runs as a gated request finds them (waits are seconds from now)."""

    next_run_in: float  # `Schedule.next_run_in`: until the next run's start, 0 if past
    running_since: float | None  # the run under way's start (unix time); None between runs
    running_for: float  # how long the run under way has run (loop time), 0 between runs
    running: tuple[str, ...]  # the backends of the run under way
    configured: frozenset[str]  # the backends the config has now
    last_run: Mapping[str, dict[str, Any]]  # each backend's last round (`Canary.last_run`)
    graded: Mapping[str, Graded]  # each backend's graded rounds up to it (`graded_after`)

    def reopen_in(self, backend: str) -> float | None:
        """Seconds until a round of `backend` may reopen its gates: when its round of the
        run under way ends, or else of the next run. None when a round it waits for has no
        known length (none graded a case yet) or runs past its estimate."""
        round_s = self._round_s(backend)
        running = self.running_since
        if round_s is None:
            return None
        if running is None:
            return self.next_run_in + round_s
        if not self._judged_since(backend, running):
            left = round_s - self.running_for
            return left if left > 0 else None
        next_run = self._next_run_after(running)
        return None if next_run is None else next_run + round_s

    def _next_run_after(self, running: float) -> float | None:
        """Seconds until the run after the one under way (started at `running`) starts:
        `interval_s` after its start, or when its last round ends if later (the run waits for
        every backend's). Taken as `next_run_in`, "now" in a run longer than `interval_s`, each
        refusal said "retry in" one round until the slowest round ended, and the SDK gave up
        (found in re-review). None while a round not over yet has no known length or runs
        past its estimate."""
        ends: list[float] = []
        for name in self.running:  # a backend a reload added meanwhile is not in this run
            # one it removed ends its round unjudged: no `last_run` says it is over, and
            # waited for, it hid every gate's time until the run ended (found in re-review)
            if name not in self.configured or self._judged_since(name, running):
                continue
            round_s = self._round_s(name)
            if round_s is None or round_s <= self.running_for:
                return None
            ends.append(round_s - self.running_for)
        return max([self.next_run_in, *ends])

    def _round_s(self, backend: str) -> float | None:
        """How long a round of `backend` takes, as far as known: the length of its last
        round that graded a case, with `ROUND_SLACK` (a round of the same sample takes about
        as long, give or take); None before any did. Not a round that graded none: skipped,
        or every case an error (an unreachable backend's, over in milliseconds), it sent the
        next client back at the run's start, into a round that then ran past its "estimate"
        (found in re-review). Nor one case's `timeout_s` as a guess: in a first run that
        told a client 109 s where the gate reopened after 24, and the SDK gave up."""
        known = round_length(self.last_run.get(backend), self.graded.get(backend))
        return None if known is None else known * ROUND_SLACK

    def _judged_since(self, backend: str, since: float) -> bool:
        """Whether `backend`'s round of the run that started at `since` is over."""
        last = self.last_run.get(backend)
        return last is not None and float(last["ts"]) >= since
