"""A hot reload beside a backend that waits out a 429's `Retry-After`: the wait is the
backend's as configured, its name and settings, as its circuit, load and sticky pins are
(`Resilience.reloaded`). A reload that leaves the backend as it was keeps the wait; one that
renames it forgets the wait with the old name, so a new backend given that name, another
server, is not passed by for a wait it never asked for, and the renamed one is asked again
once (a provider still limiting answers the same 429, which starts the wait again under
the new name). Real sockets: the router and three simulators, the official openai SDK."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router import reload
from router.config import parse
from tests.harness import INTENTS, RunningRouter, config_for, router, sdk, simulator
from tests.resilience.conftest import CODING, FAST, backend_state, status, write


def _served(proxy: RunningRouter, model: str = "coding") -> tuple[str, str]:
    """One chat request through the SDK: the backend that served it, and the attempts."""
    reply = sdk(proxy).chat.completions.with_raw_response.create(
        model=model, messages=[{"role": "user", "content": CODING[0]["content"]}]
    )
    return reply.headers["x-smf-backend"], reply.headers["x-smf-attempts"]


def _reloaded(proxy: RunningRouter, path: Path, data: dict[str, Any]) -> None:
    write(path, data)
    assert httpx.post(f"{proxy.url}/router/reload", trust_env=False).status_code == 200


def test_a_reload_keeps_an_unchanged_backends_wait_and_a_rename_leaves_it_with_the_old_name(
    tmp_path: Path,
) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as limited,
        simulator(profile="cloud", model="cloud-model") as spare,
    ):
        limited.control("faults", {"fault": "rate_limit:600"})
        servers = {"local": local, "cloud": limited}
        routes = {intent: ["cloud", "local"] for intent in INTENTS}
        config = config_for(servers, tmp_path, routes=routes, resilience=FAST)
        data = config.model_dump(mode="json")
        path = tmp_path / "router.yaml"
        with router(parse(data)) as proxy:
            reload.reloader_of(proxy.components).source = path
            assert _served(proxy) == ("local", "2")  # the cloud's 429, then local
            assert backend_state(proxy.root, "cloud")["rate_limited_for_s"] > 500

            # nothing of the cloud changed: the wait stands, the cloud is not asked
            _reloaded(proxy, path, {**data, "aliases": {"auto": "auto", "smart": "auto"}})
            assert backend_state(proxy.root, "cloud")["rate_limited_for_s"] > 500
            assert _served(proxy) == ("local", "1")
            assert limited.completions() == 1

            # renamed `paid`, and the name `cloud` given to another server, first in the routes
            local_spec, cloud_spec = data["backends"]
            backends = [
                local_spec,
                {**cloud_spec, "name": "paid"},
                {**cloud_spec, "base_url": spare.url},
            ]
            routes = {intent: ["cloud", "paid", "local"] for intent in INTENTS}
            _reloaded(proxy, path, {**data, "backends": backends, "routes": routes})
            shown = status(proxy.root)["extra"]["resilience"]["backends"]
            assert {name: b["rate_limited_for_s"] for name, b in shown.items()} == {
                "local": None,
                "paid": None,
                "cloud": None,
            }
            assert _served(proxy) == ("cloud", "1")  # the other server: not passed by
            assert (spare.completions(), limited.completions()) == (1, 1)

            # the renamed backend is asked again, and its 429 starts the wait under its name
            with pytest.raises(openai.RateLimitError):
                _served(proxy, model="paid")
            assert limited.completions() == 2
            assert backend_state(proxy.root, "paid")["rate_limited_for_s"] > 500
            assert backend_state(proxy.root, "cloud")["rate_limited_for_s"] is None
            # and now a plan passes it by
            body = {"model": "coding", "messages": CODING}
            explained = httpx.post(f"{proxy.url}/router/explain", json=body, trust_env=False)
            assert {"backend": "paid", "reason": "rate_limited"} in explained.json()["skipped"]
