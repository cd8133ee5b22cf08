"""A suite a reload drops from `canary.suites` takes its gate windows and gauges along.

Gate windows are kept per backend and suite, and a reload forgot only removed backends: a
gate a dropped suite had closed stayed closed (no run would ever reopen it) and its gauges
were published again after every reload, until a restart (found in a longevity review).
"""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from classifier import INTENTS
from router import reload
from router.config import parse
from router.ledger import LedgerWriter
from tests.canary import servers
from tests.canary.reloading import suites
from tests.harness import Running, scrape, simulator
from tests.harness import router as running_router
from tests.resilience.conftest import status, until


def math_gating(local: Running, tmp: Path, where: str) -> dict[str, Any]:
    """`local` the one backend, and a canary of the suites at `where` whose first round (one
    case a suite) closes math's gate when the case fails; no breaker."""
    return {
        "backends": [{"name": "local", "tier": "local", "base_url": local.url, "model": "m"}],
        "routes": {intent: ["local"] for intent in INTENTS},
        "ledger": {"path": str(tmp / "ledger")},
        "canary": {
            "enabled": True,
            "interval_s": 600,
            "suites": where,
            "sample_per_suite": 1,
            "floors": {"math": 0.2},
            "min_samples": 1,
        },
        "resilience": {"enabled": False},
    }


def test_a_suite_dropped_by_a_reload_leaves_its_gate_open_and_its_gauges_gone(
    tmp_path: Path,
) -> None:
    with simulator(profile="vllm", model="m", quality={"math": 0.0}) as local:  # math fails
        data = math_gating(local, tmp_path, suites(tmp_path, "math", "reasoning"))
        with running_router(parse(data)) as proxy:
            until(lambda: status(proxy.root)["extra"]["canary"]["runs"] == 1, what="the run")
            assert status(proxy.root)["extra"]["canary"]["gated"] == {"local": ["math"]}
            pass_ratio = {"backend": "local", "suite": "math"}
            assert scrape(proxy.root).get("smf_router_canary_pass_ratio", **pass_ratio) == 0

            fewer = suites(tmp_path, "reasoning")
            dropped = {**data, "canary": {**data["canary"], "suites": fewer}}
            servers.reloaded(proxy, tmp_path, dropped)

            canary = status(proxy.root)["extra"]["canary"]
            assert canary["gated"] == {}
            assert {s["intent"] for s in canary["standings"]} == {"reasoning"}
            now = scrape(proxy.root)
            assert now.get("smf_router_route_gated", backend="local", intent="math") == 0
            math_series = [n for n, labels in now.samples if ("suite", "math") in labels]
            assert math_series == []


def test_with_the_canary_off_a_reload_accepts_suites_start_would_not_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Start loads no suite with the canary off (the CronJob runs them), yet a reload that
    changed `canary.suites` loaded them: a config that starts fine was rejected, logged as a
    bug with a traceback (found in review). With the canary on, start loads them, and a
    reload rejects them with the reason, as a config error."""
    broken = tmp_path / "broken"
    (broken / "math").mkdir(parents=True)
    (broken / "math" / "cases.yaml").write_text("this: [is not\n")
    with (
        caplog.at_level(logging.INFO, logger="smf_router"),
        simulator(profile="vllm", model="m") as local,
    ):
        data: dict[str, Any] = {
            "backends": [{"name": "local", "tier": "local", "base_url": local.url, "model": "m"}],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
            "canary": {"suites": suites(tmp_path, "math")},
        }
        with running_router(parse(data)) as proxy:
            path = tmp_path / "router.yaml"
            reload.reloader_of(proxy.components).source = path
            changed = {**data, "canary": {"suites": str(broken)}}
            path.write_text(yaml.safe_dump(changed))
            answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
            assert answer.status_code == 200, answer.text
            assert "canary.suites" in caplog.text  # said, as a warning

            caplog.clear()
            enabled = {**data, "canary": {"suites": str(broken), "enabled": True}}
            path.write_text(yaml.safe_dump(enabled))
            rejected = httpx.post(f"{proxy.url}/router/reload", timeout=30)
            assert rejected.status_code == 400, rejected.text
            assert "canary.suites" in rejected.json()["error"]["message"]
            errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
            assert errors and all(r.exc_info is None for r in errors)  # no bug of ours
            assert "Traceback" not in caplog.text


def reload_unchanged(proxy: Any, data: dict[str, Any], tmp: Path) -> httpx.Response:
    """Reload the router to the very config it runs."""
    path = tmp / "router.yaml"
    path.write_text(yaml.safe_dump(data))
    reload.reloader_of(proxy.components).source = path
    return httpx.post(f"{proxy.url}/router/reload", timeout=30)


def test_a_reload_reads_the_suites_again_under_the_same_path(tmp_path: Path) -> None:
    """Suites were read again only when the `canary.suites` path changed: a suite deleted
    from that directory kept running (its gate closed), and one added there that does not
    load was reloaded, while `serve` would refuse it (found in review)."""
    where = suites(tmp_path, "math", "reasoning")
    with servers.simulator(profile="vllm", model="m", quality={"math": 0.0}) as local:
        data = math_gating(local, tmp_path, where)
        with servers.router(parse(data)) as proxy:
            until(lambda: status(proxy.root)["extra"]["canary"]["runs"] == 1, what="the run")
            assert status(proxy.root)["extra"]["canary"]["gated"] == {"local": ["math"]}

            shutil.rmtree(Path(where) / "math")
            answer = reload_unchanged(proxy, data, tmp_path)
            assert answer.status_code == 200, answer.text
            canary = status(proxy.root)["extra"]["canary"]
            assert canary["gated"] == {}
            assert {s["intent"] for s in canary["standings"]} == {"reasoning"}

            (Path(where) / "broken").mkdir()
            (Path(where) / "broken" / "cases.yaml").write_text("this: [is not\n")
            rejected = reload_unchanged(proxy, data, tmp_path)
            assert rejected.status_code == 400, rejected.text
            assert "canary.suites" in rejected.json()["error"]["message"]


def test_a_followers_reload_reads_the_suites_again_under_the_same_path(tmp_path: Path) -> None:
    """A router following the CronJob's rounds kept the gates of a suite deleted from the
    directory `canary.suites` names, as the router's own canary did."""
    where = suites(tmp_path, "math", "reasoning")
    ledger = tmp_path / "ledger"
    writer = LedgerWriter(ledger, flush_interval_s=60)  # the job's round: math failed
    run: dict[str, Any] = {"run_id": "r1", "ts": datetime.now(UTC).timestamp(), "backend": "local"}
    writer.submit_row("canary_runs", run | {"cases": 1, "suites": "math", "passed": 0})
    result = run | {"suite": "math", "case_id": "m-1", "status": "fail"}
    writer.submit_row("canary_results", result)
    writer.close()
    dead = "http://127.0.0.1:9/v1"  # a follower asks its backends nothing
    data: dict[str, Any] = {
        "backends": [{"name": "local", "tier": "local", "base_url": dead, "model": "m"}],
        "routes": {intent: ["local"] for intent in INTENTS},
        "ledger": {"path": str(ledger)},
        "canary": {"interval_s": 0.3, "suites": where, "floors": {"math": 0.2}, "min_samples": 1},
        "resilience": {"enabled": False},
    }
    with servers.router(parse(data)) as proxy:

        def gated() -> Any:
            return status(proxy.root)["extra"]["canary"]["gated"]

        until(lambda: gated() == {"local": ["math"]}, what="the job's round read back")
        shutil.rmtree(Path(where) / "math")
        answer = reload_unchanged(proxy, data, tmp_path)
        assert answer.status_code == 200, answer.text
        assert gated() == {}
