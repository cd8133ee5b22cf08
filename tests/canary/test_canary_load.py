"""The canary's cases hold their backend's slots like any call, and the router counts them.

Through a real router and simulators: the local simulator holds every chat completion
(`hold`) until the test releases it, so the canary's cases stay in local's slots for as
long as the test needs, with no timing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import openai

from evals.suite import SHIPPED
from router.config import Config
from tests.harness import Running, RunningRouter, config_for, router, simulator, wait_until

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
    data = config.model_dump()
    for backend in data["backends"]:
        if backend["name"] == "local":
            backend["max_concurrency"] = SLOTS
    return Config.model_validate(data)


def _until(check: Callable[[], bool], what: str) -> None:
    """A hang guard (30 s), not a timed assertion: the condition is waited for."""
    assert wait_until(check, 30), f"never reached: {what}"


def _extra(r: RunningRouter) -> dict[str, Any]:
    extra: dict[str, Any] = httpx.get(f"{r.root}/v1/router/status", timeout=5).json()["extra"]
    return extra


def _local(r: RunningRouter) -> tuple[int, int, str | None]:
    found = _extra(r)["resilience"]["backends"]["local"]
    return found["inflight"], found["replays_inflight"], found["saturated"]


def _served_by(r: RunningRouter, user: str) -> str:
    client = openai.OpenAI(base_url=r.url, api_key="x", max_retries=0, timeout=30)
    raw = client.chat.completions.with_raw_response.create(
        model="auto", messages=[{"role": "user", "content": CODE}], user=user
    )
    return str(raw.headers["x-smf-backend"])


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
                _until(lambda: local.stats()["held"] == SLOTS, "the canary's cases at local")
                _until(lambda: _local(r) == (0, SLOTS, "inflight_limit"), "local counted full")
                local.control("faults", {"fault": None})  # live requests are not held
                assert _served_by(r, "a") == "cloud"
                assert local.completions() == SLOTS  # only the canary's cases
                local.control("release", {})
                _until(lambda: _extra(r)["canary"]["runs"] == 1, "the round over")
                _until(lambda: _local(r)[:2] == (0, 0), "the cases' slots given back")
                assert _served_by(r, "b") == "local"
        finally:
            local.control("faults", {"fault": None})
            local.control("release", {})
