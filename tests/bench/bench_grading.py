"""Benchmark: what grading in a grading process (`evals.grading`) costs, and what it buys.

- per answer: the shipped cases' reference answers (every grader but unit tests, which
  run in the sandbox either way), graded inline against through the worker;
- a worker's start, to ready (its imports), and its resident memory;
- the event loop while a regex backtracks: the longest gap a 10 ms heartbeat saw, grading
  inline (as the canary did) against in the worker.

Run: ``.venv/bin/python tests/bench/bench_grading.py [--rounds 20]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from evals.graders import Answer, evaluator_of, grade, reference_answer
from evals.grading import Grader, GradingTimedOut
from evals.suite import SHIPPED, case_from_dict, load

SENTENCE = "the cat sat on a mat and then the dog ran to the park where a cat sat again"
SLOW = r"cat.*dog.*park.*zebra"  # no zebra: every cat, dog and park tried (review's case)


def per_case_us(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    p50 = ordered[len(ordered) // 2]
    return (
        f"mean {statistics.mean(samples) * 1e6:7.1f} µs  p50 {p50 * 1e6:7.1f}  p99 {p99 * 1e6:7.1f}"
    )


async def longest_gap(work: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    """The longest gap between a 10 ms heartbeat's turns while `work` runs, and its time."""
    gaps: list[float] = []
    done = asyncio.Event()

    async def beat() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last - 0.01)
            last = now

    task = asyncio.create_task(beat())
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    with contextlib.suppress(GradingTimedOut):
        await work()
    took = time.perf_counter() - started
    done.set()
    await task
    return max(gaps), took


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return int(next(ln for ln in status if ln.startswith("VmRSS:")).split()[1]) / 1024


async def main(rounds: int, words: int) -> None:
    cases = [c for c in load(SHIPPED) if evaluator_of(c) != "unit_test" and c.reference]
    answers = [(c, reference_answer(c)) for c in cases]
    inline: list[float] = []
    worker: list[float] = []
    async with Grader() as grader:
        await grader.grade(*answers[0])  # started
        for _ in range(rounds):
            for case, answer in answers:
                started = time.perf_counter()
                grade(case, answer)
                inline.append(time.perf_counter() - started)
                started = time.perf_counter()
                await grader.grade(case, answer)
                worker.append(time.perf_counter() - started)
        assert grader.pid is not None
        print(f"worker RSS after {len(worker)} answers: {rss_mb(grader.pid):.1f} MB")
    print(f"{len(answers)} shipped answers x {rounds}")
    print(f"  inline     {per_case_us(inline)}")
    print(f"  in worker  {per_case_us(worker)}")

    starts = []
    for _ in range(5):
        async with Grader() as fresh:
            started = time.perf_counter()
            await fresh.grade(*answers[0])
            starts.append(time.perf_counter() - started)
    print(f"worker start to first verdict: {', '.join(f'{s * 1e3:.0f}' for s in starts)} ms")

    cycle = SENTENCE.split()
    text = " ".join(cycle[i % len(cycle)] for i in range(words))
    slow = case_from_dict({"id": "s", "prompt": "p", "evaluator": "regex_match", "expected": SLOW})
    long_answer = Answer(content=text)
    gap, took = await longest_gap(lambda: asyncio.sleep(2))  # the machine's own noise
    print(f"nothing graded (a 2 s sleep): loop stalled {gap * 1e3:.1f} ms in {took:.2f} s")
    gap, took = await longest_gap(lambda: asyncio.sleep(0, grade(slow, long_answer)))
    print(f"{SLOW!r}, {len(text)} chars, inline: loop stalled {gap * 1e3:.1f} ms in {took:.2f} s")
    async with Grader(limit_s=60) as grader:
        await grader.grade(*answers[0])
        gap, took = await longest_gap(lambda: grader.grade(slow, long_answer))
    print(
        f"{SLOW!r}, {len(text)} chars, in worker: loop stalled {gap * 1e3:.1f} ms in {took:.2f} s"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--words", type=int, default=1000, help="words in the slow answer")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.words))
