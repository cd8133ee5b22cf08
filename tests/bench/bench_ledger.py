"""Ledger benchmarks: submit cost, sustained writer ingest, full report over 10M records.

Run: .venv/bin/python -m tests.bench.bench_ledger [--records 10000000] [--data DIR]
     .venv/bin/python -m tests.bench.bench_ledger --cadence  (flushes over a level-2 merge)
Targets (issue 4): submit ≤ 20 µs, ingest ≥ 100k records/s, report ≤ 2 s and ≤ 1 GB.
The synthetic ledger is generated straight into Parquet (one compacted file per day, as
`compact` leaves a past year), then `compact` writes each day's rollup; both are cached in
DIR between runs. `--raw` times the report without rollups (as before the first compact).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa

from router.ledger import LedgerWriter, compaction, segment_write, segments
from router.ledger.schema import ATTEMPT_TYPE, RECORDS
from router.record import Attempt, Record, Usage

ROUTES = np.array(
    ["coding", "tool_calling", "instruction", "math", "reasoning", "prose", "writing"]
)
CALLERS = np.array([f"agent-{i}" for i in range(20)])


def sample_records(n: int) -> list[Record]:
    now = time.time()
    return [
        Record(
            request_id=f"req-{i}",
            started_at=now,
            ended_at=now + 1.2,
            caller="agent-1",
            requested_model="auto",
            intent="coding",
            confidence=0.9,
            route="coding",
            backend="local",
            tier="local",
            served_model="laguna",
            attempts=[Attempt("local", "local", duration_s=1.2)],
            usage=Usage(1800, 400, 1024, 0),
            ttft_s=0.21,
            duration_s=1.2,
            cost_usd=0.0001,
            counterfactual_usd=0.008,
            conversation="c0ffee",
        )
        for i in range(n)
    ]


def bench_submit(n: int = 1_000_000) -> float:
    """Mean seconds per submit() with the flush thread running."""
    records = sample_records(1000)
    with tempfile.TemporaryDirectory() as tmp:
        writer = LedgerWriter(
            Path(tmp), flush_interval_s=1.0, max_queue=n + 1, max_queue_bytes=(n + 1) * 10_000
        )
        writer.start()
        began = time.perf_counter()
        for i in range(n):
            writer.submit(records[i % 1000])
        per = (time.perf_counter() - began) / n
        writer.close()
    return per


def bench_ingest(n: int = 1_000_000) -> tuple[float, float]:
    """Records/s from first submit until all are on disk; and the longest flush (s)."""
    records = sample_records(n)
    with tempfile.TemporaryDirectory() as tmp:
        writer = LedgerWriter(
            Path(tmp), flush_interval_s=1.0, max_queue=n + 1, max_queue_bytes=(n + 1) * 10_000
        )
        writer.start()
        longest = 0.0
        began = time.perf_counter()
        for i, record in enumerate(records):
            writer.submit(record)
            if i % 10_000 == 0:
                longest = max(longest, writer.last_flush_seconds)
        writer.close()
        elapsed = time.perf_counter() - began
        assert writer.written_total == n, writer.written_total
    return n / elapsed, max(longest, writer.last_flush_seconds)


def bench_cadence(per_flush: int = 2_500) -> dict[str, float]:
    """Flush durations over one full level-2 merge cycle (60 x 24 flushes, 3.6M records at
    the default size): how long records wait while the writer's own merges run."""
    from router.ledger.appender import MERGE_FANOUT

    batch = sample_records(per_flush)
    flushes = MERGE_FANOUT[0] * MERGE_FANOUT[1] + 5
    durations: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        writer = LedgerWriter(Path(tmp), process_tag="bench")
        began = time.perf_counter()
        for _ in range(flushes):
            for record in batch:
                writer.submit(record)
            start = time.perf_counter()
            writer.flush()
            durations.append(time.perf_counter() - start)
        writer.wait_for_merges()
        total = time.perf_counter() - began
        writer.close()
    durations.sort()
    return {
        "records": flushes * per_flush,
        "p50_ms": durations[len(durations) // 2] * 1000,
        "p99_ms": durations[int(len(durations) * 0.99)] * 1000,
        "max_ms": durations[-1] * 1000,
        "total_s": total,
        "arrow_peak_mib": pa.default_memory_pool().max_memory() / 2**20,
    }


def synthetic_day(day: datetime, n: int, rng: np.random.Generator) -> pa.Table:
    base = int(day.timestamp() * 1_000_000)
    started = np.sort(base + rng.integers(0, 86_400_000_000, n))
    local = rng.random(n) < 0.6
    route = ROUTES[rng.integers(0, len(ROUTES), n)]
    backend = np.where(local, "local", "cloud")
    prompt = rng.integers(200, 20_000, n)
    completion = rng.integers(20, 2_000, n)
    duration = rng.gamma(2.0, 1.5, n)
    cloud_cost = prompt * 2.5e-6 + completion * 1e-5
    cost = np.where(local, duration * 3e-5, cloud_cost)
    ok = rng.random(n) > 0.01
    attempts = pa.ListArray.from_arrays(
        pa.array(np.arange(n + 1, dtype=np.int32)),
        pa.StructArray.from_arrays(
            [
                pa.array(backend),
                pa.array(backend),
                pa.array(np.where(ok, "ok", "error")),
                pa.nulls(n, pa.string()),
                pa.nulls(n, pa.int32()),
                pa.array(duration),
            ],
            fields=list(ATTEMPT_TYPE),
        ),
    )
    cols = {
        "request_id": pa.array(np.char.add("r", np.arange(n).astype(str))),
        "started_at": pa.array(started).cast(pa.timestamp("us")),
        "ended_at": pa.array(started + (duration * 1e6).astype(np.int64)).cast(pa.timestamp("us")),
        "api": pa.array(np.full(n, "chat")),
        "caller": pa.array(CALLERS[rng.integers(0, len(CALLERS), n)]),
        "requested_model": pa.array(np.full(n, "auto")),
        "intent": pa.array(route),
        "confidence": pa.array(rng.random(n).astype(np.float32)),
        "intent_source": pa.array(np.full(n, "model")),
        "route": pa.array(route),
        "backend": pa.array(backend),
        "tier": pa.array(backend),
        "served_model": pa.array(np.where(local, "laguna", "gpt-4o")),
        "attempts": attempts,
        "n_attempts": pa.array(np.ones(n, np.int16)),
        "fallbacks": pa.array((rng.random(n) < 0.03).astype(np.int16)),
        "fallback_reason": pa.nulls(n, pa.string()),
        "stream": pa.array(rng.random(n) < 0.8),
        "status": pa.array(np.where(ok, 200, 502).astype(np.int16)),
        "outcome": pa.array(np.where(ok, "ok", "upstream_error")),
        "error_kind": pa.nulls(n, pa.string()),
        "prompt_tokens": pa.array(prompt),
        "completion_tokens": pa.array(completion),
        "cached_tokens": pa.array(prompt // 2),
        "cache_write_tokens": pa.array(np.zeros(n, np.int64)),
        "reasoning_tokens": pa.array(np.zeros(n, np.int64)),
        "tokens_estimated": pa.array(np.zeros(n, bool)),
        "ttft_s": pa.array(duration * 0.1),
        "duration_s": pa.array(duration),
        "cost_usd": pa.array(cost),
        "counterfactual_usd": pa.array(cloud_cost),
        "conversation": pa.nulls(n, pa.string()),
        "private": pa.array(np.zeros(n, bool)),
    }
    return pa.Table.from_pydict(cols, schema=RECORDS)


def make_synthetic(directory: Path, total: int, days: int = 365) -> None:
    marker = directory / f".complete-{total}"
    if marker.exists():
        return
    rng = np.random.default_rng(7)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    per_day = total // days
    for d in range(days):
        day = start + timedelta(days=d)
        n = per_day + (total - per_day * days if d == days - 1 else 0)
        path = (
            segments.day_dir(directory, "records", day.date().isoformat()) / "compacted-0.parquet"
        )
        segment_write.write_segment(path, synthetic_day(day, n, rng), price_map_version="synthetic")
    marker.touch()


REPORT_CHILD = """
import json, sys, time
from pathlib import Path
from router import report
t = time.perf_counter()
data = report.build(Path(sys.argv[1]), by="route")
elapsed = time.perf_counter() - t
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork and exec
hwm = [x for x in open("/proc/self/status") if x.startswith("VmHWM:")][0]
rss = int(hwm.split()[1]) * 1024
n = data["totals"]["requests"]
print("RESULT", json.dumps({"seconds": elapsed, "peak_rss": rss, "requests": n}))
"""


def bench_report(directory: Path) -> dict[str, float]:
    """Time and peak memory of report.build in a fresh process (imports excluded from time)."""
    out = subprocess.run(
        [sys.executable, "-c", REPORT_CHILD, str(directory)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    lines = [x for x in out.stdout.splitlines() if x.startswith("RESULT ")]
    if out.returncode or not lines:
        raise RuntimeError(f"report child failed ({out.returncode}): {out.stderr[-2000:]}")
    line = lines[-1]
    return dict(json.loads(line.removeprefix("RESULT ")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=10_000_000)
    parser.add_argument(
        "--data", type=Path, default=Path(tempfile.gettempdir()) / "smf-bench-ledger"
    )
    parser.add_argument("--raw", action="store_true", help="no rollups: scan every record")
    parser.add_argument("--cadence", action="store_true", help="only flushes over a merge")
    args = parser.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores,"
        f" python {platform.python_version()}, {datetime.now(UTC):%Y-%m-%d}"
    )
    if args.cadence:
        c = bench_cadence()
        print(
            f"flushes over a level-2 merge ({c['records']:,.0f} records): p50 {c['p50_ms']:.1f}"
            f" ms, p99 {c['p99_ms']:.1f} ms, max {c['max_ms']:.0f} ms; {c['total_s']:.1f} s in"
            f" all; Arrow peak {c['arrow_peak_mib']:.0f} MiB"
        )
        return
    per = bench_submit()
    print(f"submit: {per * 1e6:.2f} µs per record (target ≤ 20 µs)")
    rate, longest = bench_ingest()
    print(
        f"ingest: {rate:,.0f} records/s sustained, longest flush {longest:.2f} s (target ≥ 100k/s)"
    )
    data = args.data / str(args.records)
    began = time.perf_counter()
    make_synthetic(data, args.records)
    print(
        f"synthetic ledger: {args.records:,} records ready in {time.perf_counter() - began:.1f} s"
    )
    if args.raw:  # the same records, seen through a directory without the rollups
        raw = args.data / f"{args.records}-raw"
        raw.mkdir(exist_ok=True)
        if not (raw / "records").exists():
            (raw / "records").symlink_to(data / "records")
        data = raw
    else:
        began = time.perf_counter()
        done = compaction.compact(data).rollups
        print(f"compact: {done} day rollups written in {time.perf_counter() - began:.1f} s")
    for _ in range(2):  # the first run also warms the page cache
        result = bench_report(data)
    print(
        f"report: {result['seconds']:.2f} s, peak RSS {result['peak_rss'] / 2**20:.0f} MiB"
        f" over {result['requests']:,} records (target ≤ 2 s, ≤ 1 GiB)"
    )


if __name__ == "__main__":
    main()
