"""The served process hides its start-up heap from the garbage collector (`router.heap`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from router.heap import YOUNG_THRESHOLD
from tests.harness import VENV_BIN, config_for, router, simulator
from tests.ports import served
from tests.processes import router_process

SETTLE_IN_A_FRESH_PROCESS = """
import gc, json
from router.app import create_app
from router.default_config import demo
from router import heap

app = create_app(demo("http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1"))
gc.collect()
before = len(gc.get_objects())
heap.settle()
print(json.dumps({"before": before, "after": len(gc.get_objects()), **heap.status()}))
"""


def test_settle_leaves_a_full_collection_little_to_examine() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SETTLE_IN_A_FRESH_PROCESS],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert seen["before"] > 20_000  # modules, FastAPI's routes, pydantic models
    assert seen["after"] < seen["before"] / 20
    assert seen["frozen_objects"] >= seen["before"] * 0.9
    assert seen["young_threshold"] == YOUNG_THRESHOLD


def test_the_served_process_has_settled_before_its_first_answer(tmp_path: Path) -> None:
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path).model_dump(mode="json")
        with router_process(config, tmp_path) as (proxy, _):
            heap = httpx.get(f"{proxy.root}/v1/router/status", timeout=10).json()["heap"]
    assert heap["frozen_objects"] > 20_000
    assert heap["young_threshold"] == YOUNG_THRESHOLD
    assert len(heap["collections"]) == 3


def test_a_simulator_process_has_settled_too(tmp_path: Path) -> None:
    """The benches' "direct" numbers are the simulator's own: its pauses would blur them."""
    log = tmp_path / "simulate.log"

    def launch(port: int) -> subprocess.Popen[bytes]:
        argv = [str(VENV_BIN / "smf-router"), "simulate", "--port", str(port)]
        with log.open("wb") as out:
            return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)

    port, process = served(launch, "http://127.0.0.1:{port}/health", lambda _: log)
    try:
        heap = httpx.get(f"http://127.0.0.1:{port}/sim/stats", timeout=10).json()["heap"]
    finally:
        process.terminate()
        process.wait(timeout=20)
    assert heap["frozen_objects"] > 10_000
    assert heap["young_threshold"] == YOUNG_THRESHOLD


def test_a_router_outside_serve_freezes_nothing(tmp_path: Path) -> None:
    """Tests and embedders run many apps in one process: freezing there would keep them all."""
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path)
        with router(config) as proxy:
            heap = httpx.get(f"{proxy.root}/v1/router/status", timeout=10).json()["heap"]
    assert heap["frozen_objects"] == 0
    assert heap["young_threshold"] != YOUNG_THRESHOLD  # Python's own, untouched
