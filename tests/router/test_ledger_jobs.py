"""A router's report and housekeeping run in a child process (`router.ledger_jobs`).

In the router's own process they loaded DuckDB, which no process can unload: ~50 MB
resident for good after one report or the day's rollup, a router at ~210 MB against its
150 MB target (docs/benchmarks.md). A child that dies or hangs is a clear error, in
OpenAI's shape, never a hang nor a traceback."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from classifier.intent import INTENTS
from router import ledger_jobs, maintenance
from tests.harness import config_for, router, sdk, simulator
from tests.ledger.test_ledger_memory import mapped
from tests.processes import process_state, router_process
from tests.slots import must_reach, status_extra

DUCKDB = "duckdb"  # the path of its Python module's library, mapped once imported


def test_a_report_leaves_no_duckdb_in_the_router(tmp_path: Path) -> None:
    """`GET /v1/router/report` of `smf-router serve`: the report counts the request, its
    break-even has the running config's hardware price (what the child is given of the
    config), and DuckDB is not mapped into the router after it (it was: ~50 MB for good)."""
    with simulator(profile="vllm", model="local-model") as local:
        backend = {"name": "local", "tier": "local", "base_url": local.url, "model": "local-model"}
        config = {
            "backends": [{**backend, "local_cost": {"hardware_usd": 4000}}],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger"), "flush_interval_s": 0.1},
        }
        with router_process(config, tmp_path) as (proxy, process):
            sdk(proxy, timeout=30).chat.completions.create(
                model="auto", messages=[{"role": "user", "content": "Say hello."}]
            )
            must_reach(lambda: status_extra(proxy)["ledger"]["written_records"] == 1, "the write")
            response = httpx.get(f"{proxy.root}/v1/router/report?since=1d", timeout=120)
            assert response.status_code == 200, response.text
            assert response.json()["totals"]["requests"] == 1
            assert response.json()["break_even"]["hardware_usd"] == 4000
            assert not mapped(process, DUCKDB), "the report loaded DuckDB into the router"


def test_a_report_of_a_router_that_wrote_nothing_loads_no_arrow(tmp_path: Path) -> None:
    """The endpoint parses the window in the router: that import loaded PyArrow and numpy
    (~59 MB, for good) into a router whose ledger writer had not (found in review)."""
    with simulator(profile="vllm", model="local-model") as local:
        backend = {"name": "local", "tier": "local", "base_url": local.url, "model": "local-model"}
        config = {
            "backends": [backend],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
        }
        with router_process(config, tmp_path) as (proxy, process):
            response = httpx.get(f"{proxy.root}/v1/router/report?since=1d", timeout=120)
            assert response.status_code == 200, response.text
            assert response.json()["totals"]["requests"] == 0
            assert not mapped(process, "pyarrow"), "the report loaded PyArrow into the router"


PASS = """
import json, sys, threading, time
from pathlib import Path
from router import ledger_jobs, maintenance
from router.config import parse
from router.ledger import LedgerWriter
from router.record import Record
from tests.router.offline import OFFLINE
ledger = Path(sys.argv[1])
writer = LedgerWriter(ledger, process_tag="old")
for n in range(2):  # a closed day of two files: merged and rolled up
    writer.submit(Record(f"r{n}", time.time() - 3 * 86_400 + n))
    writer.flush()
writer.close()
maintenance._pass(parse({**OFFLINE, "ledger": {"path": str(ledger)}}), threading.Event())
maps = Path("/proc/self/maps").read_text()
rolled = len(list((ledger / "rollups").rglob("*.sums.parquet")))
print(json.dumps({"rolled": rolled, "duckdb": "duckdb" in sys.modules or "duckdb" in maps}))
"""


def test_a_housekeeping_pass_rolls_up_the_closed_day_without_duckdb_in_the_router(
    tmp_path: Path,
) -> None:
    """The job's pass (`maintenance._pass`, what the router runs a minute after start and
    hourly) merged and rolled up a closed day in the router's process: DuckDB stayed."""
    done = subprocess.run(
        [sys.executable, "-c", PASS, str(tmp_path / "ledger")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout) == {"rolled": 1, "duckdb": False}


DYING = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
HANGING = "import time\ntime.sleep(60)\n"


@pytest.mark.parametrize(
    ("child", "said"),
    [
        (DYING, "ended without a result (killed by signal 9)"),
        (HANGING, "took longer than 1 s; stopped"),
    ],
    ids=["dies", "hangs"],
)
def test_a_report_whose_process_dies_or_hangs_is_a_503_that_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, child: str, said: str
) -> None:
    """The report's child killed (out of memory, say) or stuck: a 503 naming it, in
    OpenAI's error shape, and the router goes on serving."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(child)  # what the report's child runs first
    path = os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", path)
    monkeypatch.setattr(maintenance, "REPORT_TIMEOUT_S", 1.0)
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path)
        with router(config) as proxy:
            response = httpx.get(f"{proxy.root}/v1/router/report?since=1d", timeout=60)
            assert response.status_code == 503, response.text
            error = response.json()["error"]
            assert error["code"] == "report_failed" and error["type"] == "service_unavailable"
            assert error["message"] == f"the report's process {said}"
            reply = sdk(proxy, timeout=30).chat.completions.create(
                model="local", messages=[{"role": "user", "content": "hi"}]
            )
            assert reply.choices[0].message.content


def test_the_child_keeps_only_what_python_needs_of_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No key of the router's reaches the child; the library path a Python built as a
    shared library starts by does (without it such a Python's child could not start)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-kept-out")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/python/lib")
    env = ledger_jobs.environment()
    assert "OPENAI_API_KEY" not in env
    assert env["LD_LIBRARY_PATH"] == "/opt/python/lib"
    assert env["PYTHONPATH"].split(os.pathsep)[0] == ledger_jobs.ROOT


def job_children(parent: int) -> list[int]:
    """The `router.ledger_jobs` children `parent` started and that still run."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:  # not a process, or ended meanwhile
            continue
        ppid = next((line.split()[1] for line in status.splitlines() if line[:5] == "PPid:"), "")
        if ppid == str(parent) and b"router.ledger_jobs" in command:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_a_stop_ends_the_report_under_way_and_its_child(tmp_path: Path) -> None:
    """A SIGTERM to the router alone, as systemd's `KillMode=mixed` sends it: a report still
    under way when the drain ends had its child go on, and the router's exit waited for it
    (up to `REPORT_TIMEOUT_S`, past the unit's stop timeout; the SIGTERM systemd once sent to
    every process of the unit had ended it). The child's read of the ledger never ends: a
    day file that is a FIFO no one writes."""
    day = tmp_path / "ledger" / "records" / "day=2026-01-02"
    day.mkdir(parents=True)
    os.mkfifo(day / "part-0.parquet")
    backend = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    config = {
        "backends": [backend],
        "routes": {intent: ["local"] for intent in INTENTS},
        "ledger": {"path": str(tmp_path / "ledger"), "housekeeping": False},
        "server": {"drain_s": 1},
    }
    url = "/v1/router/report?since=2026-01-01T00:00Z&until=2026-01-05T00:00Z"
    children: list[int] = []
    try:
        with router_process(config, tmp_path) as (proxy, process):

            def ask() -> None:
                with contextlib.suppress(httpx.HTTPError):  # its answer is not the point
                    httpx.get(f"{proxy.root}{url}", timeout=120)

            def started() -> bool:
                children[:] = job_children(process.pid)
                return bool(children)

            threading.Thread(target=ask, daemon=True).start()
            must_reach(started, "the report's child")
            process.send_signal(signal.SIGTERM)
            try:
                status = process.wait(timeout=60)  # the drain (1 s), then the child's stop
            except subprocess.TimeoutExpired:
                status = None
            assert status == 0, "the router waited for the report's child"
            assert [process_state(child) for child in children] == [None]
    finally:
        for child in children:  # on old code: blocked on the FIFO for good
            if process_state(child) is not None:
                os.kill(child, signal.SIGKILL)
