"""One simulated gate, seeded and without a clock: what the hysteresis tests and the flap
bench (tests/bench/bench_gate_flap.py) both replay, so that the numbers in docs/benchmarks.md
and the tests' bounds come from the same rounds.

A local math backend against a floor of 0.6, window 20, min_samples 5; each round grades
`PER_ROUND` cases (canary.sample_per_suite), each passing with the given probability.
"""

from __future__ import annotations

import random

from router.gating import GateBook

PER_ROUND = 3  # canary.sample_per_suite
DROP_RATE = 0.4  # a regressed backend's pass rate


def book() -> GateBook:
    return GateBook({"math": 0.6}, window=20, min_samples=5, clock=lambda: 0.0)


def graded(rng: random.Random, rate: float) -> list[bool]:
    """One round's results at a true pass rate of `rate`."""
    return [rng.random() < rate for _ in range(PER_ROUND)]


def replay(rate: float, seed: int, rounds: int) -> tuple[int, int, int | None]:
    """Gate changes, rounds closed and the first closing round of a backend passing `rate`."""
    rng = random.Random(seed)
    gates = book()
    changes = closed = 0
    first: int | None = None
    for r in range(rounds):
        changes += gates.observe("local", "math", graded(rng, rate)) is not None
        if gates.gated():
            closed += 1
            first = r if first is None else first
    return changes, closed, first


def lead_in(rng: random.Random, before: int, rate: float) -> GateBook:
    """A book after `before` rounds at `rate`: the backend before it regresses."""
    gates = book()
    for _ in range(before):
        gates.observe("local", "math", graded(rng, rate))
    return gates


def rounds_to_close(gates: GateBook, rng: random.Random, limit: int = 200) -> int | None:
    """Rounds at `DROP_RATE` until the gate is closed, counting from 1 (1 also when it already
    was: a bad streak before the drop may have begun the closed verdict's run); None: still
    open after `limit`."""
    for r in range(1, limit + 1):
        gates.observe("local", "math", graded(rng, DROP_RATE))
        if gates.gated():
            return r
    return None


def regression(seed: int, before: int, lead_rate: float) -> int | None:
    """Rounds after a drop from `lead_rate` (for `before` rounds) to `DROP_RATE` until the gate
    closes (None: not in 200)."""
    rng = random.Random(seed)
    return rounds_to_close(lead_in(rng, before, lead_rate), rng)
