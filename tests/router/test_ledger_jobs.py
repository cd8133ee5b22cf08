"""A router's report and housekeeping run in a child process (`router.ledger_jobs`).

In the router's own process they loaded DuckDB, which no process can unload: ~50 MB
resident for good after one report or the day's rollup, a router at ~210 MB against its
150 MB target (docs/benchmarks.md). A child that dies or hangs is a clear error, in
OpenAI's shape, never a hang nor a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from classifier.intent import INTENTS
from router import ledger_jobs, maintenance
from tests.harness import config_for, router, sdk, simulator
from tests.ledger.test_ledger_memory import mapped
from tests.processes import router_process
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
