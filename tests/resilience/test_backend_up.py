"""`smf_router_backend_up` says whether the backend's outage is over, not whether its circuit
is closed: a backend whose `/health` passes while every completion fails is closed by each
probe trial and opened again by the next requests, and following the circuit the gauge read
1 for ~1.5 s of every ~9.5 s, resetting the `for: 2m` of SmfLocalBackendDown (found in
review). A live success ends the outage; on a router no traffic reaches, so does a probe
that passed `STILL_DOWN_LOG_S` before with no failure since. Through the real app: a router,
two simulators, faults through `/sim/faults`, the router's own `/metrics`."""

from __future__ import annotations

from pathlib import Path

import pytest

from router import health
from tests.harness import Running, RunningRouter, config_for, router, scrape
from tests.resilience.conftest import FAST, chat, circuit, until

LOCAL = {"backend": "local", "tier": "local"}


def up(proxy: RunningRouter) -> float | None:
    return scrape(proxy.root).get("smf_router_backend_up", **LOCAL)


def fail_until_open(proxy: RunningRouter) -> None:
    """Requests, each failing on local (then served by the cloud), until its circuit opens."""
    until(
        lambda: chat(proxy.url).status_code == 200 and circuit(proxy.root, "local") == "open",
        what="local's circuit open",
    )


def closed_by_probe(proxy: RunningRouter) -> dict[str, float | None]:
    """Wait for a probe trial to close local's circuit; its gauges then."""
    until(lambda: circuit(proxy.root, "local") == "closed", what="a probe closing the circuit")
    now = scrape(proxy.root)
    closed = now.get("smf_router_backend_circuit_state", **LOCAL, state="closed")
    return {"closed": closed, "up": now.get("smf_router_backend_up", **LOCAL)}


def test_a_backend_whose_health_passes_while_completions_fail_stays_down(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    with router(config_for(pair, tmp_path, resilience=FAST)) as proxy:
        pair["local"].control("faults", {"fault": "server_error:500"})
        seen = []
        for _ in range(3):
            fail_until_open(proxy)
            seen.append(closed_by_probe(proxy))
        assert seen == [{"closed": 1.0, "up": 0.0}] * 3
        pair["local"].control("faults", {"fault": None})
        assert chat(proxy.url).headers["x-smf-backend"] == "local"  # a live success
        until(lambda: up(proxy) == 1.0, what="local up again")


def test_a_probe_that_passed_long_enough_ago_ends_the_outage_without_traffic(
    pair: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No request reaches the router after local's outage: its probe trial closed the
    circuit, and `STILL_DOWN_LOG_S` later with no failure, the backend reads up again."""
    monkeypatch.setattr(health, "STILL_DOWN_LOG_S", 1.0)
    with router(config_for(pair, tmp_path, resilience=FAST)) as proxy:
        pair["local"].control("faults", {"fault": "server_error:500"})
        fail_until_open(proxy)
        pair["local"].control("faults", {"fault": None})
        served = pair["local"].completions()
        until(lambda: up(proxy) == 1.0, what="local up again")
        assert circuit(proxy.root, "local") == "closed"
        assert pair["local"].completions() == served  # no live request succeeded there


def test_an_outage_only_probes_saw_is_over_when_a_probe_passes(
    pair: dict[str, Running], tmp_path: Path
) -> None:
    """An idle router whose local backend restarted: its probes failed and opened the
    circuit, then one passed. No request ever failed there, so it reads up again at once,
    not `STILL_DOWN_LOG_S` (15 min) later while its down alert fires (found in review)."""
    with router(config_for(pair, tmp_path, resilience=FAST)) as proxy:
        served = pair["local"].completions()
        pair["local"].control("faults", {"down": True, "for_s": 6.0})  # its port closes
        until(lambda: circuit(proxy.root, "local") == "open", what="probes opening the circuit")
        assert up(proxy) == 0.0
        until(lambda: up(proxy) == 1.0, what="local up again")
        assert circuit(proxy.root, "local") == "closed"
        assert pair["local"].completions() == served  # no live request reached it
