"""Backends whose `/metrics` hang do not age the other backends' capacity readings. Polled one
after another, each hanging poll held the round for `probe_timeout_s`: two made it longer
than the 3 × `capacity_poll_s` a reading stays fresh, and a genuinely queued third backend
read saturated only part of the time (26 of 60 plans put it first; found in review).
Through the real app: a router, four simulators (two with `hang_metrics`), plain HTTP."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.harness import INTENTS, Running, config_for, router, simulator
from tests.resilience.conftest import CODING, FAST, backend_state, until

# A reading stays fresh 1.5 s; a hanging poll takes 2 s: one after another, two of them and
# the pause between rounds (4.5 s) left the queued backend's reading stale two thirds of
# the time.
RESILIENCE = {**FAST, "capacity_poll_s": 0.5, "probe_timeout_s": 2.0}
SAMPLES = 30  # over about 7 s: more than a round of the old loop


@contextmanager
def queued(server: Running) -> Iterator[None]:
    """Two clients of `server` (one sequence slot) besides the router: one runs, one waits,
    each for a minute, or until the simulator stops."""

    def ask() -> None:
        body = {"model": "local_busy-model", "messages": CODING, "max_tokens": 5}
        with contextlib.suppress(httpx.HTTPError):
            httpx.post(
                f"{server.url}/chat/completions",
                json=body,
                headers={"x-sim-fault": "slow_first_token:60"},
                timeout=90,
                trust_env=False,
            )

    clients = [threading.Thread(target=ask, daemon=True) for _ in range(2)]
    for client in clients:
        client.start()
    yield


def sample(root: str, url: str) -> tuple[str | None, list[tuple[str, str]]]:
    """Why the router finds `local_busy` saturated now, and the plan of a coding request."""
    saturated = backend_state(root, "local_busy")["saturated"]
    body = {"model": "auto", "messages": CODING}
    plan: dict[str, Any] = httpx.post(f"{url}/router/explain", json=body, timeout=10).json()
    return saturated, [(s["backend"], s["reason"]) for s in plan["backends"]]


def test_a_queued_backend_reads_saturated_while_two_others_metrics_hang(
    tmp_path: Path,
) -> None:
    with (
        simulator(profile="vllm", model="local_hang1-model") as hang1,
        simulator(profile="vllm", model="local_hang2-model") as hang2,
        simulator(profile="vllm", model="local_busy-model", max_num_seqs=1) as busy,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        for server in (hang1, hang2):
            server.control("faults", {"hang_metrics": True})
        servers = {"local_hang1": hang1, "local_hang2": hang2, "local_busy": busy, "cloud": cloud}
        routes = {intent: ["local_busy", "cloud"] for intent in INTENTS}
        config = config_for(servers, tmp_path, routes=routes, resilience=RESILIENCE)
        with router(config) as proxy, queued(busy):
            until(
                lambda: backend_state(proxy.root, "local_busy")["saturated"] == "queue",
                what="local_busy's queue read",
            )
            seen = []
            for _ in range(SAMPLES):
                seen.append(sample(proxy.root, proxy.url))
                time.sleep(RESILIENCE["capacity_poll_s"] / 2)
            hung = [backend_state(proxy.root, n)["running"] for n in ("local_hang1", "local_hang2")]
            asked = [server.stats()["by_path"]["/metrics"] for server in (hang1, hang2)]
    expected = ("queue", [("cloud", "overflow"), ("local_busy", "overflow_last")])
    assert seen == [expected] * SAMPLES
    assert hung == [None, None]  # asked, never answered
    assert min(asked) >= 1
