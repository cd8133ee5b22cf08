"""What is known about a backend right now (`BackendState`), and whether it is away.

Plain data the pure policy reads (`router.policy.plan`); resilience and the canary's gates
make it (`router.resilience`, `router.canary_gates`). Live routing, the canary and the
shadow each pass a backend by while it is away (`BackendState.away`): one question, asked
in one place, so the three cannot come to disagree on what "away" means.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Circuit = Literal["closed", "open", "half_open"]
# What asked a backend's wait (`Health.asked_to_wait`): a 429's `Retry-After`, or an
# overloaded backend's (a 503's or Anthropic's 529), longer than its `retry_after_max_s`
Wait = Literal["rate_limited", "overloaded"]
# Why a backend is away for a while, whatever the request: its circuit is open (a half-open
# one takes its trial), or it waits out a `Retry-After` it asked for
Away = Literal["circuit_open", Wait]


@dataclass(frozen=True, slots=True)
class BackendState:
    """What is known about a backend right now (health, capacity, quality)."""

    circuit: Circuit = "closed"
    saturated: bool = False
    context_window: int | None = None
    gated_intents: frozenset[str] = frozenset()
    # Its provider answers one choice whatever `n` asks (litellm drops the `n` of Anthropic,
    # Bedrock, …): its adapter learns it once, when warmed (`one_choice_only` marks it)
    one_choice_only: bool = False
    # When it may serve again, in seconds from now (None: not known): its open circuit's next
    # trial (`router.health`), and the end of its next canary round, which may reopen its gates
    circuit_retry_in_s: float | None = None
    gate_retry_in_s: float | None = None
    # What is left of the wait its last long 429 asked for (`Health.asked_to_wait`): None
    # when none runs. Passed by till then, its circuit closed as it is
    rate_limited_for_s: float | None = None
    # Likewise, of the wait its last long 503 (or 529) asked for: an overloaded backend
    overloaded_for_s: float | None = None
    # The fingerprints of the requests it failed, while its half-open trial is a live
    # request's to take (`Resilience.states`): routing sends their retries to another
    # backend when it can, the trial left to another request (`router.failed_requests`)
    failed_requests: frozenset[str] = frozenset()

    def away(self) -> Away | None:
        """Why no call of any kind (a live attempt, a canary case, a shadow replay or judge
        call) may go to the backend now, or None: its circuit is open, or it waits out the
        `Retry-After` of a 429 or of a 503; an open circuit first, as every caller named
        it. Of two waits, the one that ends later (a 429's when they end together): it is
        what keeps the backend away, and the client is told its kind with its time. Named
        in a fixed order, a 429's 30 s beside a 503's 600 s told the client "rate limit",
        429, "retry in 600 s" (found in review). Not what depends on the request (a window,
        a gate of one intent) nor saturation, which each caller weighs its own way: routing
        keeps a saturated backend last, the canary skips a saturated local one, the shadow
        drops replays to any."""
        if self.circuit == "open":
            return "circuit_open"
        limited, overloaded = self.rate_limited_for_s, self.overloaded_for_s
        if overloaded is not None and (limited is None or overloaded > limited):
            return "overloaded"
        return None if limited is None else "rate_limited"

    def asked_wait_s(self) -> float | None:
        """The later end of the waits it asked for (a 429's, a 503's), in seconds from now;
        None when none runs: it serves nothing before then, whatever else holds it away."""
        waits = [w for w in (self.rate_limited_for_s, self.overloaded_for_s) if w is not None]
        return max(waits, default=None)
