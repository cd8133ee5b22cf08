"""The gate's hysteresis: a verdict must hold for half a window before a gate follows it.

Seeded sequences, no clock: what the review measured live (a local math backend near 0.85
against a 0.6 floor, closed and reopened every few rounds) and what must not change (a bad
backend still closes within a few rounds, and a restart agrees with the running book).
"""

from __future__ import annotations

import random

from router.gating import GateBook
from tests.canary.gate_simulation import lead_in, replay, rounds_to_close

ROUNDS = 300  # about three days at 900 s


def test_a_backend_near_the_line_does_not_flap() -> None:
    """At 0.85 the window's count walks across 16|17 of 20 one result at a time: the old
    rule followed it, 48 changes in these 300 rounds (seed 7); it now changes under 20."""
    changes, closed, _ = replay(0.85, seed=7, rounds=ROUNDS)
    assert changes <= 20
    assert 0 < closed < ROUNDS  # still gated at times: the rule moves when, not how often


def test_a_bad_backend_still_closes_within_a_few_rounds_and_stays_closed() -> None:
    for seed in range(10):
        changes, closed, first = replay(0.4, seed=seed, rounds=100)
        assert first is not None and first <= 4
        assert changes == 1 and closed == 100 - first


def test_a_regression_closes_the_gate_within_a_few_rounds() -> None:
    """From all passes to 0.4: the closed verdicts must hold for 10 results, about 3 rounds
    more. Seeded, so the same ten runs every time: 7 rounds suffice for these seeds; not a
    bound (from 0.95, about 1 % of seeds take 8-11: docs/benchmarks.md)."""
    for seed in range(10):
        rng = random.Random(seed)
        book = lead_in(rng, before=50, rate=1.0)
        assert book.gated() == {}
        rounds_to_close(book, rng, limit=7)
        assert book.gated() == {"local": frozenset({"math"})}, f"seed {seed}: open after 7"


def test_a_book_rebuilt_from_its_memory_agrees_at_every_round() -> None:
    """What a restart does: a fresh book fed the last `memory` results, in other batches
    than the rounds that brought them, decides every gate as the running book does."""
    rng = random.Random(3)
    running = GateBook({"math": 0.6}, window=20, min_samples=5)
    seen: list[bool] = []
    for _ in range(400):
        got = [rng.random() < 0.85 for _ in range(rng.randint(1, 5))]
        seen.extend(got)
        running.observe("local", "math", got)
        restarted = GateBook({"math": 0.6}, window=20, min_samples=5)
        for i in range(max(0, len(seen) - running.memory), len(seen), 7):
            restarted.observe("local", "math", seen[i : min(i + 7, len(seen))])
        assert restarted.gated() == running.gated()
