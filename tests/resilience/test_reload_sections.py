"""What a reload says it changed beyond the backends: the sections whose change applied,
and the caller keys it added, removed or changed, by name. A routes-only change was
logged "added [], removed [], changed []", as a reload that changed nothing, and a key
rotation said nothing of auth (found in review). Names only: never a key or its hash."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import httpx

from router import reload
from router.config import hash_key
from tests.harness import config_for, router, simulator
from tests.processes import router_process
from tests.resilience.conftest import until, write

ADMIN_KEY, OLD_CI_KEY, NEW_CI_KEY = "sk-admin-SECTIONS-1", "sk-ci-SECTIONS-2", "sk-ci-SECTIONS-3"
SAME = "2 backend(s); added [], removed [], changed []"


def keys(ci_key: str) -> list[dict[str, Any]]:
    return [
        {"name": "ops", "sha256": hash_key(ADMIN_KEY), "admin": True},
        {"name": "ci", "sha256": hash_key(ci_key)},
    ]


def reloaded_lines(log: Path) -> list[str]:
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return [line["msg"] for line in lines if line["msg"].startswith("config reloaded")]


def test_a_reload_names_the_sections_and_caller_keys_it_changed(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = config_for({"local": local, "cloud": cloud}, tmp_path).model_dump(mode="json")
        data["backends"][1]["price"] = {"input_per_mtok": 1.0, "output_per_mtok": 2.0}
        data["auth"] = {"keys": keys(OLD_CI_KEY)}
        with router_process(data, tmp_path) as (proxy, process):
            (path,) = tmp_path.glob("router-*.yaml")
            (log,) = tmp_path.glob("router-*.log")
            admin = {"authorization": f"Bearer {ADMIN_KEY}"}

            def reload(new: dict[str, Any]) -> dict[str, Any]:
                write(path, new)
                answer = httpx.post(f"{proxy.url}/router/reload", headers=admin, timeout=60)
                assert answer.status_code == 200, answer.text
                reply: dict[str, Any] = answer.json()
                return reply

            nothing = reload(data)
            assert nothing["message"] == SAME
            assert nothing["changed_sections"] == []
            assert nothing["auth_keys"] == {"added": [], "removed": [], "changed": []}

            reordered = {**data, "routes": {**data["routes"], "coding": ["cloud", "local"]}}
            routes = reload(reordered)
            assert routes["message"] == f"{SAME}; changed sections: routes"
            assert routes["changed_sections"] == ["routes"]
            assert routes["backends"] == {"added": [], "removed": [], "changed": []}

            rotated = {**reordered, "auth": {"keys": keys(NEW_CI_KEY)}}
            write(path, rotated)
            process.send_signal(signal.SIGHUP)  # says it in the log alone
            said = f"{SAME}; changed sections: auth (keys: 1 added (ci), 1 removed (ci))"
            until(lambda: f"config reloaded: {said}" in reloaded_lines(log), what="rotation")

            back = reload({**data, "auth": {"keys": keys(OLD_CI_KEY)}})
            assert back["changed_sections"] == ["routes", "auth"]
            assert back["auth_keys"] == {"added": ["ci"], "removed": ["ci"], "changed": []}
            assert back["message"] == (
                f"{SAME}; changed sections: routes, auth (keys: 1 added (ci), 1 removed (ci))"
            )

            assert reloaded_lines(log) == [
                f"config reloaded: {SAME}",
                f"config reloaded: {SAME}; changed sections: routes",
                f"config reloaded: {said}",
                f"config reloaded: {back['message']}",
            ]
            text = log.read_text() + json.dumps([nothing, routes, back])
            for key in (ADMIN_KEY, OLD_CI_KEY, NEW_CI_KEY):
                assert key not in text and hash_key(key) not in text


def test_a_shadow_the_router_did_not_start_with_is_said_to_wait_for_a_restart_only(
    tmp_path: Path,
) -> None:
    """Shadow rates set on a router started without them: no shadow runs to apply them, so
    the reply said them twice, applied ("changed sections: shadow") and pending a restart."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path)
        data = config.model_dump(mode="json")
        path = write(tmp_path / "router.yaml", {**data, "shadow": {"rates": {"coding": 0.5}}})
        with router(config) as proxy:
            reload.reloader_of(proxy.components).source = path
            reply = httpx.post(f"{proxy.url}/router/reload", trust_env=False).json()
    assert reply["restart_needed"] == ["shadow.rates"]
    assert reply["changed_sections"] == []
    assert reply["message"] == f"{SAME}; needs a restart to apply: shadow.rates"
