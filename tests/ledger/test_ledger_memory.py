"""What a router's ledger holds in memory: no PyArrow until a row, of PyArrow no more than
writing, merging and following rows need, and not what a merge freed.

The writer's first flush made its appender, loading PyArrow (~40 MB resident), with nothing
to write: a router that served nothing held it from its first interval on, and the idle
memory measured at ready missed it (found in review). Libraries a process imported stay
loaded for good: what a rare path needs is imported by that path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from classifier.intent import INTENTS
from router.serve import ARROW_POOL
from tests.harness import sdk, simulator
from tests.processes import router_process
from tests.slots import must_reach, status_extra

ARROW = "libarrow"  # PyArrow's C++ library, mapped once `import pyarrow` ran

IDLE_WRITER = """
import json, sys, time
from router.ledger import LedgerWriter
from router.ledger.recent import recall_days
writer = LedgerWriter(sys.argv[1])
idle = {"flushed": writer.flush(), "ok": writer.last_ok_flush_unix}
idle["arrow after flush"] = "pyarrow" in sys.modules
idle["days"] = recall_days(writer.directory, "canary_runs", time.time(), 730)
idle["arrow after recall"] = "pyarrow" in sys.modules
writer.close()
idle["arrow after close"] = "pyarrow" in sys.modules
idle["status"] = writer.status()
print(json.dumps(idle))
"""


def mapped(process: subprocess.Popen[bytes], library: str) -> bool:
    """Whether `library` is mapped into the running process. `serve` makes itself
    non-dumpable: only root (with its capabilities) may read its maps."""
    try:
        maps = Path(f"/proc/{process.pid}/maps").read_text()
    except PermissionError:
        pytest.skip("this user may not read a non-dumpable router's /proc/PID/maps")
    return library in maps


def test_a_flush_with_nothing_queued_is_ok_and_imports_no_arrow(tmp_path: Path) -> None:
    """Before its first row the writer makes no appender (PyArrow), yet says the flush went
    through; nor does a close with nothing queued, or a look for canary days in a ledger
    that has none."""
    done = subprocess.run(
        [sys.executable, "-c", IDLE_WRITER, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    idle = json.loads(done.stdout)
    assert idle["flushed"] == 0 and idle["ok"] is not None and idle["days"] == []
    loaded = [step for step in ("flush", "recall", "close") if idle[f"arrow after {step}"]]
    assert loaded == []
    status = idle["status"]
    assert status["last_ok_flush_unix"] is not None and status["last_write_unix"] is None
    assert status["last_write_failed"] is False and status["pending_rows"] == 0
    assert set(status["dropped_rows"].values()) == {0}
    assert (tmp_path / "records").is_dir()  # a ledger at once, rows or not (presence)


WRITING_AND_MERGING = """
import sys, time
from router.ledger import LedgerWriter, appender, segments
from router.ledger.recent import RecentRows
from router.record import Attempt, Record, Usage
appender.MERGE_FANOUT = (3, 24)
writer = LedgerWriter(sys.argv[1], store_text=True)
for n in range(4):  # the third file of each table is merged with the two before
    attempt = Attempt("local", "local", duration_s=0.5)
    writer.submit(Record(f"r{n}", time.time(), attempts=[attempt], usage=Usage(9, 4, 0, 0),
                         prompt_text="hi", completion_text="hello"))
    writer.submit_row("canary_runs", {"run_id": f"c{n}", "ts": time.time(), "cases": 3})
    writer.flush()
writer.wait_for_merges()
read = RecentRows(writer.directory, "canary_runs").read("1970-01-01")  # the canary follower's
writer.close()
merged = [s for t in ("records", "texts", "canary_runs")
          for s in segments.list_table(writer.directory, t).segments if s.sources]
loaded = [name for name in ("pyarrow.compute", "pyarrow.dataset") if name in sys.modules]
print(len(read), len(merged), loaded)
"""


def test_writing_merging_and_following_rows_import_neither_compute_nor_datasets(
    tmp_path: Path,
) -> None:
    """A router's own flushes, their merges and the canary follower's reads loaded
    `pyarrow.compute` (a cast, `pq.read_table`) and `pyarrow.dataset`: ~15 MB resident held
    for good by every router after its first minute of traffic (found measuring it)."""
    done = subprocess.run(
        [sys.executable, "-c", WRITING_AND_MERGING, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip().split(maxsplit=2) == ["4", "3", "[]"]


RECORDS = """
import sys, time
from pathlib import Path
from router.config import parse
from router.ledger import LedgerWriter, appender, rollups
from router.maintenance import housekeep
from router.record import Attempt, Record, Usage
from tests.router.offline import OFFLINE
def resident_mb():
    return int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0]) / 1024
def records(at):
    return [Record(f"req-{n}", at, ended_at=at + 1.2, caller="agent-1", requested_model="auto",
                   intent="coding", route="coding", backend="local", tier="local",
                   served_model="laguna", attempts=[Attempt("local", "local", duration_s=1.2)],
                   usage=Usage(1800, 400, 1024, 0), ttft_s=0.21, duration_s=1.2,
                   conversation=f"c{n % 97}") for n in range(1500)]
writer = LedgerWriter(Path(sys.argv[1]))
"""
MERGES = {
    # two merges of 60 files each: two minutes of a busy router's flushes
    "the writer's merges": """
writer.submit(records(time.time())[0])
writer.flush()  # PyArrow loaded: the baseline
before = resident_mb()
for _ in range(2):
    for _ in range(60):
        for record in records(time.time()):
            writer.submit(record)
        writer.flush()
    writer.wait_for_merges()
writer.close()
""",
    # a closed day of 60 files, merged by the hourly pass (its rollup left out: DuckDB
    # grows the process on its own, see docs/benchmarks.md)
    "housekeeping": """
appender.MERGE_FANOUT = (10_000, 24)
rollups.write_day = lambda *args: None
for _ in range(60):
    for record in records(time.time() - 3 * 86_400):
        writer.submit(record)
    writer.flush()
writer.close()
before = resident_mb()
housekeep(parse({**OFFLINE, "ledger": {"path": sys.argv[1]}}))
""",
}


@pytest.mark.parametrize("merged_by", sorted(MERGES))
def test_what_a_merge_freed_is_given_back(tmp_path: Path, merged_by: str) -> None:
    """A merge peaks at about one input and a row group (tens of MB on a busy router), and
    Arrow's allocator kept that after it: a served router held 35-50 MB more for good from
    its first merge on (found measuring it). With the C library's allocator, as `serve`
    sets it, each merge (the writer's, and housekeeping's of closed days) is followed by a
    trim: 3-11 MB grown here, 34-37 before."""
    script = RECORDS + MERGES[merged_by] + "print(resident_mb() - before)\n"
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, ARROW_POOL[0]: ARROW_POOL[1]},
    )
    assert float(done.stdout) < 20


POOL = """
import sys
from router import serve
async def started(*args, **kwargs):
    import pyarrow as pa
    print(pa.default_memory_pool().backend_name)
serve._serve = started  # what `serve` sets up before it serves, without serving
serve.run(None, False, "127.0.0.1", 4000)
"""


@pytest.mark.parametrize("set_by", ["serve", "operator"])
def test_serve_sets_arrow_s_allocator_unless_the_operator_did(set_by: str) -> None:
    """`serve` picks the C library's allocator for Arrow (see the test above); an
    operator's `ARROW_DEFAULT_MEMORY_POOL` stands."""
    env = {k: v for k, v in os.environ.items() if k != ARROW_POOL[0]}
    if set_by == "operator":
        env[ARROW_POOL[0]] = "mimalloc"
    done = subprocess.run(
        [sys.executable, "-c", POOL],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )
    assert done.stdout.strip() == ("system" if set_by == "serve" else "mimalloc")


HOUSEKEEPING = """
import sys
from router.config import parse
from router.maintenance import housekeep
from tests.router.offline import OFFLINE
housekeep(parse({**OFFLINE, "ledger": {"path": sys.argv[1]}}))
print("pyarrow" in sys.modules)
"""


@pytest.mark.parametrize("day", [None, "day=2026-03-01"], ids=["no day", "a day"])
def test_housekeeping_loads_arrow_only_for_a_ledger_with_days(
    tmp_path: Path, day: str | None
) -> None:
    """Housekeeping a minute after start loaded PyArrow into a router that had written no
    row, with nothing to drop or merge."""
    (tmp_path / "records").mkdir()
    (tmp_path / "texts").mkdir()
    if day is not None:
        (tmp_path / "texts" / day).mkdir()
    done = subprocess.run(
        [sys.executable, "-c", HOUSEKEEPING, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == str(day is not None)


def test_an_idle_router_loads_no_arrow_until_its_first_record(tmp_path: Path) -> None:
    """Flushes with nothing to write are ok flushes (`last_ok_flush_unix` moves) and leave
    PyArrow unloaded; the first record's flush loads it, and writes the record."""
    with simulator(profile="vllm", model="local-model") as local:
        config = {
            "backends": [
                {"name": "local", "tier": "local", "base_url": local.url, "model": "local-model"}
            ],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger"), "flush_interval_s": 0.1},
        }
        with router_process(config, tmp_path) as (proxy, process):
            seen: set[float] = set()

            def idle_flushes() -> bool:
                ledger = status_extra(proxy)["ledger"]
                assert ledger["written_records"] == 0 and ledger["queue_depth"] == 0
                if ledger["last_ok_flush_unix"] is not None:
                    seen.add(ledger["last_ok_flush_unix"])
                return len(seen) >= 3

            must_reach(idle_flushes, "three ok flushes with nothing to write", 60)
            assert status_extra(proxy)["ledger"]["last_write_failed"] is False
            assert not mapped(process, ARROW)

            sdk(proxy, timeout=30).chat.completions.create(
                model="auto", messages=[{"role": "user", "content": "Say hello."}]
            )
            must_reach(lambda: status_extra(proxy)["ledger"]["written_records"] == 1, "the write")
            assert mapped(process, ARROW)
    assert list((tmp_path / "ledger" / "records").rglob("*.parquet"))
