"""A reload that changes a backend (a timeout) keeps its canary case counters, at 0 or
counted: they were dropped with its gauges, the zero series never came back until a
restart, and each error series was born at its first round's count, which `increase()`
does not see (found in a soak). A backend the reload removes takes them with it
(tests/canary/test_canary_counts.py)."""

from __future__ import annotations

from pathlib import Path

from router.config import parse
from tests.canary.servers import math_gating_canary, reloaded
from tests.harness import Scrape, config_for, router, scrape, simulator
from tests.resilience.conftest import status, until

CASES = "smf_router_canary_cases_total"


def _cases(now: Scrape, backend: str) -> dict[tuple[str, str], float]:
    """(status, error_kind) → count of `backend`'s math case series."""
    return {
        (labels["status"], labels["error_kind"]): value
        for (name, pairs), value in now.samples.items()
        if name == CASES
        for labels in [dict(pairs)]
        if labels["backend"] == backend and labels["suite"] == "math"
    }


def test_a_reload_that_changes_a_timeout_keeps_the_case_counters(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        canary = math_gating_canary(3600, window=6)  # the first round only, at start
        data = config_for({"local": local, "cloud": cloud}, tmp_path, canary=canary).model_dump()
        data["resilience"]["enabled"] = True  # whose reload forgets a changed backend's state
        with router(parse(data)) as proxy:
            until(lambda: status(proxy.root)["extra"]["canary"]["runs"] >= 1, 60, "a round")
            before = _cases(scrape(proxy.root), "cloud")
            data = proxy.components.config.model_dump(mode="json")
            cloud_settings = next(b for b in data["backends"] if b["name"] == "cloud")
            cloud_settings["timeouts"]["total_s"] += 1
            reloaded(proxy, tmp_path, data)
            after = _cases(scrape(proxy.root), "cloud")
    assert len(before) == 9 and sum(before.values()) == 3  # every outcome; a round's 3 cases
    assert after == before
