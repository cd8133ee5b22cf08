"""How often a canary gate changes, and how long it is closed, at a given true pass rate.

The review's simulation (docs/benchmarks.md, "Gate hysteresis"): 30 days of rounds every
900 s (2,880), 3 graded cases a round, window 20, min_samples 5, floor 0.6, five seeds per
rate; and a backend that regresses from 0.95 to 0.4, how many rounds until its gate closes
(1,000 seeds: the spread, not just the mean, says how long a regression may go ungated).
Bounded (fixed rounds and seeds), no clock. Run: `python tests/bench/bench_gate_flap.py`.
"""

from __future__ import annotations

import random
from collections import Counter

from router.gating import GateBook

ROUNDS, PER_ROUND, SEEDS = 2880, 3, 5
REGRESSION_SEEDS = 1000


def month(rate: float, seed: int) -> tuple[int, float, int | None]:
    """Gate changes, share of rounds closed, and the first closing round."""
    rng = random.Random(seed)
    book = GateBook({"math": 0.6}, window=20, min_samples=5, clock=lambda: 0.0)
    changes = closed = 0
    first: int | None = None
    for r in range(ROUNDS):
        change = book.observe("local", "math", [rng.random() < rate for _ in range(PER_ROUND)])
        changes += change is not None
        if book.gated():
            closed += 1
            first = r if first is None else first
    return changes, closed / ROUNDS, first


def regression(seed: int, before: int) -> int | None:
    """Rounds after a drop from 0.95 (for `before` rounds) to 0.4 until the gate closes
    (None: not in 200)."""
    rng = random.Random(seed)
    book = GateBook({"math": 0.6}, window=20, min_samples=5, clock=lambda: 0.0)
    for _ in range(before):
        book.observe("local", "math", [rng.random() < 0.95 for _ in range(PER_ROUND)])
    for r in range(1, 201):
        book.observe("local", "math", [rng.random() < 0.4 for _ in range(PER_ROUND)])
        if book.gated():
            return r
    return None


def main() -> None:
    print("| true pass rate | gate changes / month | time closed | first close (round) |")
    print("|---|---|---|---|")
    for rate in (0.4, 0.85, 0.9, 0.95):
        runs = [month(rate, seed) for seed in range(SEEDS)]
        changes = sum(c for c, _, _ in runs) / SEEDS
        closed = sum(s for _, s, _ in runs) / SEEDS
        firsts = [f for _, _, f in runs if f is not None]
        first = f"{min(firsts)}–{max(firsts)}" if firsts else "never"
        print(f"| {rate:.2f} | {changes:.1f} | {closed:.1%} | {first} |")
    for before in (40, 200):  # the review's lead-in, and a longer one
        delays = [regression(seed, before) for seed in range(REGRESSION_SEEDS)]
        known = [d for d in delays if d is not None]
        print(
            f"\n0.95 for {before} rounds → 0.4: closed after {min(known)}–{max(known)} rounds "
            f"(mean {sum(known) / len(known):.1f}, "
            f"{len(delays) - len(known)} of {REGRESSION_SEEDS} not in 200)"
        )
        print("| rounds to close | seeds | share |")
        print("|---|---|---|")
        for rounds, n in sorted(Counter(known).items()):
            print(f"| {rounds} | {n} | {n / REGRESSION_SEEDS:.1%} |")


if __name__ == "__main__":
    main()
