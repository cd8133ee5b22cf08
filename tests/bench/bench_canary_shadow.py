"""Benchmark: what the canary scheduler and shadow replays cost live traffic.

A real router in front of two simulators (20 ms to first token). Four clients send math
questions (auto-routed to the cloud) in a closed loop; we compare live p50/p95 latency with
each feature off and on: shadow at rate 1.0 toward local, and the canary every 0.5 s over
every shipped suite (3 cases each, concurrency 2, coding cases in the real sandbox).
Run: ``.venv/bin/python tests/bench/bench_canary_shadow.py [--requests 300]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.harness import config_for, router, simulator

CLIENTS = 4


async def _traffic(url: str, total: int) -> list[float]:
    latencies: list[float] = []
    counter = iter(range(total))

    async def client(http: httpx.AsyncClient) -> None:
        for n in counter:
            body = {
                "model": "auto",
                "messages": [{"role": "user", "content": f"What is {n} + 17?"}],
            }
            began = time.perf_counter()
            response = await http.post(f"{url}/chat/completions", json=body)
            response.raise_for_status()
            latencies.append(time.perf_counter() - began)

    async with httpx.AsyncClient(timeout=30) as http:
        await asyncio.gather(*(client(http) for _ in range(CLIENTS)))
    return latencies


def scenario(name: str, total: int, **extra: Any) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        simulator(profile="vllm", model="local-model", ttft_s=0.02) as local,
        simulator(profile="cloud", model="cloud-model", ttft_s=0.02) as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, Path(tmp), **extra)
        with router(config) as r:
            asyncio.run(_traffic(r.url, 20))  # warm up
            began = time.perf_counter()
            latencies = asyncio.run(_traffic(r.url, total))
            wall = time.perf_counter() - began
            status = httpx.get(f"{r.root}/v1/router/status", timeout=5).json()["extra"]
        local_chats = local.stats()["by_path"].get("/v1/chat/completions", 0)
    q = statistics.quantiles(latencies, n=20)
    return {
        "scenario": name,
        "p50_ms": statistics.median(latencies) * 1000,
        "p95_ms": q[18] * 1000,
        "rps": total / wall,
        "local_chats": local_chats,
        "shadow": status.get("shadow", {}).get("counts"),
        "canary_runs": status.get("canary", {}).get("runs"),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    canary = {
        "enabled": True,
        "interval_s": 0.5,
        "sample_per_suite": 3,
        "concurrency": 2,
    }
    rows = [
        scenario("baseline (both off)", args.requests),
        scenario("shadow on (math 100% -> local)", args.requests, shadow={"rates": {"math": 1.0}}),
        scenario("canary every 0.5 s", args.requests, canary=canary),
    ]
    print("| scenario | live p50 | live p95 | req/s | local chats | shadow | canary runs |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['scenario']} | {row['p50_ms']:.1f} ms | {row['p95_ms']:.1f} ms | "
            f"{row['rps']:.0f} | {row['local_chats']} | {row['shadow']} | {row['canary_runs']} |"
        )


if __name__ == "__main__":
    main()
