"""Does a served router's memory level off under hours of traffic? A long soak, by hand.

The suite's soak (`tests/reliability/test_soak.py`) runs two minutes and bounds growth; an
8-minute run by hand drifted ~10 MiB. This drives `smf-router serve` against the vLLM
simulator with `wrk -c4` in one-minute slices (every third slice streamed) and prints, per
slice, requests served, RSS, what Arrow's pool holds (ledger flushes and merges, outside
the Python heap), the ledger's queue and size on disk and the collector's counts, so a trend
shows as a column. Bounded: `--minutes` slices of 60 s.

Run: `.venv/bin/python tests/bench/soak_memory.py --minutes 30`
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import httpx
from bench_proxy import (
    BIN,
    free_port,
    start,
    start_upstream,
    stop,
    wait_up,
    write_router_config,
    wrk,
)
from prometheus_client.parser import text_string_to_metric_families

SLICE_S = 60


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def gauge(metrics: str, name: str) -> float:
    """One unlabelled sample of the router's `/metrics` text (0 if absent)."""
    for family in text_string_to_metric_families(metrics):
        for sample in family.samples:
            if sample.name == name:
                return float(sample.value)
    return 0.0


def dir_mib(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=int, default=30, help="one-minute slices (bounded)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk not found: apt-get install wrk")
    tmp = Path(tempfile.mkdtemp(prefix="soak-memory-"))
    procs = []
    try:
        simulator, upstream = start_upstream()
        procs.append(simulator)
        port = free_port()
        config = write_router_config(upstream, tmp)
        router = start(
            [str(BIN / "smf-router"), "serve", "--config", str(config), "--port", str(port)]
        )
        procs.append(router)
        base = f"http://127.0.0.1:{port}"
        wait_up(f"{base}/readyz")
        print(f"idle RSS {rss_mib(router.pid):.0f} MiB")
        print(
            "| minute | kind | requests | errors | p99 ms | RSS MiB | Arrow MiB | ledger queue"
            " | ledger MiB | full GCs |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
        total = 0
        for minute in range(1, args.minutes + 1):
            stream = minute % 3 == 0
            r = wrk(f"{base}/v1", "auto", stream, 4, SLICE_S, tmp)
            total += r.requests
            heap = httpx.get(f"{base}/v1/router/status", timeout=5).json().get("heap", {})
            full = heap.get("collections", [0, 0, 0])[-1]
            metrics = httpx.get(f"{base}/metrics", timeout=5).text
            arrow = gauge(metrics, "smf_router_process_arrow_allocated_bytes") / 2**20
            queue = gauge(metrics, "smf_router_ledger_queue_depth")
            print(
                f"| {minute} | {'stream' if stream else 'plain'} | {r.requests:,} | {r.errors}"
                f" | {r.p99_ms:.1f} | {rss_mib(router.pid):.0f} | {arrow:.0f} | {queue:,.0f}"
                f" | {dir_mib(tmp / 'ledger'):.1f} | {full} |",
                flush=True,
            )
            time.sleep(0.5)
        print(f"total {total:,} requests")
    finally:
        for process in reversed(procs):
            stop(process)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
