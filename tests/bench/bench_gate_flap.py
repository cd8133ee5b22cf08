"""How often a canary gate changes, and how long it is closed, at a given true pass rate.

The review's simulation (docs/benchmarks.md, "Gate hysteresis"): 30 days of rounds every
900 s (2,880), 3 graded cases a round, window 20, min_samples 5, floor 0.6, five seeds per
rate; and a backend that regresses from 0.95 to 0.4, how many rounds until its gate closes
(1,000 seeds: the spread, not just the mean, says how long a regression may go ungated).
Bounded (fixed rounds and seeds), no clock. Run: `python tests/bench/bench_gate_flap.py`.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.canary.gate_simulation import regression, replay

ROUNDS, SEEDS = 2880, 5
REGRESSION_SEEDS = 1000


def month(rate: float, seed: int) -> tuple[int, float, int | None]:
    """Gate changes, share of rounds closed, and the first closing round."""
    changes, closed, first = replay(rate, seed, ROUNDS)
    return changes, closed / ROUNDS, first


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
        delays = [regression(seed, before, 0.95) for seed in range(REGRESSION_SEEDS)]
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
