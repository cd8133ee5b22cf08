"""A router without a canary of its own gates on the rounds `smf-router canary run` (the
Kubernetes CronJob) writes to the shared ledger: its gates, gauges and status follow them."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from evals.suite import SHIPPED
from router import reload
from router.canary_follow import Follower
from router.canary_judge import Judge, fingerprint, gate_book
from router.canary_rows import finished_rounds
from router.config import parse
from router.ledger import LedgerWriter
from router.ledger.recent import RecentRows
from tests.canary.past_rounds import CANARY as RECALLED
from tests.canary.past_rounds import write_rounds
from tests.harness import VENV_BIN, config_for, router, scrape, simulator
from tests.resilience.conftest import status, until

LOCAL = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
CLOUD = {"name": "cloud", "tier": "cloud", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
MATH = [{"role": "user", "content": "Compute the sum of 1234 and 4321."}]


def test_the_cronjob_rounds_gate_a_router_that_runs_no_canary(tmp_path: Path) -> None:
    """As deployed on Kubernetes (canary.enabled false on the routers, the CronJob on the
    same config and ledger), the routers never read the job's results: no gate, no canary
    gauge, no SmfCanaryBelowFloor (found in review)."""
    canary = {"suites": str(SHIPPED / "math"), "sample_per_suite": 3, "min_samples": 3}
    canary |= {"floors": {"math": 0.4}, "interval_s": 0.3}  # read the ledger every 0.3 s
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path, canary=canary)
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(config.model_dump(mode="json")))
        cloud.control("quality", {"math": 0.0})
        with router(config) as proxy:
            assert not config.canary.enabled
            assert ask_math(proxy.url).headers["x-smf-backend"] == "cloud"
            cronjob = [str(VENV_BIN / "smf-router"), "canary", "run", "--config", str(path)]
            done = subprocess.run(cronjob, capture_output=True, text=True, timeout=180)
            assert done.returncode == 0, done.stderr

            gates = {"backend": "cloud", "intent": "math"}
            until(
                lambda: scrape(proxy.root).get("smf_router_route_gated", **gates) == 1,
                what="the job's round read back into the gates",
            )
            now = scrape(proxy.root)
            assert now.get("smf_router_canary_pass_ratio", backend="cloud", suite="math") == 0
            assert now.get("smf_router_canary_floor_ratio", backend="cloud", suite="math") == 0.4
            assert now.get("smf_router_route_gated", backend="local", intent="math") == 0
            section = status(proxy.root)["extra"]["canary"]
            assert section["gated"] == {"cloud": ["math"]} and section["runs"] == 1
            assert ask_math(proxy.url).headers["x-smf-backend"] == "local"


def ask_math(url: str) -> httpx.Response:
    body = {"model": "auto", "messages": MATH}
    return httpx.post(f"{url}/chat/completions", json=body, timeout=30)


def test_a_round_counts_once_all_its_results_are_on_disk(tmp_path: Path) -> None:
    """A flush may split a round: judging its first half would judge it short, and the
    rest never (its round was judged already)."""
    writer = LedgerWriter(tmp_path, flush_interval_s=60)
    ts = datetime.now(UTC).timestamp()
    day = datetime.now(UTC).date().isoformat()
    summary: dict[str, Any] = {"run_id": "r1", "ts": ts, "backend": "local", "cases": 2}
    writer.submit_row("canary_runs", summary | {"suites": "math", "passed": 1, "failed": 1})
    result: dict[str, Any] = {"run_id": "r1", "ts": ts, "backend": "local", "suite": "math"}
    writer.submit_row("canary_results", result | {"case_id": "m-1", "status": "pass"})
    writer.flush()
    runs, results = RecentRows(tmp_path, "canary_runs"), RecentRows(tmp_path, "canary_results")
    assert finished_rounds(runs.read(day), results.read(day), judged=()) == []

    writer.submit_row("canary_results", result | {"case_id": "m-2", "status": "fail"})
    writer.close()
    (found,) = finished_rounds(runs.read(day), results.read(day), judged=())
    assert found.key == ("r1", "local")
    assert sorted(r.status for r in found.results) == ["fail", "pass"]
    assert finished_rounds(runs.read(day), results.read(day), judged={found.key}) == []


def test_a_run_whose_backends_reach_the_disk_in_different_reads_counts_once(
    tmp_path: Path,
) -> None:
    """The job's two backends' rounds of one run were flushed apart and read a minute apart:
    the status said two runs (and the end-to-end test above failed one time in three)."""
    config = parse({"backends": [LOCAL, CLOUD], "ledger": {"path": str(tmp_path)}})
    judge = Judge(gate_book(config.canary), None, lambda: ["local", "cloud"])
    follower = Follower(judge, tmp_path, lambda: config)
    writer = LedgerWriter(tmp_path, flush_interval_s=60)
    ts = datetime.now(UTC).timestamp()
    for backend in ("local", "cloud"):
        summary: dict[str, Any] = {"run_id": "r1", "ts": ts, "backend": backend, "cases": 1}
        writer.submit_row("canary_runs", summary | {"suites": "math", "passed": 1, "failed": 0})
        result = {"run_id": "r1", "ts": ts, "backend": backend, "suite": "math"}
        writer.submit_row("canary_results", result | {"case_id": "m-1", "status": "pass"})
        writer.flush()
        asyncio.run(follower.follow_once())
    writer.close()
    assert follower.status()["runs"] == 1
    assert set(follower.last_run) == {"local", "cloud"}


def test_a_reload_that_removes_a_backend_drops_it_from_the_followers_status(
    tmp_path: Path,
) -> None:
    """The follower's `last_run` kept a backend a reload removed, until a restart; the
    router's own canary already dropped it (found in review)."""
    with simulator(profile="vllm", model="local-model") as local:
        canary = {"interval_s": 0.3}  # the follower reads the ledger every 0.3 s
        config = config_for({"local": local, "local2": local}, tmp_path, canary=canary)
        with router(config) as proxy:
            writer = LedgerWriter(tmp_path / "ledger", flush_interval_s=60)
            ts = datetime.now(UTC).timestamp()
            for name in ("local", "local2"):
                summary: dict[str, Any] = {"run_id": "r1", "ts": ts, "backend": name, "cases": 0}
                writer.submit_row("canary_runs", summary | {"suites": "math", "passed": 0})
            writer.close()
            until(
                lambda: (
                    set(status(proxy.root)["extra"]["canary"]["last_run"]) == {"local", "local2"}
                ),
                what="the rounds read back",
            )
            path = tmp_path / "router.yaml"
            kept = config.model_dump(mode="json")
            kept["backends"] = [b for b in kept["backends"] if b["name"] == "local"]
            kept["routes"] = {intent: ["local"] for intent in kept["routes"]}
            path.write_text(yaml.safe_dump(kept))
            reload.reloader_of(proxy.components).source = path
            assert httpx.post(f"{proxy.url}/router/reload", timeout=30).status_code == 200
            assert set(status(proxy.root)["extra"]["canary"]["last_run"]) == {"local"}


def test_skipped_rounds_are_said_once_per_backend_and_server(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A round of a server the backend no longer points at (the CronJob's config behind the
    router's), or of a backend the router does not have, was skipped without a word: gates
    that never moved, and nothing to say why (found in review). Said once per backend and
    server, not every round; also when rounds of two other servers alternate, which had
    every round said (found in re-review), and when judged rounds (the CronJob on this
    config) alternate with skipped ones (another job on another config), which had every
    skipped round said, as each judged round forgot the servers said (found in round-2
    re-review). A reload that repoints the backend says them again. A server of the same
    model and URL says what differs."""
    configs = [parse({"backends": [LOCAL, CLOUD], "ledger": {"path": str(tmp_path)}})]
    judge = Judge(gate_book(configs[0].canary), None, lambda: ["local", "cloud"])
    follower = Follower(judge, tmp_path, lambda: configs[-1])
    here = fingerprint(configs[0].backends[0])
    writer = LedgerWriter(tmp_path, flush_interval_s=60)

    def round_of(run: str, backend: str, server: str, model: str = "old-model") -> None:
        summary = {"run_id": run, "ts": datetime.now(UTC).timestamp(), "backend": backend}
        summary |= {"cases": 0, "suites": "math", "model": model, "server": server}
        summary |= {"base_url": "http://127.0.0.1:9/v1"}
        writer.submit_row("canary_runs", summary)
        writer.flush()
        asyncio.run(follower.follow_once())

    with caplog.at_level(logging.WARNING, "smf_router.canary"):
        for run in ("r1", "r2", "r3"):
            round_of(run, "local", "elsewhere")
            round_of(run, "gone", "elsewhere")
        said = [r.getMessage() for r in caplog.records]
        for run in ("r4", "r5", "r6", "r7"):  # two writers: this config's job, and another
            round_of(f"{run}-here", "local", here, "m")  # judged
            round_of(run, "local", "elsewhere")
        assert len(caplog.records) == 2
        for run in ("r8", "r9", "r10", "r11"):  # two other writers, turn about
            round_of(run, "local", "elsewhere" if run in ("r8", "r10") else "yet-another")
        round_of("r12", "local", "thinking-on", "m")  # this model and URL: extra_body differs
        configs.append(parse({"backends": [{**LOCAL, "model": "m2"}, CLOUD]}))
        round_of("r13", "local", "elsewhere")  # a reload repointed local: said again
        round_of("r14", "local", "elsewhere")
    writer.close()
    other = (
        "rounds of backend local asked another server (model old-model at http://127.0.0.1:9/v1)"
    )
    unknown = "rounds of backend gone are not judged: this router's config has no backend"
    assert [other in m for m in said] == [True, False] and unknown in said[1]
    assert sum(other in r.getMessage() for r in caplog.records) == 3
    same = "asked another server (same model and URL, other kind or extra_body) than"
    assert sum(same in r.getMessage() for r in caplog.records) == 1
    assert len(caplog.records) == 5
    assert follower.last_run["local"]["run_id"] == "r7-here"


def test_rounds_stamped_in_the_future_do_not_decide_what_the_follower_reports(
    tmp_path: Path,
) -> None:
    """A writer's clock a day or two ahead, then stepped back: the follower read its round
    from yesterday on with no upper bound, and it sorted last. At each start until the clock
    caught up, its failures were the newest results, pushing the later passes out of the
    window (the gate closed), and it was the backend's `last_run`; read each minute, it was
    judged after the round read with it. Left out, as where the rotation resumes."""
    ledger = tmp_path / "ledger"
    write_rounds(ledger, -2, {"cloud": ["fail"] * 20}, n=1)  # two days ahead
    write_rounds(ledger, 0.1, {"cloud": ["pass"] * 10}, n=1)  # run r0.1-0
    canary = {**RECALLED, "interval_s": 0.3}  # window 20, floor 0.6; read every 0.3 s
    data = {"backends": [LOCAL, CLOUD], "ledger": {"path": str(ledger)}, "canary": canary}
    with router(parse(data | {"resilience": {"enabled": False}})) as proxy:
        readyz = f"{proxy.root}/readyz"
        until(lambda: httpx.get(readyz, timeout=5).status_code == 200, what="the recall")
        assert reported(proxy.root) == (1, "r0.1-0", {})

        write_rounds(ledger, -1, {"cloud": ["fail"] * 20}, n=1)  # a day ahead
        write_rounds(ledger, 0, {"cloud": ["pass"] * 5}, n=1)  # run r0-0, written after it
        until(lambda: reported(proxy.root)[0] >= 2, what="the next round read")
        assert reported(proxy.root) == (2, "r0-0", {})
        metrics = scrape(proxy.root)
        assert metrics.get("smf_router_route_gated", backend="cloud", intent="math") == 0
        assert metrics.get("smf_router_canary_pass_ratio", backend="cloud", suite="math") == 1
        graded = metrics.get(
            "smf_router_canary_last_run_timestamp_seconds", backend="cloud", suite="math"
        )
        assert graded is not None and graded <= time.time()


def reported(root: str) -> tuple[int, str, dict[str, list[str]]]:
    """The follower's status: its runs, cloud's last run and the gates."""
    section = status(root)["extra"]["canary"]
    return section["runs"], section["last_run"]["cloud"]["run_id"], section["gated"]
