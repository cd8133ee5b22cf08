"""Each simulator fault on the primary while a few clients send requests concurrently:
every request is answered (by the fallback where the fault allows), and the ledger holds
exactly one record per request."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from router.config import parse
from tests.harness import Running, RunningRouter, config_for, router, simulator
from tests.reliability.load import Tally, ledger_ids, run_load

FAST_TIMEOUTS = {"connect_s": 1, "first_token_s": 1.2, "idle_s": 0.8, "total_s": 2.5}
RESILIENCE = {"open_s": 0.3, "max_open_s": 1.0, "probe_interval_s": 0.5, "probe_timeout_s": 0.5}
FAULTS = [
    "rate_limit:5",
    "server_error",
    "server_error:503",
    "reset",
    "no_response",
    "slow_first_token:5",
    "stall:3",
    "cut_stream",
    "malformed_chunk",
    "missing_done",
    "context_length",
]


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Running, RunningRouter, Path]]:
    tmp = tmp_path_factory.mktemp("faults-load")
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp).model_dump(mode="json")
        for backend in data["backends"]:
            backend["timeouts"] = FAST_TIMEOUTS
        data["resilience"] = RESILIENCE
        with router(parse(data)) as proxy:
            yield local, proxy, tmp / "ledger"


@pytest.mark.parametrize("fault", FAULTS)
def test_fault_under_concurrent_load(
    stack: tuple[Running, RunningRouter, Path], fault: str
) -> None:
    local, proxy, ledger_dir = stack
    local.control("faults", {"fault": fault})
    tally = Tally()
    try:
        run_load(proxy.url, tally, threads=3, per_thread=3)  # non-streamed: all may fall back
    finally:
        local.control("faults", {"fault": None})
    assert len(tally.answered) == len(tally.sent) == 9
    assert tally.statuses == {200: 9}, tally.statuses
    assert set(tally.backends) <= {"local", "cloud"}
    proxy.components.ledger.flush()  # type: ignore[union-attr]
    assert set(tally.sent) <= set(ledger_ids(ledger_dir))
    # Let the breaker close again before the next fault (probes of a healthy /health), and
    # a 429's wait end (`rate_limit:5`): until then the next fault would meet only the cloud.
    for _ in range(200):
        body = httpx.get(f"{proxy.root}/v1/router/status").json()
        local_state = body["extra"]["resilience"]["backends"]["local"]
        if local_state["circuit"] == "closed" and local_state["rate_limited_for_s"] is None:
            break
        time.sleep(0.05)
