"""In a running router the canary asks the backends of the running config: after a hot
reload an added backend is canaried and a removed one is not, and a litellm backend is
reached through the adapter live traffic uses (no second adapter, no second pool)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from classifier import INTENTS
from evals.suite import SHIPPED
from router import reload, sandbox_layers
from router.config import parse
from tests.harness import claude_backend, router, scrape, simulator
from tests.resilience.conftest import status, until

CANARY = {"enabled": True, "suites": str(SHIPPED / "math"), "sample_per_suite": 1}


def backend(name: str, url: str) -> dict[str, Any]:
    return {"name": name, "tier": "local", "base_url": url, "model": "m"}


def last_run(root: str) -> dict[str, Any]:
    runs: dict[str, Any] = status(root)["extra"]["canary"]["last_run"]
    return runs


def test_canary_follows_reloads_and_shares_the_router_litellm_adapter(
    tmp_path: Path,
) -> None:
    with (
        simulator(profile="vllm", model="m") as local,
        simulator(profile="anthropic", model="claude-sonnet-4-5") as claude,
        simulator(profile="vllm", model="m") as added,
    ):
        data: dict[str, Any] = {
            "backends": [backend("local", local.url), claude_backend(claude)],
            "routes": {intent: ["local", "claude"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
            "canary": {**CANARY, "interval_s": 0.3},
            "resilience": {"enabled": False},
        }
        with router(parse(data)) as proxy:
            until(lambda: {"local", "claude"} <= set(last_run(proxy.root)), what="first runs")
            assert last_run(proxy.root)["claude"]["errors"] == 0
            assert claude.stats()["by_path"].get("/v1/messages", 0) >= 1
            canary = proxy.components.status_sections["canary"].__self__.canary  # via its Schedule
            assert canary._adapters == {}  # the router's own litellm adapter was used

            path = tmp_path / "router.yaml"
            # `claude` goes, so no later run is cut off mid-call to it when the router stops
            swapped = {
                **data,
                "backends": [backend("local", local.url), backend("added", added.url)],
                "routes": {intent: ["local", "added"] for intent in INTENTS},
            }
            path.write_text(yaml.safe_dump(swapped))
            reload.reloader_of(proxy.components).source = path
            answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
            assert answer.status_code == 200, answer.text
            assert answer.json()["restart_needed"] == []  # backends need no restart

            until(lambda: "added" in last_run(proxy.root), what="a run on the added backend")
            assert last_run(proxy.root)["added"]["cases"] == 1
            assert added.completions() >= 1
            exposed = httpx.get(f"{proxy.root}/metrics", timeout=5).text
            assert 'smf_router_route_gated{backend="added",intent="math"} 0.0' in exposed
            asked_claude = claude.stats()["by_path"].get("/v1/messages", 0)
            runs = status(proxy.root)["extra"]["canary"]["runs"]
            until(lambda: status(proxy.root)["extra"]["canary"]["runs"] > runs, what="next run")
            assert claude.stats()["by_path"].get("/v1/messages", 0) == asked_claude  # removed

            # floors follow the reload; a router started without shadowing still has none
            floors = {
                **swapped,
                "canary": {**swapped["canary"], "floors": {"math": 0.5}},
                "shadow": {"rates": {"math": 0.5}},
            }
            path.write_text(yaml.safe_dump(floors))
            answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
            assert answer.json()["restart_needed"] == ["shadow.rates"]
            assert floor_of(proxy.root, "local", "math") == 0.5


def floor_of(root: str, backend: str, intent: str) -> float | None:
    standings = status(root)["extra"]["canary"]["standings"]
    (standing,) = [s for s in standings if (s["backend"], s["intent"]) == (backend, intent)]
    floor: float | None = standing["floor"]
    return floor


def test_a_reload_swaps_the_canary_suites_and_rejects_suites_that_do_not_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    said = caplog.at_level(logging.INFO, "smf_router.sandbox")
    with said, simulator(profile="vllm", model="m") as local:
        data: dict[str, Any] = {
            "backends": [backend("local", local.url)],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
            "canary": {**CANARY, "interval_s": 0.3},
            "resilience": {"enabled": False},
        }
        with router(parse(data)) as proxy:
            until(lambda: "local" in last_run(proxy.root), what="a first run")
            assert last_run(proxy.root)["local"]["suites"] == "math"
            assert sandbox_layers.running(proxy.components.runs_code) == []  # no code cases
            path = tmp_path / "router.yaml"
            reload.reloader_of(proxy.components).source = path

            missing = {**data, "canary": {**data["canary"], "suites": str(tmp_path / "none")}}
            path.write_text(yaml.safe_dump(missing))
            answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
            assert answer.status_code == 400 and "none" in answer.json()["error"]["message"]

            coding = {**data, "canary": {**data["canary"], "suites": str(SHIPPED / "coding")}}
            path.write_text(yaml.safe_dump(coding))
            answer = httpx.post(f"{proxy.url}/router/reload", timeout=30)
            assert answer.status_code == 200 and answer.json()["restart_needed"] == []
            # the suites now run code: the reload said the sandbox's layers, as a start does
            assert sandbox_layers.running(proxy.components.runs_code) == [sandbox_layers.CANARY]
            lines = [r.getMessage() for r in caplog.records if r.name == "smf_router.sandbox"]
            assert lines and lines[0].startswith("sandbox for canary code cases: namespaces ")
            until(
                lambda: last_run(proxy.root)["local"]["suites"] == "coding",
                what="a run on the new suite",
            )


def test_a_reload_republishes_floors_and_drops_a_removed_backend_canary_gauges(
    tmp_path: Path,
) -> None:
    """After a reload a removed backend kept its canary gauges, and a lowered floor showed
    only at the next run (`interval_s` later): SmfCanaryBelowFloor kept firing for both
    (found in review)."""
    with simulator(profile="vllm", model="m") as local:
        local.control("quality", {"math": 0.0})
        data: dict[str, Any] = {
            "backends": [backend("oldbox", local.url), backend("local", local.url)],
            "routes": {intent: ["oldbox", "local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
            "canary": {**CANARY, "interval_s": 600, "floors": {"math": 0.2}, "min_samples": 1},
        }
        with router(parse(data)) as proxy:
            until(lambda: {"oldbox", "local"} <= set(last_run(proxy.root)), what="first runs")
            pass_ratio = {"backend": "local", "suite": "math"}
            assert scrape(proxy.root).get("smf_router_canary_floor_ratio", **pass_ratio) == 0.2
            gate = {"backend": "local", "intent": "math"}
            assert scrape(proxy.root).get("smf_router_route_gated", **gate) == 1

            path = tmp_path / "router.yaml"
            accepted = {
                **data,
                "backends": [backend("local", local.url)],
                "routes": {intent: ["local"] for intent in INTENTS},
                "canary": {**data["canary"], "floors": {"math": 0.0}},
            }
            path.write_text(yaml.safe_dump(accepted))
            reload.reloader_of(proxy.components).source = path
            assert httpx.post(f"{proxy.url}/router/reload", timeout=30).status_code == 200

            now = scrape(proxy.root)
            assert now.get("smf_router_canary_floor_ratio", **pass_ratio) == 0.0
            assert now.get("smf_router_route_gated", **gate) == 0
            assert not [name for name, labels in now.samples if ("backend", "oldbox") in labels]
            assert status(proxy.root)["extra"]["canary"]["gated"] == {}
            assert set(last_run(proxy.root)) == {"local"}  # `oldbox` showed until a restart


def test_a_backend_removed_while_its_canary_run_is_in_flight_is_not_judged(
    tmp_path: Path,
) -> None:
    """The run that was asking a backend when a reload removed it was judged after the
    reload forgot the backend: its gate closed again, `route_gated{backend="gone"}` showed
    1 and the alert fired for a backend that no longer exists (found in review)."""
    with (
        simulator(profile="vllm", model="m") as local,
        # holds every request until released, then answers every case wrong
        simulator(profile="vllm", model="m", fault="hold", quality={"math": 0.0}) as gone,
    ):
        data: dict[str, Any] = {
            "backends": [backend("gone", gone.url), backend("local", local.url)],
            "routes": {intent: ["gone", "local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
            "canary": {**CANARY, "interval_s": 600, "floors": {"math": 0.2}, "min_samples": 1},
            "resilience": {"enabled": False},
        }
        with router(parse(data)) as proxy:
            until(lambda: gone.stats()["held"] == 1, what="the canary asking `gone`")
            path = tmp_path / "router.yaml"
            removed = {
                **data,
                "backends": [backend("local", local.url)],
                "routes": {intent: ["local"] for intent in INTENTS},
            }
            path.write_text(yaml.safe_dump(removed))
            reload.reloader_of(proxy.components).source = path
            assert httpx.post(f"{proxy.url}/router/reload", timeout=30).status_code == 200
            gone.control("release", {})  # now `gone` answers, every case wrong
            until(lambda: status(proxy.root)["extra"]["canary"]["runs"] == 1, what="the run")
            canary = status(proxy.root)["extra"]["canary"]
            assert canary["gated"] == {} and set(canary["last_run"]) == {"local"}
            assert {s["backend"] for s in canary["standings"]} == {"local"}
            gone_series = [
                n for n, labels in scrape(proxy.root).samples if ("backend", "gone") in labels
            ]
            assert gone_series == []
