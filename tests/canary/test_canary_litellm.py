"""A canary run reaches a litellm backend (Anthropic Messages on the wire) for real."""

from __future__ import annotations

import asyncio
from pathlib import Path

from classifier import INTENTS
from evals.suite import SHIPPED
from router.canary import Canary, load_cases
from router.config import parse
from router.gating import GateBook
from tests.harness import claude_backend, simulator


def test_a_litellm_backend_is_canaried_not_skipped(tmp_path: Path) -> None:
    with simulator(profile="anthropic", model="claude-sonnet-4-5") as claude:
        config = parse(
            {
                "backends": [claude_backend(claude)],
                "routes": {intent: ["claude"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path / "ledger")},
                "canary": {
                    "enabled": True,
                    "suites": str(SHIPPED / "math"),
                    "sample_per_suite": 3,
                    "concurrency": 2,
                },
            }
        )
        canary = Canary(config, load_cases(config), GateBook({}))

        async def once() -> None:
            try:
                await canary.run_once()
                assert canary._client is None  # the adapter is the transport: no idle httpx pool
            finally:
                await canary.aclose()

        asyncio.run(once())
        asked = claude.stats()["by_path"].get("/v1/messages", 0)
    run = canary.last_run["claude"]
    assert run["skipped_reason"] is None
    assert run["cases"] == 3 and run["errors"] == 0
    assert run["passed"] + run["failed"] == 3
    assert asked == 3  # each case went to the provider in its own wire format
