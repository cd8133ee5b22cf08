"""A canary run reaches a litellm backend (Anthropic Messages on the wire) for real, and a bug
on the way to one backend costs that backend's round alone."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from classifier import INTENTS
from evals.suite import SHIPPED
from router.backends import create
from router.bug_log import kind_of
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


def test_a_bug_in_one_backends_round_costs_that_round_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An exception the runner does not map (a bug in an adapter, say) ended the whole
    `gather`: every backend's round was lost, and `smf-router canary run` died with a
    traceback (found in review). Now it is that backend's errors, logged once per kind."""
    bug: list[type[Exception]] = [KeyError]

    def logged(error: type[Exception]) -> int:
        return sum(
            "the canary round of claude failed" in r.getMessage()
            and r.exc_info is not None
            and r.exc_info[1] is not None
            and kind_of(r.exc_info[1]) is error
            for r in caplog.records
        )

    with (
        caplog.at_level(logging.ERROR, logger="smf_router"),
        simulator(profile="vllm", model="m") as local,
        simulator(profile="anthropic", model="claude-sonnet-4-5") as claude,
    ):
        config = parse(
            {
                "backends": [
                    {"name": "local", "tier": "local", "base_url": local.url, "model": "m"},
                    claude_backend(claude),
                ],
                "routes": {intent: ["local", "claude"] for intent in INTENTS},
                "canary": {"enabled": True, "suites": str(SHIPPED / "math"), "sample_per_suite": 2},
            }
        )
        adapter = create(config.backends[1])

        async def broken_send(*args: Any, **kwargs: Any) -> Any:
            raise bug[0]("a bug")

        adapter.send = broken_send  # type: ignore[method-assign]
        canary = Canary(
            config, load_cases(config), GateBook({}), adapters=lambda: {"claude": adapter}
        )

        async def rounds() -> list[dict[str, Any]]:
            seen = []
            try:
                for kind in (KeyError, KeyError, TypeError):
                    bug[0] = kind
                    await canary.run_once()
                    seen.append(dict(canary.last_run))
            finally:
                await canary.aclose()
            return seen

        seen = asyncio.run(rounds())
        asked_local = local.completions()
    assert canary.runs == 3 and asked_local == 6  # every round reached the sound backend
    for runs in seen:
        assert runs["local"]["cases"] == 2 and runs["local"]["errors"] == 0
        assert runs["claude"]["cases"] == 2 and runs["claude"]["errors"] == 2
    assert (logged(KeyError), logged(TypeError)) == (1, 1)
