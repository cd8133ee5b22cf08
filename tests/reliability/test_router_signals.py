"""SIGTERM and SIGKILL of a real router process mid-traffic, and several router processes
writing one ledger directory. The ledger is read back and compared to what clients got."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path
from typing import Any

from tests.harness import config_for, simulator
from tests.processes import router_process
from tests.reliability.load import Tally, ledger_ids, run_load, wait_answered

FLUSH_S = 0.2


def process_config(local: Any, cloud: Any, ledger: Path) -> dict[str, Any]:
    data: dict[str, Any] = config_for({"local": local, "cloud": cloud}, ledger.parent).model_dump(
        mode="json"
    )
    data["ledger"] = {"path": str(ledger), "flush_interval_s": FLUSH_S}
    data["server"] = {"drain_s": 10}
    return data


def test_sigterm_mid_traffic_loses_no_record(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model", ttft_s=0.3) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        ledger = tmp_path / "ledger"
        with router_process(process_config(local, cloud, ledger), tmp_path) as (running, proc):
            tally, stop = Tally(), threading.Event()
            load = threading.Thread(target=run_load, args=(running.url, tally, 4, 200, stop))
            load.start()
            wait_answered(tally, 20)
            proc.send_signal(signal.SIGTERM)
            stop.set()
            load.join(timeout=60)
            assert proc.wait(timeout=30) == 0
    answered = {rid for _, rid in tally.answered}
    stored = ledger_ids(ledger)
    assert answered <= set(stored), f"lost {len(answered - set(stored))} of {len(answered)}"
    assert len(stored) == len(set(stored))  # no duplicates
    print(f"SIGTERM: sent={len(tally.sent)} answered={len(answered)} stored={len(stored)}")


def test_sigkill_mid_traffic_loses_at_most_the_last_flush(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model", ttft_s=0.05) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        ledger = tmp_path / "ledger"
        with router_process(process_config(local, cloud, ledger), tmp_path) as (running, proc):
            tally, stop = Tally(), threading.Event()
            load = threading.Thread(target=run_load, args=(running.url, tally, 4, 300, stop))
            load.start()
            wait_answered(tally, 40)
            killed_at = time.monotonic()
            proc.kill()
            proc.wait(timeout=10)
            stop.set()
            load.join(timeout=60)
    stored = set(ledger_ids(ledger))
    # Records answered more than a few flush intervals before the kill were on disk.
    settled = {rid for at, rid in tally.answered if at < killed_at - 5 * FLUSH_S - 0.5}
    lost = settled - stored
    assert not lost, f"lost {len(lost)} records answered well before the kill"
    assert stored <= set(tally.sent)
    answered = {rid for _, rid in tally.answered}
    print(
        f"SIGKILL: answered={len(answered)} stored={len(stored)} "
        f"lost_in_last_flush={len(answered - stored)}"
    )


def test_several_router_processes_share_one_ledger(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        ledger = tmp_path / "ledger"
        config = process_config(local, cloud, ledger)
        tally = Tally()
        with (
            router_process(config, tmp_path) as (a, _),
            router_process(config, tmp_path) as (b, _),
            router_process(config, tmp_path) as (c, _),
        ):
            loads = [
                threading.Thread(target=run_load, args=(r.url, tally, 2, 15)) for r in (a, b, c)
            ]
            for t in loads:
                t.start()
            for t in loads:
                t.join(timeout=120)
    stored = ledger_ids(ledger)
    assert len(tally.answered) == len(tally.sent) == 90
    assert sorted(stored) == sorted(tally.sent)
    writers = {p.name.split("-")[0] for p in ledger.rglob("*.parquet")}
    assert writers  # segments exist; names carry the writing process
