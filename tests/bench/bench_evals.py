"""Benchmark: 157 cases (the strict_v01 size) against the simulator, sequential vs
concurrent. The simulator answers every case with its reference (canary answers) after a
fixed "generation" delay (its time to first token), so wall time shows how well the runner
keeps a backend busy; unit-test cases also pay for the real sandbox.
Run: ``.venv/bin/python tests/bench/bench_evals.py [--delay 0.25]``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import time
from collections import Counter

import httpx

from evals.endpoint import Endpoint
from evals.runner import run_cases
from evals.suite import SHIPPED, Case, load
from router.simulator import SimSettings, running

CASES = 157


def bench_cases() -> list[Case]:
    """157 cases cycled from our shipped suites (ids made unique)."""
    shipped = load(SHIPPED)
    return [
        dataclasses.replace(shipped[i % len(shipped)], id=f"{shipped[i % len(shipped)].id}#{i}")
        for i in range(CASES)
    ]


def peak_in_flight(root: str) -> int:
    """The simulator's peak of requests in flight since the last reset."""
    return int(httpx.get(f"{root}/sim/stats", timeout=5, trust_env=False).json()["peak_in_flight"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.25, help="simulated generation seconds")
    parser.add_argument("--levels", default="1,8,32")
    args = parser.parse_args()
    cases = bench_cases()
    print(f"{len(cases)} cases, {Counter(c.suite for c in cases)}; delay {args.delay}s")
    settings = SimSettings(model="fake", ttft_s=args.delay, max_num_seqs=1024)
    with running(settings) as root:
        endpoint = Endpoint(f"{root}/v1", "fake")
        base = None
        for level in (int(x) for x in args.levels.split(",")):
            httpx.post(f"{root}/sim/reset", timeout=5, trust_env=False).raise_for_status()
            started = time.perf_counter()
            out = asyncio.run(run_cases(cases, endpoint, concurrency=level, timeout_s=60))
            wall = time.perf_counter() - started
            base = base or wall
            passed = sum(r.status == "pass" for r in out)
            print(
                f"concurrency {level:>3}: wall {wall:6.2f}s  speed-up {base / wall:5.1f}x  "
                f"peak in flight {peak_in_flight(root):>3}  passed {passed}/{len(out)}"
            )


if __name__ == "__main__":
    main()
