"""A canary round against an engine that aborts its requests counts errors, not failures:
a backend restarting (vLLM's `finish_reason: "abort"`) is no quality signal."""

from __future__ import annotations

from pathlib import Path

from classifier import INTENTS
from evals.suite import SHIPPED
from router.canary import Canary, load_cases
from router.config import parse
from router.gating import GateBook
from tests.canary.rounds import one_round
from tests.harness import local_backend, simulator


def test_an_aborting_backend_is_not_gated(tmp_path: Path) -> None:
    """Each aborted answer was graded: the round counted three failures and closed the
    math gate of a backend whose engine was only restarting (found in review)."""
    with simulator(model="local-model") as local:
        local.control("faults", {"fault": "abort"})
        config = parse(
            {
                "backends": [local_backend(local)],
                "routes": {intent: ["local"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path / "ledger")},
                "canary": {
                    "enabled": True,
                    "suites": str(SHIPPED / "math"),
                    "sample_per_suite": 3,
                    "min_samples": 1,
                    "floors": {"math": 0.5},
                },
            }
        )
        book = GateBook(dict(config.canary.floors), min_samples=1)
        canary = Canary(config, load_cases(config), book)

        one_round(canary)
        aborted = local.stats()["by_fault"].get("abort", 0)
    run = canary.last_run["local"]
    assert (run["cases"], run["errors"], run["failed"], run["passed"]) == (3, 3, 0, 0)
    assert aborted == 3
    assert canary.gated() == {}
