"""A canary that grades nothing says so: every case it asks is counted by outcome, errors
too (`smf_router_canary_cases_total`), while its gates stay as they were (errors are no
quality verdict). Before, a backend that refused every canary request (a vLLM restarted
without the flag tools need, a revoked key) left the gates and gauges frozen and nothing on
/metrics moved, so no alert could fire (found in review)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from classifier import INTENTS
from router.canary_follow import Follower
from router.canary_judge import Judge, gate_book
from router.config import parse
from router.ledger import LedgerWriter
from router.metrics import Metrics
from tests.canary.servers import math_gating_canary
from tests.harness import config_for, router, scrape, simulator
from tests.resilience.conftest import status, until

CASES = "smf_router_canary_cases_total"
LOCAL = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}


def test_a_backend_refusing_every_case_shows_as_errors_not_as_nothing(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        local.control("faults", {"fault": "bad_request"})  # 400 to every request
        canary = math_gating_canary(0.2, window=6, concurrency=2)
        config = config_for({"local": local, "cloud": cloud}, tmp_path, canary=canary)
        with router(config) as proxy:
            until(
                lambda: status(proxy.root)["extra"]["canary"]["runs"] >= 2,
                limit_s=60,
                what="two canary runs",
            )
            now = scrape(proxy.root)
            section = status(proxy.root)["extra"]["canary"]
    local_math = {"backend": "local", "suite": "math"}
    refused = now.get(CASES, **local_math, status="error", error_kind="transport")
    assert refused is not None and refused >= 6  # 3 cases a round, each answered 400
    # graded nothing, and the series say so with a 0 (they exist before any round counts)
    assert now.get(CASES, **local_math, status="passed", error_kind="") == 0
    assert now.get(CASES, **local_math, status="failed", error_kind="") == 0
    assert now.get(CASES, **local_math, status="error", error_kind="timeout") == 0
    passed = now.get(CASES, backend="cloud", suite="math", status="passed", error_kind="")
    assert passed is not None and passed >= 6
    assert (
        now.get(CASES, backend="cloud", suite="math", status="error", error_kind="transport") == 0
    )
    # the gates and the last-graded gauge cannot tell: errors never enter a window
    assert section["gated"] == {}
    assert now.get("smf_router_canary_last_run_timestamp_seconds", **local_math) is None
    assert now.get("smf_router_route_gated", backend="local", intent="math") == 0


def following(tmp_path: Path) -> tuple[Metrics, Judge, Follower, LedgerWriter]:
    """A router without a canary of its own over `local` (math gated below 0.4), following
    the CronJob's rounds in the ledger at `tmp_path`: its metrics, judge and follower, and
    a writer to put the rounds there."""
    config = parse(
        {
            "backends": [LOCAL],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path)},
            "canary": {"floors": {"math": 0.4}, "min_samples": 3},
        }
    )
    metrics = Metrics()
    judge = Judge(gate_book(config.canary), metrics, lambda: ["local"], lambda: {"math"})
    follower = Follower(judge, tmp_path, lambda: config)
    return metrics, judge, follower, LedgerWriter(tmp_path, flush_interval_s=60)


def test_a_follower_counts_the_rounds_it_reads_after_its_recall(tmp_path: Path) -> None:
    """A router without a canary of its own counts the CronJob's rounds it judges, with the
    error kinds their rows hold; the rounds its start's recall reads are history, not counted."""
    metrics, judge, follower, writer = following(tmp_path)

    def round_of(run_id: str, kinds: list[str]) -> None:
        ts = datetime.now(UTC).timestamp()
        summary: dict[str, Any] = {"run_id": run_id, "ts": ts, "backend": "local"}
        writer.submit_row("canary_runs", summary | {"cases": len(kinds), "errors": len(kinds)})
        for i, kind in enumerate(kinds):
            row = {"run_id": run_id, "ts": ts, "backend": "local", "suite": "math"}
            row |= {"case_id": f"m-{i}", "status": "error", "failure_kind": kind}
            writer.submit_row("canary_results", row)
        writer.flush()

    def count(status: str, kind: str) -> float | None:
        labels = {"backend": "local", "suite": "math", "status": status, "error_kind": kind}
        return metrics.registry.get_sample_value(CASES, labels)

    try:
        round_of("before-start", ["transport", "transport"])
        asyncio.run(follower.follow_once())  # the recall
        assert count("error", "transport") == 0 and count("passed", "") == 0
        round_of("after", ["transport", "sandbox", "mystery"])
        asyncio.run(follower.follow_once())
    finally:
        writer.close()
    assert count("error", "transport") == 1
    assert count("error", "sandbox") == 1
    assert count("error", "other") == 1  # a kind outside the runner's set
    assert count("passed", "") == 0 and count("failed", "") == 0
    assert judge.gated() == {}


def test_a_follower_counts_the_rounds_that_passed_a_backend_by(tmp_path: Path) -> None:
    """The CronJob's rounds that a wait stopped, or that skipped the backend at their start,
    are counted by reason (`smf_router_canary_rounds_skipped_total`), as a router's own
    canary counts its own: they count no case, and the count is what SmfCanaryBlind sees. A
    reason outside the set (a job of another version) is `other`; a recall's are history."""
    metrics, _, follower, writer = following(tmp_path)

    def skipped_round(run_id: str, reason: str) -> None:
        ts = datetime.now(UTC).timestamp()
        row = {"run_id": run_id, "ts": ts, "backend": "local", "cases": 0}
        writer.submit_row("canary_runs", row | {"skipped_reason": reason})
        writer.flush()

    def skipped(reason: str) -> float | None:
        labels = {"backend": "local", "reason": reason}
        return metrics.registry.get_sample_value("smf_router_canary_rounds_skipped_total", labels)

    try:
        skipped_round("before-start", "rate_limited")
        asyncio.run(follower.follow_once())  # the recall
        assert skipped("rate_limited") == 0 and skipped("overloaded") == 0  # there, at 0
        skipped_round("stopped", "rate_limited")
        skipped_round("away", "overloaded")
        skipped_round("newer", "a-new-reason")
        asyncio.run(follower.follow_once())
    finally:
        writer.close()
    assert skipped("rate_limited") == 1
    assert skipped("overloaded") == 1
    assert skipped("other") == 1
    assert skipped("saturated") == 0
    assert (
        metrics.registry.get_sample_value(
            CASES,
            {"backend": "local", "suite": "math", "status": "error", "error_kind": "transport"},
        )
        == 0
    )
