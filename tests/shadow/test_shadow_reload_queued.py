"""A reload applies to the shadow's jobs already queued, not only to the next sampled request.

Found in review: a queued job's replay asked only whether its rate was still above 0 and its
target had room, so after a reload that turned `allow_cloud_targets` off, or moved the target
to the cloud tier, up to `queue_size` jobs still went there (private requests too), and their
rows said the tier of the config they were queued under. And a raised
`max_concurrency` waited for a replay in flight to end before starting queued jobs.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from classifier import INTENTS
from router import reload
from router.config import Config, parse
from router.ledger import Ledger
from tests.harness import Running, config_for, router, scrape, simulator
from tests.shadow.shadow_status import (
    chats,
    comparison_rows,
    reload_to,
    shadow_counts,
    shadow_status,
    until,
)

MATH = {"model": "auto", "messages": [{"role": "user", "content": "What is 1234 + 4321?"}]}
SECRET = "What is 2468 + 1357?"  # the private requests' question: none may reach the cloud
LONG = {"first_token_s": 60, "idle_s": 60, "total_s": 120}  # held requests wait, not fail


def _post(r: Running, backend: str, question: str = "", private: bool = False) -> None:
    """A math request (`question`, else 1234 + 4321), served by `backend`."""
    body = {**MATH, "messages": [{"role": "user", "content": question}]} if question else MATH
    headers = {"x-smf-private": "true"} if private else {}
    response = httpx.post(f"{r.url}/chat/completions", json=body, headers=headers, timeout=60)
    assert (response.status_code, response.headers["x-smf-backend"]) == (200, backend)


def _settled(r: Running, picks: int) -> bool:
    """Every pick compared or dropped, nothing queued or in flight."""
    status = shadow_status(r)
    counts = status["counts"]
    ended = counts.get("compared", 0) + sum(
        n for reason, n in counts.items() if reason.startswith("dropped_")
    )
    return (status["queued"], status["in_flight"], ended) == (0, 0, picks)


def _release(server: Running) -> None:
    """Let the held requests go, and hold no more."""
    server.control("faults", {"fault": None})
    server.control("release", {})


def test_a_reload_that_turns_cloud_targets_off_drops_the_jobs_queued_for_the_cloud(
    tmp_path: Path,
) -> None:
    """Math served locally, shadowed on the cloud (allowed), which holds every replay: one
    in flight, two queued behind it (`max_concurrency: 1`), when a reload turns
    `allow_cloud_targets` off. Released, the one in flight (sent before the reload) is
    compared; the two queued are dropped as `not_allowed`, and the cloud never gets them.
    The old shadow sent all three."""
    shadow = {"rates": {"math": 1.0}, "max_concurrency": 1, "allow_cloud_targets": True}
    with (
        simulator(profile="cloud", model="cloud-model", fault="hold") as cloud,
        simulator(profile="vllm", model="local-model") as local,
    ):
        routes = {intent: ["local"] for intent in INTENTS}
        backends = {"local": local, "cloud": cloud}
        config = config_for(backends, tmp_path, LONG, shadow=shadow, routes=routes)
        path = tmp_path / "router.yaml"
        with router(config) as r:
            reload.reloader_of(r.components).source = path
            for _ in range(3):
                _post(r, "local")
            until(lambda: cloud.stats()["held"] == 1 and shadow_status(r)["queued"] == 2)
            off = config.model_dump(mode="json")
            reload_to(r, path, {**off, "shadow": {**off["shadow"], "allow_cloud_targets": False}})
            _release(cloud)
            until(lambda: _settled(r, 3))
            counts = shadow_counts(r)
            dropped = scrape(r.root).get("smf_router_shadow_dropped_total", reason="not_allowed")
        replayed = chats(cloud)
    assert replayed == 1  # only the replay sent before the reload
    assert (counts["compared"], counts.get("dropped_not_allowed", 0), dropped) == (1, 2, 2)
    assert len(comparison_rows(tmp_path / "ledger")) == 1


def _with_gpu(local: Running, cloud: Running, gpu: Running, tmp: Path) -> Config:
    """Math served locally and shadowed on `gpu`, a local backend with a (cloud) price for
    the day it moves to the cloud; cloud targets allowed, one replay at a time."""
    shadow = {
        "rates": {"math": 1.0},
        "targets": {"math": "local2"},
        "max_concurrency": 1,
        "allow_cloud_targets": True,
    }
    servers = {"local": local, "cloud": cloud, "local2": gpu}
    routes = {intent: ["local", "cloud"] for intent in INTENTS}
    data = config_for(servers, tmp, LONG, shadow=shadow, routes=routes).model_dump(mode="json")
    data["backends"][2]["price"] = {"input_per_mtok": 1000, "output_per_mtok": 1000}
    return parse(data)


def test_a_reload_that_moves_the_target_to_the_cloud_keeps_private_jobs_away(
    tmp_path: Path,
) -> None:
    """The target, local2, holds every replay: a public request's replay is in flight there,
    two private ones and a public one queued behind it, when a reload moves local2 to the
    cloud tier. Released: the queued private ones are dropped as `private`, their question
    never reaches local2; the queued public one is replayed on local2, now cloud, and its
    row says so, priced as cloud (the one sent before the reload stays local). The old
    shadow sent all four, and stored every row as local."""
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="vllm", model="local2-model", fault="hold", keep_requests=10) as gpu,
    ):
        config = _with_gpu(local, cloud, gpu, tmp_path)
        path = tmp_path / "router.yaml"
        with router(config) as r:
            reload.reloader_of(r.components).source = path
            _post(r, "local")
            until(lambda: gpu.stats()["held"] == 1)
            for _ in range(2):
                _post(r, "local", SECRET, private=True)
            _post(r, "local")
            until(lambda: shadow_status(r)["queued"] == 3)
            moved = config.model_dump(mode="json")
            moved["backends"][2]["tier"] = "cloud"
            reload_to(r, path, moved)
            _release(gpu)
            until(lambda: _settled(r, 4))
            counts = shadow_counts(r)
        asked = [str(body["messages"]) for body in gpu.stats()["recent_requests"]]
    assert len(asked) == 2 and not any(SECRET in question for question in asked)
    assert (counts["compared"], counts.get("dropped_private", 0)) == (2, 2)
    with Ledger(tmp_path / "ledger") as ledger:
        rows = ledger.sql(
            "SELECT shadow_backend, shadow_tier, shadow_cost_usd > 0"
            " FROM shadow_comparisons ORDER BY ts"
        )
    assert rows == [("local2", "local", False), ("local2", "cloud", True)]


def test_a_raised_max_concurrency_starts_queued_jobs_without_waiting(tmp_path: Path) -> None:
    """local holds every replay: one in flight, two queued (`max_concurrency: 1`), when a
    reload raises the limit to 4. The two queued start at once, while the first is still
    held; they waited for it to end (the loop looked at the limit only as a replay ended)."""
    shadow = {"rates": {"math": 1.0}, "max_concurrency": 1}
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model", fault="hold") as local,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path, LONG, shadow=shadow)
        path = tmp_path / "router.yaml"
        with router(config) as r:
            reload.reloader_of(r.components).source = path
            for _ in range(3):
                _post(r, "cloud")
            until(lambda: local.stats()["held"] == 1 and shadow_status(r)["queued"] == 2)
            raised = config.model_dump(mode="json")
            reload_to(r, path, {**raised, "shadow": {**raised["shadow"], "max_concurrency": 4}})
            until(lambda: shadow_status(r)["in_flight"] == 3)  # no new request, no replay ended
            status = shadow_status(r)
            held = local.stats()["held"]
            _release(local)
            until(lambda: _settled(r, 3))
            counts = shadow_counts(r)
    assert (status["in_flight"], status["queued"], status["max_concurrency"], held) == (3, 0, 4, 3)
    assert counts["compared"] == 3


def test_a_reload_that_moves_the_target_drops_the_jobs_queued_for_the_old_one(
    tmp_path: Path,
) -> None:
    """Math served in the cloud, shadowed on local, which holds every replay: one in flight,
    two queued behind it, when a reload aims math's shadow at local2 (`shadow.targets`).
    Released, the one in flight (sent before the reload) is compared; the two queued are
    dropped as `target_changed`, sent neither to local nor to local2. The old shadow sent
    all three to local, where README says a queued replay starts only where the new config
    would send a new sample (found in review)."""
    shadow = {"rates": {"math": 1.0}, "targets": {"math": "local"}, "max_concurrency": 1}
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model", fault="hold") as local,
        simulator(profile="vllm", model="local2-model") as gpu,
    ):
        routes = {intent: ["cloud"] for intent in INTENTS}
        servers = {"local": local, "cloud": cloud, "local2": gpu}
        config = config_for(servers, tmp_path, LONG, shadow=shadow, routes=routes)
        path = tmp_path / "router.yaml"
        with router(config) as r:
            reload.reloader_of(r.components).source = path
            before = scrape(r.root).get("smf_router_shadow_dropped_total", reason="target_changed")
            for _ in range(3):
                _post(r, "cloud")
            until(lambda: local.stats()["held"] == 1 and shadow_status(r)["queued"] == 2)
            moved = config.model_dump(mode="json")
            targets = {"math": "local2"}
            reload_to(r, path, {**moved, "shadow": {**moved["shadow"], "targets": targets}})
            _release(local)
            until(lambda: _settled(r, 3))
            counts = shadow_counts(r)
            after = scrape(r.root).get("smf_router_shadow_dropped_total", reason="target_changed")
        replayed = (chats(local), chats(gpu))
    assert replayed == (1, 0)  # only the replay sent before the reload
    assert before == 0  # the series exists from the start, as every drop reason's does
    assert (counts["compared"], counts.get("dropped_target_changed", 0), after) == (1, 2, 2)
    with Ledger(tmp_path / "ledger") as ledger:
        assert ledger.sql("SELECT shadow_backend FROM shadow_comparisons") == [("local",)]
