"""A second Ctrl-C of a real router process mid-stream: uvicorn's force quit ends the drain
at once and skipped the lifespan's shutdown, so the ledger was closed only as the loop
cancelled the lifespan at exit: the rows were written, but the last line had counted them
before (a stale count, "0 record(s)" with rows in the ledger), and an error-level
CancelledError traceback followed it (found in a durability review). The README promises
the last line says how many records the run wrote."""

from __future__ import annotations

import json
import signal
import socket
import threading
from pathlib import Path
from typing import Any

import openai

from router.ledger.query import Ledger
from tests.harness import Running, config_for, sdk, simulator
from tests.processes import router_process
from tests.slots import must_reach

STREAMS = 3


def read_stream(proxy: Running, began: threading.Semaphore) -> None:
    """Stream a long answer; `began` is released at its first chunk. The stream ends when
    the router stops it."""
    stream = sdk(proxy, timeout=120).chat.completions.create(
        model="local", messages=[{"role": "user", "content": "hi"}], max_tokens=500, stream=True
    )
    try:
        for n, _ in enumerate(stream):
            if n == 0:
                began.release()
    except (openai.APIError, ValueError):  # cut off by the stop, as it should be
        pass


def listening(proxy: Running) -> bool:
    port = int(proxy.root.rsplit(":", 1)[1])
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except OSError:
        return False
    return True


def test_a_second_ctrl_c_still_counts_every_record_in_the_last_line(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger"
    with simulator(profile="vllm", model="local-model", tokens_per_s=2) as local:
        config: dict[str, Any] = config_for(
            {"local": local}, tmp_path, timeouts={"total_s": 600}
        ).model_dump(mode="json")
        config["ledger"] = {"path": str(ledger), "flush_interval_s": 0.2}
        config["server"] = {"drain_s": 600}  # only the second Ctrl-C ends this drain
        with router_process(config, tmp_path) as (proxy, process):
            sdk(proxy, timeout=60).chat.completions.create(
                model="local", messages=[{"role": "user", "content": "hi"}], max_tokens=1
            )
            began = threading.Semaphore(0)
            readers = [
                threading.Thread(target=read_stream, args=(proxy, began)) for _ in range(STREAMS)
            ]
            for reader in readers:
                reader.start()
            for _ in range(STREAMS):
                assert began.acquire(timeout=60), "a stream never began"
            process.send_signal(signal.SIGINT)
            must_reach(lambda: not listening(proxy), "the drain under way", 30)
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=60) == 0
            for reader in readers:
                reader.join(timeout=60)
        log = (tmp_path / f"router-{proxy.root.rsplit(':', 1)[1]}.log").read_text()
    with Ledger(ledger) as read:
        [(rows, cancelled)] = read.sql(
            "SELECT count(*), count(*) FILTER (WHERE outcome = 'cancelled') FROM records"
        )
    assert (rows, cancelled) == (1 + STREAMS, STREAMS)
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    stopped = f"smf-router stopped; {rows} record(s) written to the ledger {ledger}"
    assert lines[-1]["msg"] == stopped
    assert "Traceback" not in log
    assert not [line for line in lines if line["level"] in ("error", "critical")], lines
