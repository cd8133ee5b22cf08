"""Requests a backend failed, by fingerprint: their retries leave its trial to another request.

A stream cut after its first tokens cannot fall back (`router.dispatch`: the commit point),
so its client retries the same request itself. gpt-researcher and Aider back off 1, 2, 4,
8 s, as the breaker's open wait doubles (`BreakerPolicy.wait`: `open_s` 1 up to
`max_open_s` 8): each retry arrived just as the trial was due, took it, met the broken
backend again and was cut again, ten times over 66 s, while every other request went to
the fallback that worked (found in a live review with gpt-researcher). A probe cannot see
a cut (`/health` answers; the stream breaks), so the trial is a live request
(`router.health.UNPROBED_KINDS`, as for a hang: a probe's pass sent the next requests, the
retry among them, into the cut again).

The rule: a request does not take a backend's half-open trial when that backend failed the
same request since it last served one, and its plan has another backend to try: it goes
there as if the circuit were open (`router.policy`, skip reason `FAILED_HERE`, listed in
its ledger row as `circuit_open` is). The retry of the request that just failed is the one
request the router can tell will likely fail again there, and its user expects it to reach
the backend that works. Another request takes the trial, as trials were taken before (a
live request's, where a probe cannot see the failure); its success closes the circuit and
empties this memory: the retry goes back to the backend. With no other backend to try (a
private request, a route of one, a backend named) it takes the trial still: refusing it
would only make its client wait for nothing. A closed circuit is not concerned: one failure
is no reason to send the retry elsewhere, and a probe's pass on a backend whose failures it
can see (a refused connection, a 5xx) is evidence enough; kept past it, a client sending
the same body again and again (a scheduled job, a test) stayed on the fallback until some
other request succeeded on the recovered backend (found in this change's own tests).

Why not another rule. Not a longer open wait: it delays every other request's trial and
the recovery, and some client's backoff matches any fixed one. Not a jittered trial time:
it only makes the collision less likely, and a cut costs the user the whole answer. Not
the backend put last rather than skipped: once the fallback commits it is never reached,
and an open circuit is not tried either when the fallback fails.

The fingerprint is a keyed hash (a key made per process) of the body the client sent,
parsed: an SDK's retry sends the same bytes, and explain, reading the same body, shows the
skip. Its cost is a `json.dumps` of the body, ~20 ms a MB on a loaded 2-core machine: a
200k-token conversation (~1 MB) would pay it on every turn, for a rule that matters only
after a failure. So it is worked out only when it can matter (`Fingerprint`, once a request
at most): when a failure the breaker counts is remembered (`FailedRequests.remember`), and
when a plan meets a backend whose trial is due that remembers some (`router.policy`). A
request where nothing failed costs nothing. It is kept in memory only, a few per backend
(`KEPT_PER_BACKEND`, the latest), and never logged nor stored: no ledger column, no metric
label. Two clients sending the same body are one request here, as they would be to the
backend. Remembered are the failures the breaker counts (`router.health.FAILURE_KINDS`: a
cut, a 5xx, a timeout; not a 429 nor a client's hang-up), read from the finished record.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from router.record import Record

# How many requests each backend remembers failing: the latest. A few clients retrying
# their own cut request at once; past that the oldest is forgotten, and its retry may take
# the trial as it did before.
KEPT_PER_BACKEND = 8

# The plan's skip reason (`router.policy`): the request failed on this backend during its
# outage, and another backend can take it
FAILED_HERE = "failed_here"

_KEY = secrets.token_bytes(16)  # per process: a fingerprint means nothing outside it


def fingerprint(body: Mapping[str, Any]) -> str:
    """The request's fingerprint: a keyed hash of its parsed body, whatever order its keys
    came in (explain's for the same body is the same)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=16, key=_KEY).hexdigest()


class Fingerprint:
    """A request's fingerprint, worked out the first time it is asked for and kept: the plan
    and the record share one, so a request hashes its body once at most, and only where a
    failure makes it matter (most never do). It keeps the client's body until then (its
    keys as sent: a later change of the dict is not the request's), then only the hash."""

    __slots__ = ("_body", "_value")

    def __init__(self, body: Mapping[str, Any]) -> None:
        self._body: Mapping[str, Any] | None = dict(body)
        self._value: str | None = None

    @classmethod
    def known(cls, value: str) -> Fingerprint:
        """One already worked out (a test's, by name)."""
        made = cls({})
        made._body, made._value = None, value
        return made

    @property
    def value(self) -> str | None:
        """The fingerprint if it was worked out, else None (nothing worked out to tell)."""
        return self._value

    def __call__(self) -> str:
        if self._value is None:
            if self._body is None:
                raise RuntimeError("a released fingerprint was asked for")  # a bug
            self._value = fingerprint(self._body)
            self._body = None
        return self._value

    def release(self) -> None:
        """Nothing will ask any more (its record is finished): the body is not kept for it."""
        self._body = None


class FailedRequests:
    """The fingerprints of the latest requests each backend failed (no clock: pure state)."""

    def __init__(self, kept: int = KEPT_PER_BACKEND) -> None:
        self.kept = kept
        self._by_backend: dict[str, OrderedDict[str, None]] = {}

    def failed(self, backend: str, print_: str) -> None:
        prints = self._by_backend.setdefault(backend, OrderedDict())
        prints[print_] = None
        prints.move_to_end(print_)
        while len(prints) > self.kept:
            prints.popitem(last=False)

    def remember(
        self, record: Record, counted: Collection[str], configured: Callable[[str], bool]
    ) -> None:
        """Each configured backend that failed `record`'s request as the breaker counts
        failures (`counted`: a cut, a 5xx; not a 429, a hang-up) remembers it, for its retry
        to leave the backend's trial to another request. From the record: it holds a cut
        stream's try too. The fingerprint is worked out only here, for a failure."""
        print_ = record.fingerprint
        if print_ is None:
            return
        failed = [
            attempt.backend
            for attempt in record.attempts
            if attempt.outcome == "error" and attempt.error_kind in counted
        ]
        for backend in filter(configured, failed):
            self.failed(backend, print_())
        print_.release()

    def of(self, backend: str) -> frozenset[str]:
        return frozenset(self._by_backend.get(backend, ()))

    def forget(self, backend: str) -> None:
        """The backend served a live request (or a reload changed it): its failures are old."""
        self._by_backend.pop(backend, None)
