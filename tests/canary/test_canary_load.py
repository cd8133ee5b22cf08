"""The canary's cases hold their backend's slots like any call, and the router counts them.

Through a real router and simulators: the local simulator holds every chat completion
(`hold`) until the test releases it, so the canary's cases stay in local's slots for as
long as the test needs, with no timing.
"""

from __future__ import annotations

from pathlib import Path

from evals.suite import SHIPPED
from router.config import Config
from tests.harness import Running, config_for, router, simulator
from tests.slots import backend_load, must_reach, served_by, status_extra, with_max_concurrency

CODE = "Write a Python function that reverses a list"  # routed to local first
SLOTS = 2  # vLLM's max_num_seqs on the local simulator, the router's max_concurrency, and
# the canary's concurrency: one round fills local


def _config(local: Running, cloud: Running, tmp: Path) -> Config:
    """One canary round (the next is an hour away) of SLOTS math cases per backend."""
    config = config_for(
        {"local": local, "cloud": cloud},
        tmp,
        canary={
            "enabled": True,
            "interval_s": 3600,
            "suites": str(SHIPPED / "math"),
            "sample_per_suite": SLOTS,
            "concurrency": SLOTS,
        },
        resilience={"enabled": True, "capacity_poll_s": 0.2},
    )
    return with_max_concurrency(config, "local", SLOTS)


def test_a_live_request_overflows_past_local_slots_the_canary_fills(tmp_path: Path) -> None:
    """Two canary cases held at local, as many as its slots: the router showed local with
    nothing in flight and not saturated (found in review), and sent live coding requests to
    queue behind the cases. The cases are now counted while their calls run."""
    with (
        simulator(profile="vllm", model="local-model", max_num_seqs=SLOTS) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        local.control("faults", {"fault": "hold"})
        try:
            with router(_config(local, cloud, tmp_path)) as r:
                must_reach(
                    lambda: local.stats()["held"] == SLOTS, "the canary's cases at local", 30
                )
                must_reach(
                    lambda: backend_load(r, "local") == (0, SLOTS, "inflight_limit"),
                    "local counted full",
                    30,
                )
                local.control("faults", {"fault": None})  # live requests are not held
                assert served_by(r, CODE, "a", timeout=30) == "cloud"
                assert local.completions() == SLOTS  # only the canary's cases
                local.control("release", {})
                must_reach(lambda: status_extra(r)["canary"]["runs"] == 1, "the round over", 30)
                must_reach(
                    lambda: backend_load(r, "local")[:2] == (0, 0),
                    "the cases' slots given back",
                    30,
                )
                assert served_by(r, CODE, "b", timeout=30) == "local"
        finally:
            local.control("faults", {"fault": None})
            local.control("release", {})
