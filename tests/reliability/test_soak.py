"""A short soak through a real router process: mixed streamed and plain requests with
random faults on the primary, bounded in time and count. Zero lost records (ledger rows
against requests answered) and flat memory (RSS after warm-up against RSS at the end)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from tests.harness import config_for, simulator
from tests.processes import router_process
from tests.reliability.load import Tally, ledger_ids, run_load

SOAK_S = float(os.environ.get("SMF_SOAK_S", "120"))  # 2 minutes in CI; longer by hand
MAX_RSS_GROWTH_MIB = 40.0  # after warm-up; a leak of a few KiB per request crosses it
MAX_REQUESTS_PER_CLIENT = 2000
RATES = {"reset": 0.03, "server_error": 0.03, "rate_limit:5": 0.02}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.timeout(SOAK_S + 150)
def test_soak(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model", fault_rates=RATES) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        ledger = tmp_path / "ledger"
        data = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump(mode="json")
        data["ledger"] = {"path": str(ledger), "flush_interval_s": 0.5}
        with router_process(data, tmp_path) as (running, proc):
            tally, stop = Tally(), threading.Event()
            args = (running.url, tally, 4, MAX_REQUESTS_PER_CLIENT, stop, 0.0, 3)
            load = threading.Thread(target=run_load, args=args)
            load.start()
            time.sleep(SOAK_S / 4)
            warm = rss_kib(proc.pid)
            time.sleep(SOAK_S * 3 / 4)
            end = rss_kib(proc.pid)
            stop.set()
            load.join(timeout=60)
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0
    answered = {rid for _, rid in tally.answered}
    stored = ledger_ids(ledger)
    lost = answered - set(stored)
    growth_mib = (end - warm) / 1024
    line = (
        f"soak {SOAK_S:g}s: sent={len(tally.sent)} answered={len(answered)} "
        f"statuses={dict(tally.statuses)} backends={dict(tally.backends)} "
        f"stored={len(stored)} lost={len(lost)} rss_warm={warm // 1024}MiB "
        f"rss_end={end // 1024}MiB growth={growth_mib:.1f}MiB"
    )
    print(line)
    assert not lost
    assert len(stored) == len(set(stored))
    assert growth_mib < MAX_RSS_GROWTH_MIB, line
    assert growth_mib < 40, line  # flat: no per-request growth (thousands of requests)
