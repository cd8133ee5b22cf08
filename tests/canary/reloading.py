"""What the tests of a reload under a running canary share: a suites directory of shipped
suites, a router config of local backends and a canary, and the checks that a round a
reload overtook was judged without what the reload dropped or repointed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from classifier import INTENTS
from evals.suite import SHIPPED
from tests.harness import RunningRouter, Scrape, scrape
from tests.resilience.conftest import status, until


def suites(tmp: Path, *names: str) -> str:
    """A suites directory holding the shipped suites `names`."""
    where = tmp / "-".join(names)
    for name in names:
        shutil.copytree(SHIPPED / name, where / name)
    return str(where)


CANARY = {"enabled": True, "interval_s": 600, "sample_per_suite": 1, "min_samples": 1}


def backend(name: str, url: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "tier": "local", "base_url": url, "model": "m", **extra}


def config(tmp: Path, backends: list[dict[str, Any]], **canary: Any) -> dict[str, Any]:
    return {
        "backends": backends,
        "routes": {intent: [b["name"] for b in backends] for intent in INTENTS},
        "ledger": {"path": str(tmp / "ledger"), "flush_interval_s": 0.2},
        "canary": {**CANARY, **canary},
        "resilience": {"enabled": False},
    }


def canary_of(proxy: RunningRouter) -> dict[str, Any]:
    section: dict[str, Any] = status(proxy.root)["extra"]["canary"]
    return section


def judged_without_math(proxy: RunningRouter) -> Scrape:
    """Once the one round is judged: judged without the math suite a reload dropped (no gate
    closed, no standing, no series of it). The metrics then, for more checks."""
    until(lambda: canary_of(proxy)["runs"] == 1, what="the round judged")
    canary = canary_of(proxy)
    assert canary["gated"] == {}  # was {"local": ["math"]}, for good
    assert {s["intent"] for s in canary["standings"]} == {"reasoning"}
    now = scrape(proxy.root)
    assert [n for n, labels in now.samples if ("suite", "math") in labels] == []
    return now


def repointed_afresh(proxy: RunningRouter) -> None:
    """After a reload pointed backend `b` at another server: no gate, no standing, and no
    pass ratio of the old server's rounds (its gate gauge 0)."""
    canary = canary_of(proxy)
    assert canary["gated"] == {} and canary["standings"] == []
    now = scrape(proxy.root)
    assert now.get("smf_router_route_gated", backend="b", intent="math") == 0
    assert now.get("smf_router_canary_pass_ratio", backend="b", suite="math") is None
