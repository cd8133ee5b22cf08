"""Backend health: a circuit breaker per backend, fed by live attempts and by cheap probes.

    closed ──N consecutive failures──▶ open ──wait (doubles per failed trial)──▶ half_open
      ▲                                  ▲                                        │
      └───────────── trial succeeds ─────┼──────────── trial fails ──────────────┘

`Breaker` is the pure state machine (time comes in as `now`). `Health` keeps one per
backend and tells listeners about transitions. `router.probe` is the I/O edge that feeds
it: one GET of the backend's health path (vLLM `/health`) or `/v1/models` — never a billed
completion. Beside its circuit, a breaker keeps the waits a long 429 or 503 asked for
(`Health.asked_to_wait`), and `Health` the requests each backend failed during its outage,
whose retries routing sends elsewhere, leaving the trial to another request
(`router.failed_requests`: a cut stream's client retried into every trial).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from router.backend_state import Circuit, Wait
from router.failed_requests import FailedRequests
from router.retry_after import MAX_RETRY_AFTER_S
from router.silence import SILENT

log = logging.getLogger("smf_router.health")

# While a circuit stays open, how often a failed trial may say "still down". A fixed
# interval, not a doubling one: a line every 15 min (96 a day per backend, against one per
# failed trial, ~10,800 a day at the 8 s cap) still answers "is it down now?" from the tail
# of the log, where a doubling interval would go quiet for hours overnight. The exact state
# is in `smf_router_backend_circuit_state` and `smf_router_backend_up`.
STILL_DOWN_LOG_S = 900.0

# Attempt errors that say "this backend is not working" (a refused key fails every request
# until someone fixes it). Rate limits, overload, context length and client rejections are
# answers from a working backend; cancellation is the client's doing. Neither kind moves
# the breaker, but a request (a stream or a whole reply) its client gave up on after the
# backend's long silence does (`silent`: `router.silence`; the attempt is still recorded
# `cancelled`). A timeout counts unless it was the wait in a busy backend's queue:
# dispatch then tells `queued` (`router.silence.QUEUED`), neutral as the hang-up there is.
FAILURE_KINDS = frozenset(
    {
        SILENT,
        "unreachable",
        "timeout",
        "first_token_timeout",
        "server_error",
        "stall",
        "cut",
        "malformed",
        "backend_refused",
    }
)

# Failures a probe cannot test for: a backend that hangs on completions (`first_token_timeout`,
# `stall`, `silent`) passes `/health`, so a probe's pass closed the circuit they opened, and
# live traffic went to the dead backend first again after every open period: open ~8 s of
# every ~38 s (found in re-review). As for a refusal, only a live request's success clears them.
# So with streams cut part way (`cut`): a probe's pass closed the circuit and the next three
# requests, a client's retry of its cut one among them, were cut again each cycle (found in
# a live review); a live trial is one request, and not that retry (`router.failed_requests`).
UNPROBED_KINDS = frozenset({SILENT, "first_token_timeout", "stall", "cut"})


@dataclass(frozen=True, slots=True)
class BreakerPolicy:
    failure_threshold: int = 3
    open_s: float = 1.0
    max_open_s: float = 8.0

    def wait(self, opens: int) -> float:
        """Seconds before the next trial after the `opens`-th consecutive opening. The
        exponent stops at 64 (far past any cap): `open_s * 2 ** 1024` raised OverflowError, so
        after ~1,024 failed trials (2.3 h down at the 8 s cap) each trial failed half-way,
        left the circuit due again at once, and the probe loop logged a traceback every tick
        (found in review)."""
        return float(min(self.max_open_s, self.open_s * 2 ** min(64, max(0, opens - 1))))


@dataclass(slots=True)
class Breaker:
    """One backend's circuit. Every method takes `now`; nothing here reads a clock."""

    circuit: Circuit = "closed"
    failures: int = 0  # consecutive, while closed
    opens: int = 0  # consecutive openings without a success: sets the backoff
    retry_at: float = 0.0
    trial: bool = False  # the one half-open trial is in flight
    # When the waits a `Retry-After` asked for end, by what asked (`asked_to_wait`: a 429,
    # an overloaded 503): the circuit stays as it was (a working backend said "not now"),
    # but routing passes it by till then
    asked_until: dict[Wait, float] = field(default_factory=dict)

    def state(self, now: float) -> Circuit:
        if self.circuit == "open" and now >= self.retry_at:
            return "half_open"
        return self.circuit

    def claim_trial(self, now: float) -> bool:
        """Take the single half-open trial; False when not half-open or already taken."""
        if self.state(now) != "half_open" or self.trial:
            return False
        self.circuit, self.trial = "half_open", True
        return True

    def success(self, live: bool = True) -> None:
        """Close. Only live traffic resets the backoff: a backend whose `/health` is fine
        but whose completions fail must not be retried at the shortest interval forever."""
        self.circuit, self.failures, self.trial = "closed", 0, False
        if live:
            self.opens = 0

    def failure(self, now: float, policy: BreakerPolicy) -> None:
        state = self.state(now)
        if state == "closed":
            self.failures += 1
            if self.failures >= policy.failure_threshold:
                self._open(now, policy)
        elif state == "half_open":
            self._open(now, policy)
        # open: a straggler that started before the circuit opened says nothing new

    def neutral(self) -> None:
        """A trial that ended without a verdict (rate limit, cancel): let another try."""
        self.trial = False

    def limited_for(self, now: float, kind: Wait = "rate_limited") -> float | None:
        """Seconds left of the wait a 429 (`kind` overloaded: a 503) asked for; None when
        none is running."""
        until = self.asked_until.get(kind, 0.0)
        return until - now if now < until else None

    def _open(self, now: float, policy: BreakerPolicy) -> None:
        self.opens += 1
        self.circuit, self.failures, self.trial = "open", 0, False
        self.retry_at = now + policy.wait(self.opens)


Listener = Callable[[str, Circuit, Circuit], None]  # backend, before, after


@dataclass(slots=True)
class Outage:
    """A backend whose circuit opened and that no live request has succeeded on since."""

    since: float  # clock when the circuit opened
    next_still_down: float  # when a failed trial may next say "still down"
    probe_passed: float | None = None  # the last probe that passed with no failure since
    probe_seen: bool = False  # whether any probe passed during the outage
    # whether a live request failed during it: one only probes saw (an idle router, its
    # backend restarted) is over when a probe passes, as no request ever failed there
    live_failed: bool = False


class Health:
    """Breakers for every backend, judged by live attempts and probes (an attempt observer).

    `live_trials` names the backends without a probe: for them a live request is the
    half-open trial. Backends with a probe keep live traffic away until a probe succeeds,
    unless their failures are ones a probe cannot see (`refused`, `unprobed`).
    """

    def __init__(
        self,
        policy: Callable[[], BreakerPolicy],
        clock: Callable[[], float],
        listeners: list[Listener] | None = None,
    ) -> None:
        self.policy = policy
        self.clock = clock
        self.listeners: list[Listener] = listeners if listeners is not None else []
        self.breakers: dict[str, Breaker] = {}
        self.live_trials: set[str] = set()
        # Backends whose circuit a refusal opened (a wrong key, a missing model): a probe
        # cannot clear them (/health answers without the key), so only a live trial can.
        self.refused: set[str] = set()
        # Backends that failed as a probe cannot see (`UNPROBED_KINDS`): likewise.
        self.unprobed: set[str] = set()
        self.outages: dict[str, Outage] = {}
        # The requests each backend failed since it last served one (`router.failed_requests`)
        self.failed_requests = FailedRequests()

    def breaker(self, backend: str) -> Breaker:
        found = self.breakers.get(backend)
        if found is None:
            found = self.breakers[backend] = Breaker()
        return found

    def forget(self, backend: str) -> None:
        """A backend that a reload changed or removed: its next breaker starts closed."""
        self.breakers.pop(backend, None)
        self.refused.discard(backend)
        self.unprobed.discard(backend)
        self.outages.pop(backend, None)
        self.failed_requests.forget(backend)

    def circuit(self, backend: str) -> Circuit:
        """What routing should see: half-open only while a live trial may still be taken."""
        breaker = self.breaker(backend)
        state = breaker.state(self.clock())
        if state == "half_open" and (breaker.trial or not self.takes_live_trial(backend)):
            return "open"
        return state

    def trial_in(self, backend: str) -> float | None:
        """Seconds until an open circuit's next trial (a 503's `Retry-After`). None while a
        live request holds the trial: that ends when the request does, a completion that may
        run for minutes, and "retry in 1 s" (the trial's time, long past) sent every other
        request's SDK back into the same refusal until it gave up (found in re-review). A
        probe's trial ends within the probe's timeout: its time stands."""
        breaker = self.breaker(backend)
        if breaker.trial and self.takes_live_trial(backend):
            return None
        return max(0.0, breaker.retry_at - self.clock())

    def takes_live_trial(self, backend: str) -> bool:
        return backend in self.live_trials or backend in self.refused or backend in self.unprobed

    def attempt_started(self, backend: str, tier: str) -> None:
        if self.takes_live_trial(backend):
            self._change(backend, lambda b, now: b.claim_trial(now))

    def attempt_finished(
        self, backend: str, tier: str, outcome: str, error_kind: str | None
    ) -> None:
        if outcome == "ok":
            self.succeeded(backend)
        elif error_kind in FAILURE_KINDS:
            self.failed(backend, error_kind or "error")
        elif outcome == "error":
            self._change(backend, lambda b, now: b.neutral())

    def succeeded(self, backend: str, live: bool = True) -> None:
        """A success closes the circuit, but only a live one ends the outage in the log: a
        backend whose `/health` passes while its completions fail was closed by every probe
        and opened again by the next requests, each cycle logged as a recovery and a new
        opening (~760 lines an hour; found in review)."""
        if live:
            self.refused.discard(backend)
            self.unprobed.discard(backend)
            self.failed_requests.forget(backend)
        elif self.breaker(backend).circuit == "closed":
            # a hang the circuit outlived closed is history: a later opening a probe can see
            # (the backend down) must not wait for live traffic (found in re-review)
            self.unprobed.discard(backend)
        self._change(backend, lambda b, now: b.success(live))
        outage = self.outages.get(backend)
        if outage is None:
            return
        if not live:
            outage.probe_passed = self.clock()
            outage.probe_seen = True
            return
        self._log_recovered(backend, self.clock())

    def outage_over(self, backend: str) -> bool:
        """No outage open, or one a probe has ended: at its pass where no live request failed
        (an idle router whose backend restarted, which read down for `STILL_DOWN_LOG_S` while
        its down alert fired), else `STILL_DOWN_LOG_S` after it with no failure since (the rule
        `_probe_outlived` logs recoveries by: on a router no traffic reaches, only a probe can
        say the backend is back). A live success ends an outage itself (`succeeded`)."""
        outage = self.outages.get(backend)
        if outage is None:
            return True
        passed = outage.probe_passed
        if passed is None:
            return False
        return not outage.live_failed or self.clock() - passed >= STILL_DOWN_LOG_S

    def _log_recovered(self, backend: str, at: float, how: str = "") -> None:
        """End the outage in the log: down from its opening until `at`, or until the last
        probe that passed, if one did (the backend was answering then: an idle router's first
        live success days later counted the whole idle time as down)."""
        outage = self.outages.pop(backend)
        up = at if outage.probe_passed is None else min(at, outage.probe_passed)
        down = (up - outage.since) / 60
        log.warning("backend %s: circuit closed again after %.1f min down%s", backend, down, how)

    def failed(self, backend: str, why: str, live: bool = True) -> None:
        if why == "backend_refused":
            self.refused.add(backend)
        if why in UNPROBED_KINDS:
            self.unprobed.add(backend)
        self._probe_outlived(backend)
        policy = self.policy()
        before = self.breaker(backend).circuit  # stored: a claimed trial reads half_open
        self._change(backend, lambda b, now: b.failure(now, policy))
        if before != "open" and self.breaker(backend).circuit == "open":
            self._log_open(backend, why)
        outage = self.outages.get(backend)
        if live and outage is not None:
            outage.live_failed = True

    def asked_to_wait(self, backend: str, seconds: float, kind: Wait = "rate_limited") -> None:
        """A 429 (`kind` overloaded: a 503 or 529) asked for a wait longer than dispatch
        sleeps out (`retry_after_max_s`): routing passes the backend by until it ends
        (`limited_for`). Forgotten, every next request went to it first, got the same 429
        and fell back, a round trip each, the provider asked again and again until its
        window ended (found in review); an overloaded one likewise. Of two ends of a kind
        the later stands; at most an hour (`MAX_RETRY_AFTER_S`, as every header is read): a
        bogus header cannot sideline a backend for days. No failure: the circuit stays."""
        now, breaker = self.clock(), self.breaker(backend)
        wait = min(seconds, MAX_RETRY_AFTER_S)
        if breaker.limited_for(now, kind) is None:  # a new wait: once, not per 429 in flight
            said = "rate limited" if kind == "rate_limited" else "overloaded"
            log.warning("backend %s: %s; passed by for %.0f s", backend, said, wait)
        breaker.asked_until[kind] = max(breaker.asked_until.get(kind, 0.0), now + wait)

    def limited_for(self, backend: str, kind: Wait = "rate_limited") -> float | None:
        """Seconds left of the wait the backend's 429 (`kind` overloaded: its 503) asked
        for; None when none runs."""
        return self.breaker(backend).limited_for(self.clock(), kind)

    def forget_waits(self, backend: str) -> None:
        """The waits the backend's 429 and 503 asked for end now; its circuit stays as it is.
        A reload that gives the backend other credentials (`router.resilience_reload`): a
        rate limit is the old key's, and another key is the operator's way out of it."""
        self.breaker(backend).asked_until.clear()

    def _probe_outlived(self, backend: str) -> None:
        """A failure after a probe passed: if it comes `STILL_DOWN_LOG_S` or more after, with
        no failure between, the outage ended at the probe (logged now: no live request came
        to say so) and this is a new one; sooner, the backend is still failing, and the
        probe's pass ends nothing (light traffic on a backend whose `/health` passes while
        its completions fail was logged as a recovery each cycle; found in review)."""
        outage = self.outages.get(backend)
        if outage is None or outage.probe_passed is None:
            return
        probe, outage.probe_passed = outage.probe_passed, None
        if self.clock() - probe >= STILL_DOWN_LOG_S:
            self._log_recovered(backend, probe, " (a probe passed; no live request came)")

    def _log_open(self, backend: str, why: str) -> None:
        """Log the opening once, then "still down" at most every `STILL_DOWN_LOG_S`. Each
        failed half-open trial opens the circuit again, and judged by `state(now)` (which
        reads half-open once the wait is over) every one of them was logged as a new
        opening: a backend off overnight wrote a line per trial (found in review). Nor is one
        after a probe closed the circuit: only a live success ends the outage (`succeeded`)."""
        now = self.clock()
        retry_in = self.breaker(backend).retry_at - now
        outage = self.outages.get(backend)
        if outage is None:
            self.outages[backend] = Outage(since=now, next_still_down=now + STILL_DOWN_LOG_S)
            log.warning(
                "backend %s: circuit open (%s); next trial in %.1f s", backend, why, retry_in
            )
        elif now >= outage.next_still_down:
            outage.next_still_down = now + STILL_DOWN_LOG_S
            log.warning(
                "backend %s: still down after %.0f min (%s%s); next trial in %.1f s",
                backend,
                (now - outage.since) / 60,
                why,
                "; a probe passed since, but no live request has succeeded"
                if outage.probe_seen
                else "",
                retry_in,
            )

    def claim_probe_trial(self, backend: str) -> bool:
        claimed = False

        def claim(b: Breaker, now: float) -> None:
            nonlocal claimed
            claimed = b.claim_trial(now)

        self._change(backend, claim)
        return claimed

    def _change(self, backend: str, action: Callable[[Breaker, float], Any]) -> None:
        """Run `action` and tell listeners when the stored circuit moved. The stored field,
        not `state(now)`: an expired open circuit already reads half-open, so comparing
        states hid the trial's start (the gauge never showed half_open)."""
        breaker = self.breaker(backend)
        now = self.clock()
        before = breaker.circuit
        action(breaker, now)
        after = breaker.circuit
        if after != before:
            for listener in self.listeners:
                listener(backend, before, after)
