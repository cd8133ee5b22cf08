"""Eval-gated routing, the pure part: recent canary results per backend and intent → gates.

A gate closes when the Wilson lower bound of the pass rate over the last K results falls
below the intent's floor, and opens again once it is back at or above it; with fewer
results than a record of all passes needs to clear the floor, the upper bound decides
instead. A gate depends on the window only, so a restarted router replaying the ledger
agrees with the running one. Nothing here does I/O; time comes in as an injected clock so
tests decide when things happen.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

Z_95 = 1.959963984540054
NEVER = 2**62  # results: more than any window holds


def wilson_interval(passes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a pass rate; (0, 1) when there is no sample."""
    if n <= 0:
        return 0.0, 1.0
    p = passes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def wilson_lower(passes: int, n: int, z: float = Z_95) -> float:
    return wilson_interval(passes, n, z)[0]


def samples_to_clear(floor: float, z: float = Z_95) -> int:
    """How many results, every one a pass, it takes for the lower bound to reach `floor`.

    A perfect record of n results has the lower bound n / (n + z²): 0.57 for 5 of 5, so
    with a floor of 0.6 a gate that may close after 5 results closed on a backend that
    passed everything. On fewer results than this the lower bound cannot decide: only an
    upper bound under the floor closes a gate on them (`GateBook._decide`).
    """
    if floor <= 0:
        return 0
    if floor >= 1:
        return NEVER  # no record clears it
    return math.ceil(floor * z * z / (1 - floor) - 1e-9)


@dataclass(frozen=True, slots=True)
class Change:
    """A gate that opened or closed, with the numbers that decided it (for logs and status)."""

    backend: str
    intent: str
    gated: bool
    lower: float
    floor: float
    passes: int
    n: int
    at: float
    # results the lower bound needs (`GateBook.needed`): with fewer, the upper decides
    needed: int = 0
    # the Wilson upper bound: with fewer than `needed`, what the floor is compared with
    upper: float = 1.0
    min_samples: int = 0  # results before any gate may close (`GateBook.min_samples`)


@dataclass(frozen=True, slots=True)
class Standing:
    """One backend × intent now: what the window holds and whether the gate is closed."""

    backend: str
    intent: str
    passes: int
    n: int
    lower: float
    floor: float | None
    gated: bool
    since: float | None


def learn_floors(
    baseline: Mapping[str, tuple[int, int]], margin: float = 0.15, z: float = Z_95
) -> dict[str, float]:
    """Floors from a baseline run: per intent, the baseline's Wilson lower bound minus a margin.

    `baseline` maps intent → (passes, graded). A floor learned this way says "much worse than
    this backend was when we trusted it", which is what a requantisation regression looks like.
    """
    return {
        intent: round(max(0.0, wilson_lower(p, n, z) - margin), 4)
        for intent, (p, n) in baseline.items()
        if n > 0
    }


class GateBook:
    """The last `window` graded canary results per backend × intent, and the gates they imply.

    Errors and N/A never enter the window: a down backend is not a quality signal (the
    circuit breaker handles that). A gate needs `min_samples` results before it may close.
    Its lower bound decides once the window holds as many as a record of all passes needs
    to clear the floor (`needed`); with fewer, only an upper bound under the floor closes
    it, as a perfect record never could. Whether a gate is closed depends on the window and
    the settings only, never on what it was: a book fed the same results agrees with one
    that saw the settings change (`retune`) on the way.
    """

    def __init__(
        self,
        floors: Mapping[str, float],
        learned: Mapping[tuple[str, str], float] | None = None,
        window: int = 20,
        min_samples: int = 5,
        z: float = Z_95,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.floors = dict(floors)
        self.learned = dict(learned or {})
        self.window = window
        self.min_samples = min_samples
        self.z = z
        self.clock = clock
        self._results: dict[tuple[str, str], deque[bool]] = {}
        self._gated: dict[tuple[str, str], float] = {}

    def observe(self, backend: str, intent: str, passed: Iterable[bool]) -> Change | None:
        """Add graded results (oldest first); returns the gate change they caused, if any."""
        key = (backend, intent)
        results = self._results.setdefault(key, deque(maxlen=self.window))
        results.extend(passed)
        return self._decide(key)

    def floor(self, backend: str, intent: str) -> float | None:
        """A floor learned for this backend wins over the configured floor of the intent;
        one above `reachable()` is capped there (see `out_of_reach`)."""
        learned = self.learned.get((backend, intent))
        if learned is None:
            return self.floors.get(intent)
        return min(learned, self.reachable())

    def reachable(self) -> float:
        """The highest floor the window can clear: the lower bound of a perfect window."""
        return wilson_lower(self.window, self.window, self.z)

    def out_of_reach(self) -> list[tuple[str, str, float]]:
        """Learned floors no window of results can clear, as (backend, intent, floor).

        A baseline that passed 99 of 100 with a margin of 0.1 learns 0.8455, above the 0.839
        that 20 passes of 20 show: the gate would close for good on a perfect backend. A
        configured floor like that is a config error; a learned one is capped at
        `reachable()` instead, because a baseline file is data that changes without a config
        edit, and the router must not refuse to start, or reject every reload, because a
        backend's baseline got better. Capped, the gate still closes on a regression (any
        failure in the window); the caller says so, and which window would let it act as
        learned (`samples_to_clear`).
        """
        best = self.reachable()
        return [(b, i, f) for (b, i), f in sorted(self.learned.items()) if f > best]

    def needed(self, floor: float) -> int:
        """Results in the window before its lower bound decides a gate with this floor:
        `min_samples`, or more when a perfect record of fewer could not clear the floor (at
        most the window: `floor()` caps a learned floor there, and the config refuses a
        configured one). With fewer, only an upper bound under the floor closes the gate."""
        return max(self.min_samples, min(samples_to_clear(floor, self.z), self.window))

    def _decide(self, key: tuple[str, str]) -> Change | None:
        """Closed when the window holds `min_samples` results and the floor is above their
        lower bound, or, with fewer than `needed`, above even their upper bound; open
        otherwise. A perfect record's upper bound is 1, so too few results to tell a good
        backend from a bad one close no gate, while a backend that failed all 12 cases stays
        gated when a reload raises the floor from 0.5 to 0.8 (16 needed). The rule reads the
        window only: it used to keep a gate closed on too few results only if it was closed
        already, so a router restarted after that reload rebuilt the gate from the ledger open
        while the running one kept it closed (found in re-review)."""
        floor = self.floor(*key)
        results = self._results.get(key, deque())
        n, passes = len(results), sum(results)
        lower, upper = wilson_interval(passes, n, self.z)
        was = key in self._gated
        needed = 0 if floor is None else self.needed(floor)
        now_gated = (
            floor is not None
            and n >= self.min_samples
            and (lower if n >= needed else upper) < floor
        )
        if now_gated == was:
            return None
        at = self.clock()
        if now_gated:
            self._gated[key] = at
        else:
            del self._gated[key]
        return Change(
            key[0],
            key[1],
            now_gated,
            lower,
            floor or 0.0,
            passes,
            n,
            at,
            needed,
            upper,
            self.min_samples,
        )

    def retune(
        self,
        floors: Mapping[str, float],
        learned: Mapping[tuple[str, str], float] | None = None,
        window: int | None = None,
        min_samples: int | None = None,
    ) -> list[Change]:
        """New floors from a hot reload, then every gate re-decided on the results the windows
        hold. What is None stays as it was; a shorter window keeps the newest results."""
        self.floors = dict(floors)
        if learned is not None:
            self.learned = dict(learned)
        if window is not None and window != self.window:
            self.window = window
            self._results = {k: deque(r, maxlen=window) for k, r in self._results.items()}
        if min_samples is not None:
            self.min_samples = min_samples
        changes = [self._decide(key) for key in list(self._results)]
        return [c for c in changes if c is not None]

    def forget(self, backend: str) -> None:
        """A backend that left the config: its windows and gates go with it."""
        for key in [k for k in self._results if k[0] == backend]:
            del self._results[key]
            self._gated.pop(key, None)

    def forget_suites(self, keep: Collection[str]) -> set[str]:
        """Suites a reload dropped from `canary.suites` (all but `keep`): their windows and
        gates go, as no run will reopen such a gate. Returns the suites forgotten."""
        dropped = {suite for _, suite in self._results if suite not in keep}
        for key in [k for k in self._results if k[1] in dropped]:
            del self._results[key]
            self._gated.pop(key, None)
        return dropped

    def gated(self) -> dict[str, frozenset[str]]:
        """backend → the intents whose auto route no longer includes it."""
        out: dict[str, set[str]] = {}
        for backend, intent in self._gated:
            out.setdefault(backend, set()).add(intent)
        return {b: frozenset(i) for b, i in out.items()}

    def pass_ratio(self, backend: str, intent: str) -> float | None:
        results = self._results.get((backend, intent))
        return sum(results) / len(results) if results else None

    def lower_bound(self, backend: str, intent: str) -> float | None:
        """The Wilson lower bound of the window's pass rate: the number a gate compares with
        the floor (once the window holds `needed(floor)` results), not the raw pass ratio."""
        results = self._results.get((backend, intent))
        return wilson_lower(sum(results), len(results), self.z) if results else None

    def standings(self) -> list[Standing]:
        out = []
        for (backend, intent), results in sorted(self._results.items()):
            n, passes = len(results), sum(results)
            out.append(
                Standing(
                    backend,
                    intent,
                    passes,
                    n,
                    round(wilson_lower(passes, n, self.z), 4),
                    self.floor(backend, intent),
                    (backend, intent) in self._gated,
                    self._gated.get((backend, intent)),
                )
            )
        return out
