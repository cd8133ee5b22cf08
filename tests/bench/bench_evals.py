"""Benchmark: 157 cases (the strict_v01 size) against a local fake endpoint, sequential vs
concurrent. The endpoint answers every case with its reference after a fixed "generation"
delay, so wall time shows how well the runner keeps a backend busy; unit-test cases also pay
for the real sandbox. Run: ``.venv/bin/python tests/bench/bench_evals.py [--delay 0.25]``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "evals"))

from fake_chat_server import FakeServer, completion, serve

from evals.graders import reference_answer
from evals.runner import Endpoint, run_cases
from evals.suite import SHIPPED, Case, load

CASES = 157


def bench_cases() -> list[Case]:
    """157 cases cycled from our shipped suites (ids made unique)."""
    shipped = load(SHIPPED)
    return [
        dataclasses.replace(shipped[i % len(shipped)], id=f"{shipped[i % len(shipped)].id}#{i}")
        for i in range(CASES)
    ]


def responder(cases: list[Case], delay: float) -> Any:
    by_prompt = {c.prompt: c for c in cases}

    async def answer(body: dict[str, Any]) -> tuple[int, Any]:
        await asyncio.sleep(delay)
        ref = reference_answer(by_prompt[body["messages"][-1]["content"]])
        return 200, completion(ref.content, ref.tool_calls or None)

    return answer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.25, help="simulated generation seconds")
    parser.add_argument("--levels", default="1,8,32")
    args = parser.parse_args()
    cases = bench_cases()
    print(f"{len(cases)} cases, {Counter(c.suite for c in cases)}; delay {args.delay}s")
    with serve(FakeServer(responder=responder(cases, args.delay))) as server:
        endpoint = Endpoint(server.base_url, "fake")
        base = None
        for level in (int(x) for x in args.levels.split(",")):
            server.peak = 0
            started = time.perf_counter()
            out = asyncio.run(run_cases(cases, endpoint, concurrency=level, timeout_s=60))
            wall = time.perf_counter() - started
            base = base or wall
            passed = sum(r.status == "pass" for r in out)
            print(
                f"concurrency {level:>3}: wall {wall:6.2f}s  speed-up {base / wall:5.1f}x  "
                f"peak in flight {server.peak:>3}  passed {passed}/{len(out)}"
            )


if __name__ == "__main__":
    main()
