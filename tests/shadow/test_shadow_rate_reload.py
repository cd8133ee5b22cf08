"""A reload that turns a shadow rate to 0 stops the replays of requests picked before it.

Found in review: the dice are rolled as a request arrives, and a request picked then was
replayed after an operator's reload set its rate to 0 (to stop mirroring, for privacy or
cost), whether it was still being served when the reload landed or already queued. Both are
now dropped, counted as `rate_zero`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from router import reload
from tests.harness import Running, config_for, router, scrape, simulator
from tests.shadow.shadow_status import chats, comparison_rows, reload_to, shadow_status, until

MATH = {"model": "auto", "messages": [{"role": "user", "content": "What is 1234 + 4321?"}]}
LONG = {"first_token_s": 60, "idle_s": 60, "total_s": 120}  # held requests wait, not fail


def _post(r: Running) -> httpx.Response:
    """A math request, served by the cloud (math's first backend), shadowed on local."""
    response = httpx.post(f"{r.url}/chat/completions", json=MATH, timeout=60)
    assert (response.status_code, response.headers["x-smf-backend"]) == (200, "cloud")
    return response


def test_a_reload_to_rate_0_stops_queued_and_in_flight_picks(tmp_path: Path) -> None:
    """local holds every replay: the first is in flight there, the second queued behind it
    (`max_concurrency: 1`), and a third request is still at the cloud (held too) when a
    reload turns shadowing off. Released, the one in flight finishes and is compared (its
    replay had started); the queued one and the one in flight at the reload are dropped as
    `rate_zero`, and local never sees them. The old shadow replayed all three."""
    shadow = {"rates": {"math": 1.0}, "max_concurrency": 1}
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model", fault="hold") as local,
        ThreadPoolExecutor(1) as pool,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path, LONG, shadow=shadow)
        path = tmp_path / "router.yaml"
        with router(config) as r:
            reload.reloader_of(r.components).source = path
            before = scrape(r.root).get("smf_router_shadow_dropped_total", reason="rate_zero")
            for _ in range(2):
                _post(r)
            until(lambda: local.stats()["held"] == 1 and shadow_status(r)["queued"] == 1)
            cloud.control("faults", {"fault": "hold"})
            third = pool.submit(_post, r)
            until(lambda: cloud.stats()["held"] == 1)  # picked as it arrived: rate 1
            off = config.model_dump(mode="json")
            reload_to(r, path, {**off, "shadow": {**off["shadow"], "rates": {}}})
            cloud.control("faults", {"fault": None})
            cloud.control("release", {})
            third.result(timeout=60)
            until(lambda: shadow_status(r)["counts"].get("sampled", 0) == 3)
            local.control("faults", {"fault": None})  # the replays taken from now are not held
            local.control("release", {})
            until(lambda: shadow_status(r)["counts"].get("compared", 0) >= 1)
            until(lambda: (shadow_status(r)["queued"], shadow_status(r)["in_flight"]) == (0, 0))
            counts = shadow_status(r)["counts"]
            after = scrape(r.root).get("smf_router_shadow_dropped_total", reason="rate_zero")
        replayed = chats(local)
    assert before == 0  # the series exists from the start, as every drop reason's does
    assert (counts["compared"], counts.get("dropped_rate_zero", 0), after) == (1, 2, 2)
    assert replayed == 1  # only the replay that started before the reload
    assert len(comparison_rows(tmp_path / "ledger")) == 1
