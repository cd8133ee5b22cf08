"""The shadow's targets speak chat: the shadow asks every target in chat, so a backend that
speaks only Responses or Messages is never picked (found in review: it got POST
/chat/completions on every replay)."""

from __future__ import annotations

from pathlib import Path

import httpx

from router.config import Config
from tests.harness import Running, config_for, router, simulator
from tests.shadow.shadow_status import shadow_counts, until

CODE = {"model": "auto", "messages": [{"role": "user", "content": "Write a Python add(a, b)."}]}


def _config(servers: dict[str, Running], tmp: Path) -> Config:
    """Coding routed local first, then `cloud` (Responses only), then any other backend;
    the shadow may go to the cloud."""
    shadow = {"rates": {"coding": 1.0}, "allow_cloud_targets": True}
    data = config_for(servers, tmp, shadow=shadow).model_dump(mode="json")
    for backend in data["backends"]:
        if backend["name"] == "cloud":
            backend["apis"] = ["responses"]
    data["routes"] = {k: ["local", *[n for n in servers if n != "local"]] for k in data["routes"]}
    return Config.model_validate(data)


def test_a_target_that_does_not_speak_chat_gets_no_chat(tmp_path: Path) -> None:
    """The route's first cloud backend speaks only Responses: the shadow goes to the next
    cloud backend that speaks chat, and with none there it is dropped as `api_unsupported`
    (counted in the status and the metric), never sent in chat to a Responses server."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="cloud", model="cloud2-model") as cloud2,
    ):
        with router(_config({"local": local, "cloud": cloud}, tmp_path / "alone")) as r:
            response = httpx.post(f"{r.url}/chat/completions", json=CODE, timeout=10)
            assert response.headers["x-smf-backend"] == "local"
            until(lambda: shadow_counts(r).get("dropped_api_unsupported", 0) == 1)
            metrics = httpx.get(f"{r.root}/metrics", timeout=5).text
        assert 'smf_router_shadow_dropped_total{reason="api_unsupported"} 1' in metrics
        servers = {"local": local, "cloud": cloud, "cloud2": cloud2}
        with router(_config(servers, tmp_path / "beside")) as r:
            response = httpx.post(f"{r.url}/chat/completions", json=CODE, timeout=10)
            assert response.headers["x-smf-backend"] == "local"
            until(lambda: shadow_counts(r).get("compared", 0) == 1)
        assert cloud.completions() == 0  # never asked in chat
        assert cloud2.completions() == 1  # the shadow went to the one that speaks it
