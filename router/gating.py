"""Eval-gated routing, the pure part: recent canary results per backend and intent → gates.

A window's verdict is "closed" when the Wilson lower bound of the pass rate over its last K
results is below the intent's floor (with fewer results than a record of all passes needs to
clear the floor, the upper bound decides instead). A gate follows a verdict only once it has
held for half a window of results in a row (`settling`): that is its hysteresis. A gate
depends on the last few windows' results only (`GateBook.memory`), so a restarted router
replaying the ledger agrees with the running one. Nothing here does I/O; time comes in as an
injected clock so tests decide when things happen.
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


def settling(window: int) -> int:
    """Results in a row a window's verdict must hold for before a gate follows it.

    Consecutive windows share all but one result, so the pass count of a backend whose rate
    sits where the verdict turns (17 of 20 for a floor of 0.6) walks across that line one
    result at a time, and a gate that followed every window flapped: ~400 changes a month at
    a true rate of 0.85 (docs/benchmarks.md). A verdict that holds while half the window is
    replaced rests mostly on other results than the one that first said it; a walk sitting on
    the line rarely stays on one side that long, a backend clearly on one side always does.
    The rule is symmetric, so it does not move how often a gate is closed, only when: each
    change comes this many results after its verdict first showed.
    """
    return max(1, math.ceil(window / 2))


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one window says: whether its gate should be closed, and the numbers that say so."""

    gated: bool
    lower: float
    upper: float
    passes: int
    n: int
    needed: int  # results the lower bound needs (`GateBook.needed`); 0 without a floor


def settled(verdicts: list[Verdict], hold: int) -> Verdict | None:
    """The newest verdict that ended a run of `hold` alike, in order; None: no run that long."""
    run = 0
    for i in range(len(verdicts) - 1, -1, -1):
        alike = i + 1 < len(verdicts) and verdicts[i].gated == verdicts[i + 1].gated
        run = run + 1 if alike else 1
        if run >= hold:
            return verdicts[i + hold - 1]
    return None


def majority(verdicts: list[Verdict]) -> Verdict:
    """With no verdict that held (`settled`): the newest that says what most say, open on an
    even split. A verdict that turns every few results (a pass rate sitting on the line, or
    a fixed set of cases some of which a grader always fails) gives no run that long; the
    newest verdict alone flipped the gate every round there, the share of the last
    `lookback` moves slowly."""
    side = 2 * sum(v.gated for v in verdicts) > len(verdicts)
    return next(v for v in reversed(verdicts) if v.gated == side)


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
    """Graded canary results per backend × intent, and the gates they imply.

    Errors and N/A never enter the window: a down backend is not a quality signal (the
    circuit breaker handles that). A window (the last `window` results) needs `min_samples`
    results before its verdict may be "closed". Its lower bound decides once it holds as many
    as a record of all passes needs to clear the floor (`needed`); with fewer, only an upper
    bound under the floor closes it, as a perfect record never could. A gate follows the
    newest verdict that held for `hold` results in a row among the last `lookback`; with none
    that long, what most of them say (`majority`; windows of fewer than `min_samples` say
    nothing). Whether a gate is closed depends on
    the last `memory` results and the settings only, never on what it was: a book fed the
    same results agrees with one that saw the settings change (`retune`) on the way, and with
    a restarted router that read them back from the ledger.
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

    @property
    def hold(self) -> int:
        """Results in a row a verdict must hold for before a gate follows it (`settling`)."""
        return settling(self.window)

    @property
    def lookback(self) -> int:
        """The newest windows (one ending at each result) searched for a verdict that held."""
        return 2 * self.window

    @property
    def memory(self) -> int:
        """Results kept per backend × intent: the `lookback` windows' results, all that a gate
        depends on, so what a restart's recall reads back (`Follower.recall_rounds`)."""
        return self.window + self.lookback - 1

    def observe(self, backend: str, intent: str, passed: Iterable[bool]) -> Change | None:
        """Add graded results (oldest first); returns the gate change they caused, if any."""
        key = (backend, intent)
        results = self._results.setdefault(key, deque(maxlen=self.memory))
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

    def _window(self, key: tuple[str, str]) -> list[bool]:
        """The last `window` results: what the gauges, status and the newest verdict read."""
        results = self._results.get(key, deque())
        return list(results)[-self.window :]

    def _verdict(self, results: list[bool], floor: float | None) -> Verdict:
        """Closed when the window holds `min_samples` results and the floor is above their
        lower bound, or, with fewer than `needed`, above even their upper bound. A perfect
        record's upper bound is 1, so too few results to tell a good backend from a bad one
        say "open", while a backend that failed all 12 cases says "closed" when a reload
        raises the floor from 0.5 to 0.8 (16 needed)."""
        n, passes = len(results), sum(results)
        lower, upper = wilson_interval(passes, n, self.z)
        needed = 0 if floor is None else self.needed(floor)
        gated = (
            floor is not None
            and n >= self.min_samples
            and (lower if n >= needed else upper) < floor
        )
        return Verdict(gated, lower, upper, passes, n, needed)

    def _decide(self, key: tuple[str, str]) -> Change | None:
        """The gate as the verdicts of the last `lookback` windows say (`settled`, else
        `majority`); a `Change` with the deciding window's numbers if it
        moved. The rule reads the results only: it used to keep a gate closed on too few
        results only if it was closed already, so a router restarted after that reload
        rebuilt the gate from the ledger open while the running one kept it closed (found in
        re-review)."""
        floor = self.floor(*key)
        results = list(self._results.get(key, ()))
        first = max(1, len(results) - self.lookback + 1)
        windows = [
            results[max(0, end - self.window) : end] for end in range(first, len(results) + 1)
        ]
        verdicts = [self._verdict(w, floor) for w in windows if len(w) >= self.min_samples]
        if not verdicts:  # too few results for any verdict
            verdicts = [self._verdict(results[-self.window :], floor)]
        deciding = settled(verdicts, self.hold) or majority(verdicts)
        was = key in self._gated
        if deciding.gated == was:
            return None
        at = self.clock()
        if deciding.gated:
            self._gated[key] = at
        else:
            del self._gated[key]
        return Change(
            key[0],
            key[1],
            deciding.gated,
            deciding.lower,
            floor or 0.0,
            deciding.passes,
            deciding.n,
            at,
            deciding.needed,
            deciding.upper,
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
            self._results = {k: deque(r, maxlen=self.memory) for k, r in self._results.items()}
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
        results = self._window((backend, intent))
        return sum(results) / len(results) if results else None

    def lower_bound(self, backend: str, intent: str) -> float | None:
        """The Wilson lower bound of the window's pass rate: the number a gate compares with
        the floor (once the window holds `needed(floor)` results), not the raw pass ratio."""
        results = self._window((backend, intent))
        return wilson_lower(sum(results), len(results), self.z) if results else None

    def standings(self) -> list[Standing]:
        out = []
        for backend, intent in sorted(self._results):
            results = self._window((backend, intent))
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
