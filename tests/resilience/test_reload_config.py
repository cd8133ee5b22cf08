"""Hot reload: valid configs swap in for new requests, invalid ones are rejected with the
reason, in-flight requests finish on the old backends. SIGHUP on a real process:
test_reload_sighup.py."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from router import reload
from router.config import hash_key, parse
from tests.harness import breaks_on_call, config_for, router, scrape, simulator
from tests.resilience.conftest import CODING, chat, model_ids, status, until, write


def test_reload_swaps_valid_config_and_rejects_invalid(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump(mode="json")
        path = write(tmp_path / "router.yaml", data)
        with router(config_for({"local": local, "cloud": cloud}, tmp_path)) as proxy:
            reload.reloader_of(proxy.components).source = path
            grown = {**data, "backends": [*data["backends"], {**data["backends"][1], "name": "b2"}]}
            write(path, grown)
            answer = httpx.post(f"{proxy.url}/router/reload")
            assert answer.status_code == 200, answer.text
            assert answer.json()["backends"]["added"] == ["b2"]
            assert "b2" in model_ids(proxy.url)

            broken = {**grown, "routes": {**grown["routes"], "coding": ["nowhere"]}}
            write(path, broken)
            rejected = httpx.post(f"{proxy.url}/router/reload")
            assert rejected.status_code == 400
            error = rejected.json()["error"]
            assert error["code"] == "invalid_config"
            assert "routes.coding" in error["message"] and "nowhere" in error["message"]
            assert "b2" in model_ids(proxy.url)  # the running config stayed
            assert chat(proxy.url).status_code == 200

            write(path, {**grown, "ledger": {**grown["ledger"], "flush_interval_s": 0.5}})
            restart = httpx.post(f"{proxy.url}/router/reload").json()
            assert restart["restart_needed"] == ["ledger"]

            slower = {**grown, "ledger": {**grown["ledger"], "flush_interval_s": 0.5}}
            write(path, {**slower, "resilience": {**grown["resilience"], "enabled": True}})
            restart = httpx.post(f"{proxy.url}/router/reload").json()
            # still pending: the ledger change too (this test once expected only the newest
            # change; a reload compares with what the process runs, found in review)
            assert restart["restart_needed"] == ["ledger", "resilience.enabled"]

            write(path, grown)  # both reverted: nothing is pending any more
            assert httpx.post(f"{proxy.url}/router/reload").json()["restart_needed"] == []
            limit = {**grown, "server": {**grown["server"], "max_body_bytes": 2048}}
            write(path, limit)  # read per request: applies at once
            assert httpx.post(f"{proxy.url}/router/reload").json()["restart_needed"] == []
            assert chat(proxy.url, user="x" * 3000).status_code == 413


def test_a_file_yaml_cannot_read_or_a_bug_in_loading_is_a_rejected_reload(
    tmp_path: Path, monkeypatch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """`!!int abc` escaped the loader as a ValueError: the reload answered 500, and over
    SIGHUP logged "Task exception was never retrieved" (found in review). `!!bool sk-...`
    escaped as a KeyError, logged with a traceback quoting the value (found in review)."""
    with (
        caplog.at_level(logging.INFO, logger="smf_router"),
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path)
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump(config.model_dump(mode="json")) + "x: !!int abc\n")
        with router(config) as proxy:
            reloader = reload.reloader_of(proxy.components)
            reloader.source = path
            rejected = httpx.post(f"{proxy.url}/router/reload")
            assert rejected.status_code == 400, rejected.text
            assert "invalid YAML" in rejected.json()["error"]["message"]
            path.write_text(path.read_text().replace("!!int abc", '{key: "sk-RELOAD-1"'))
            rejected = httpx.post(f"{proxy.url}/router/reload")
            message = rejected.json()["error"]["message"]
            assert "line" in message and "sk-RELOAD-1" not in message  # PyYAML quoted the line
            path.write_text(path.read_text().replace('{key: "sk-RELOAD-1"', "!!bool sk-RELOAD-2"))
            rejected = httpx.post(f"{proxy.url}/router/reload")
            assert rejected.status_code == 400, rejected.text
            message = rejected.json()["error"]["message"]
            assert "cannot read this value as tag:yaml.org,2002:bool" in message
            assert "reload-2" not in message.lower() and "reload-2" not in caplog.text.lower()
            monkeypatch.setattr(reload, "load", breaks_on_call(1, reload.load))
            rejected = httpx.post(f"{proxy.url}/router/reload")
            assert rejected.status_code == 400, rejected.text
            assert "ZeroDivisionError" in rejected.json()["error"]["message"]
            assert chat(proxy.url).status_code == 200 and reloader.reloads == 0


def test_reload_swaps_auth_and_needs_an_admin_key(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path)
        data = config.model_dump(mode="json")
        keys = [
            {"name": "ops", "sha256": hash_key("sk-admin"), "admin": True},
            {"name": "agent", "sha256": hash_key("sk-agent")},
        ]
        path = write(tmp_path / "router.yaml", {**data, "auth": {"keys": keys}})
        with router(config) as proxy:
            reload.reloader_of(proxy.components).source = path
            assert httpx.post(f"{proxy.url}/router/reload").status_code == 200
            assert chat(proxy.url).status_code == 401  # keys now rule
            agent = {"authorization": "Bearer sk-agent"}
            assert chat(proxy.url, headers=agent).status_code == 200
            assert httpx.post(f"{proxy.url}/router/reload", headers=agent).status_code == 403
            admin = {"authorization": "Bearer sk-admin"}
            assert httpx.post(f"{proxy.url}/router/reload", headers=admin).status_code == 200


def test_in_flight_requests_finish_on_the_old_backend(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model", ttft_s=1.5) as old_local,
        simulator(profile="vllm", model="local-model") as new_local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for(
            {"local": old_local, "cloud": cloud}, tmp_path, resilience={"enabled": True}
        ).model_dump(mode="json")
        for backend in data["backends"]:
            backend["timeouts"] = {"first_token_s": 15, "idle_s": 15, "total_s": 30}
        config = parse(data)
        data["backends"][0]["base_url"] = new_local.url
        path = write(tmp_path / "router.yaml", data)
        with router(config) as proxy:
            reload.reloader_of(proxy.components).source = path
            result: dict[str, Any] = {}

            def slow() -> None:
                body = {"model": "local", "messages": CODING, "stream": True}
                with httpx.stream(
                    "POST", f"{proxy.url}/chat/completions", json=body, timeout=30
                ) as response:
                    result["status"] = response.status_code
                    result["text"] = "".join(response.iter_text())

            thread = threading.Thread(target=slow)
            thread.start()
            until(
                lambda: (
                    status(proxy.root)["extra"]["resilience"]["backends"]["local"]["inflight"] == 1
                ),
                what="request in flight",
            )
            assert httpx.post(f"{proxy.url}/router/reload").json()["backends"]["changed"] == [
                "local"
            ]
            assert chat(proxy.url, model="local").status_code == 200  # served by new_local
            thread.join(timeout=30)
            assert result["status"] == 200 and result["text"].rstrip().endswith("[DONE]")
            old_posts = old_local.stats()["by_path"].get("/v1/chat/completions", 0)
            new_posts = new_local.stats()["by_path"].get("/v1/chat/completions", 0)
            assert (old_posts, new_posts) == (1, 1)
            assert status(proxy.root)["extra"]["reload"]["retiring_backends"] == 1
            until(  # the in-flight request's connection closed with its reply, not kept idle
                lambda: old_local.stats()["connections"] == 1, what="old connection closed"
            )


def test_a_retired_backend_lets_go_of_its_idle_connections(tmp_path: Path) -> None:
    """Not only when `total_s` has passed: nothing will be sent on them again."""
    with (
        simulator(profile="vllm", model="local-model") as old_local,
        simulator(profile="vllm", model="local-model") as new_local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": old_local, "cloud": cloud}, tmp_path).model_dump(mode="json")
        config = parse(data)
        data["backends"][0]["base_url"] = new_local.url
        path = write(tmp_path / "router.yaml", data)
        with router(config) as proxy:
            reload.reloader_of(proxy.components).source = path
            assert chat(proxy.url, model="local").status_code == 200
            assert old_local.stats()["connections"] >= 2  # the router's idle one and ours
            assert httpx.post(f"{proxy.url}/router/reload").json()["backends"]["changed"] == [
                "local"
            ]
            until(
                lambda: old_local.stats()["connections"] == 1,  # only the one asking
                what="the retired backend's idle connection closed",
            )
            assert chat(proxy.url, model="local").status_code == 200
            assert new_local.stats()["by_path"]["/v1/chat/completions"] == 1
            assert status(proxy.root)["extra"]["reload"]["retiring_backends"] == 1


def test_a_reload_forgets_what_was_learned_about_a_changed_or_removed_backend(
    tmp_path: Path,
) -> None:
    """Found in review: a backend re-pointed at a new server kept the old server's context
    window for up to `models_refresh_s`; a removed backend kept exporting `up=0` (an alert
    that fired until a restart); sticky settings applied to new entries only."""
    from tests.resilience.conftest import FAST

    with (
        simulator(profile="vllm", model="local-model", max_model_len=4096) as small,
        simulator(profile="vllm", model="local-model", max_model_len=131072) as large,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        servers = {"local": small, "cloud": cloud}
        config = config_for(servers, tmp_path, resilience=FAST)
        data = config.model_dump(mode="json")
        data["backends"].append({**data["backends"][1], "name": "cloud2"})
        path = write(tmp_path / "router.yaml", data)
        with router(parse(data)) as proxy:
            reload.reloader_of(proxy.components).source = path

            def backends() -> dict[str, Any]:
                return dict(status(proxy.root)["extra"]["resilience"]["backends"])

            until(lambda: backends()["local"]["context_window"] == 4096, what="window learned")
            chat(proxy.url, model="auto", user="agent-1")
            assert status(proxy.root)["extra"]["resilience"]["sticky_conversations"] == 1

            moved = {**data, "resilience": {**data["resilience"], "sticky_ttl_s": 0}}
            moved["backends"] = [
                {**data["backends"][0], "base_url": large.url},
                data["backends"][1],
            ]
            write(path, moved)
            assert httpx.post(f"{proxy.url}/router/reload").status_code == 200
            until(lambda: backends()["local"]["context_window"] == 131072, what="new window")
            assert status(proxy.root)["extra"]["resilience"]["sticky_conversations"] == 0
            metrics = httpx.get(f"{proxy.root}/metrics").text
            assert not any(
                line.startswith(("smf_router_backend_up", "smf_router_backend_circuit_state"))
                and 'backend="cloud2"' in line
                for line in metrics.splitlines()
            )


def test_a_backend_a_reload_adds_shows_up_and_open_gates_at_once(tmp_path: Path) -> None:
    """An added backend had no `backend_up` series until its circuit first moved, nor
    `route_gated` until the next canary run (900 s by default): a dashboard showed nothing
    for it, and an alert on absence fired (found in review)."""
    from evals.suite import SHIPPED
    from tests.resilience.conftest import FAST

    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        canary = {"enabled": True, "interval_s": 600, "suites": str(SHIPPED / "math")}
        config = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=FAST)
        data = {**config.model_dump(mode="json"), "canary": canary}
        with router(parse(data)) as proxy:
            path = write(tmp_path / "router.yaml", data)
            reload.reloader_of(proxy.components).source = path
            write(
                path,
                {
                    **data,
                    "backends": [*data["backends"], {**data["backends"][0], "name": "local2"}],
                },
            )
            assert httpx.post(f"{proxy.url}/router/reload").status_code == 200

            now, local2 = scrape(proxy.root), {"backend": "local2", "tier": "local"}
            assert now.get("smf_router_backend_up", **local2) == 1
            assert now.get("smf_router_backend_circuit_state", **local2, state="closed") == 1
            gate = {"backend": "local2", "intent": "math"}
            assert now.get("smf_router_route_gated", **gate) == 0


def test_a_poll_in_flight_during_a_reload_does_not_bring_a_removed_backend_back(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The capacity loop walked the old config's backends: a reload landing while it waited
    on one poll let it poll the removed backend next and write its gauges back, for good
    (found in review)."""
    from router import resilience
    from tests.resilience.conftest import FAST, with_one_to_remove, without

    real_poll = resilience.poll_metrics
    swapped: list[bool] = []

    with with_one_to_remove(tmp_path) as (data, proxy):
        kept = without(data, "local_gone")
        reloader = reload.reloader_of(proxy.components)

        async def poll(client: Any, settings: Any, *args: Any) -> Any:
            if settings.name == "local" and not swapped:  # the reload lands mid-loop
                swapped.append(True)
                await reloader.reload(None, parse(kept))
            return await real_poll(client, settings, *args)

        monkeypatch.setattr(resilience, "poll_metrics", poll)
        until(lambda: bool(swapped), what="a reload during a poll")
        until(lambda: status(proxy.root)["extra"]["resilience"]["probes_sent"] > 0)
        time.sleep(5 * FAST["capacity_poll_s"])  # a few more loops
        metrics = httpx.get(f"{proxy.root}/metrics", trust_env=False).text
    stale = [m for m in metrics.splitlines() if 'backend="local_gone"' in m and "backend_" in m]
    assert stale == []  # in-flight series included: an idle removed backend's goes at once
