"""A reload that gives a backend other credentials ends the waits its 429 and 503 asked for,
and keeps its load and circuit (`router.resilience_reload`).

Rate limits are per key, or per organization or project: switching the backend to a key
with quota is the operator's natural way out of a limit. The reload kept the old key's wait
(same server, `router.server_identity.same_server`), so the backend was passed by for the
rest of the old key's hour, asked nothing with the new key (found in review). Real sockets:
the router and two simulators; the key from the environment, as `api_key_env` names it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.harness import INTENTS, config_for, scrape, simulator
from tests.resilience.conftest import backend_state, chat, until
from tests.resilience.test_reload_keeps import QUIET, SLOW, released, reloading, streams

KEY_A, KEY_B = "SMF_TEST_CLOUD_KEY_A", "SMF_TEST_CLOUD_KEY_B"


def with_cloud(data: dict[str, Any], **settings: Any) -> dict[str, Any]:
    """`data` with `settings` changed on its `cloud` backend."""
    backends = [{**b, **settings} if b["name"] == "cloud" else b for b in data["backends"]]
    return {**data, "backends": backends}


def _password(data: dict[str, Any], password: str) -> dict[str, Any]:
    """The cloud's `base_url` with a user and `password` in it: the same server, masked."""
    (url,) = [b["base_url"] for b in data["backends"] if b["name"] == "cloud"]
    return with_cloud(data, base_url=url.replace("http://", f"http://ops:{password}@"))


# (the cloud's settings before, after): another key, another organization, another password
SWITCHES = {
    "api_key_env": (
        lambda d: with_cloud(d, api_key_env=KEY_A),
        lambda d: with_cloud(d, api_key_env=KEY_B),
    ),
    "organization header": (
        lambda d: with_cloud(d, headers={"OpenAI-Organization": "org-a"}),
        lambda d: with_cloud(d, headers={"OpenAI-Organization": "org-b"}),
    ),
    "URL password": (lambda d: _password(d, "pw-a"), lambda d: _password(d, "pw-b")),
}


@pytest.mark.parametrize("switch", sorted(SWITCHES))
def test_a_reload_with_other_credentials_ends_the_backends_wait_and_keeps_its_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, switch: str
) -> None:
    """The cloud, first on every route, holds one stream, then answers the next request
    429 `Retry-After: 3600` (its key's quota): the request falls back to local and the cloud
    waits. A reload gives it other credentials: the wait ends (status and the next plan),
    the held stream still counts in flight, and the next request is the cloud's again."""
    monkeypatch.setenv(KEY_A, "sk-a-111")
    monkeypatch.setenv(KEY_B, "sk-b-222")
    before, after = SWITCHES[switch]
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model", fault="hold") as cloud,
    ):
        routes = {intent: ["cloud", "local"] for intent in INTENTS}
        config = config_for({"local": local, "cloud": cloud}, tmp_path, routes=routes,
                            resilience=QUIET, timeouts=SLOW)  # fmt: skip
        first = before(config.model_dump(mode="json"))
        with reloading(first, tmp_path) as running:
            root = running.proxy.root
            threads, served = streams(running.proxy, 1)
            until(lambda: cloud.stats()["held"] == 1, what="one stream held at the cloud")
            cloud.control("faults", {"fault": "rate_limit:3600"})
            limited = chat(running.proxy.url)
            assert (limited.status_code, limited.headers["x-smf-backend"]) == (200, "local")
            assert backend_state(root, "cloud")["rate_limited_for_s"] > 3000
            assert backend_state(root, "cloud")["inflight"] == 1

            assert running.reload(after(first)) == ["cloud"]
            state = backend_state(root, "cloud")
            assert state["rate_limited_for_s"] is None  # was 3599.9: the old key's wait
            assert (state["inflight"], state["circuit"]) == (1, "closed")  # kept

            cloud.control("faults", {"fault": None})  # the new credentials have quota
            answer = chat(running.proxy.url)
            assert (answer.status_code, answer.headers["x-smf-backend"]) == (200, "cloud")
            released(cloud, threads)
            assert served == [(200, "cloud")]


def test_a_reload_that_keeps_the_credentials_keeps_the_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same key, a timeout changed: the same quota, still waited out."""
    monkeypatch.setenv(KEY_A, "sk-a-111")
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model", fault="rate_limit:3600") as cloud,
    ):
        routes = {intent: ["cloud", "local"] for intent in INTENTS}
        config = config_for({"local": local, "cloud": cloud}, tmp_path, routes=routes,
                            resilience=QUIET, timeouts=SLOW)  # fmt: skip
        first = with_cloud(config.model_dump(mode="json"), api_key_env=KEY_A)
        with reloading(first, tmp_path) as running:
            assert chat(running.proxy.url).headers["x-smf-backend"] == "local"
            slower = with_cloud(first, timeouts={**SLOW, "first_token_s": 31})
            assert running.reload(slower) == ["cloud"]
            assert backend_state(running.proxy.root, "cloud")["rate_limited_for_s"] > 3000
            assert chat(running.proxy.url).headers["x-smf-backend"] == "local"
            assert cloud.completions() == 1


# (the refusal the held request meets, the wait it asks for); (what the reload changes, the
# cloud's settings after it, whether the refusal's wait is the backend's after the reload)
LATE = [("rate_limit:600", "rate_limited"), ("overloaded:600", "overloaded")]
RELOADS = {
    "new key": ({"api_key_env": KEY_B}, False),
    "new timeout": ({"api_key_env": KEY_A, "timeouts": {**SLOW, "first_token_s": 31}}, True),
}


@pytest.mark.parametrize(("fault", "kind"), LATE)
@pytest.mark.parametrize("change", sorted(RELOADS))
def test_a_late_refusal_sent_with_the_old_key_starts_no_wait_for_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str, kind: str, change: str
) -> None:
    """A stream held at the cloud was sent with key A; a reload gives the cloud key B while
    it waits; then the cloud refuses it, 429 (or an overloaded 503) `Retry-After: 600`, and
    the stream falls back to local. That refusal was key A's quota: the cloud under key B
    keeps no wait (status, gauge) and serves the next request. The live attempt on the
    retired backend asked whether the server moved, not the key (`Retirement.elsewhere`),
    so the old key's refusal passed the new key by for ten minutes (found in review). A
    reload that keeps the key (a timeout changed) keeps the wait: the same quota refused."""
    monkeypatch.setenv(KEY_A, "sk-a-111")
    monkeypatch.setenv(KEY_B, "sk-b-222")
    settings, waits = RELOADS[change]
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model", fault="hold") as cloud,
    ):
        routes = {intent: ["cloud", "local"] for intent in INTENTS}
        config = config_for({"local": local, "cloud": cloud}, tmp_path, routes=routes,
                            resilience=QUIET, timeouts=SLOW)  # fmt: skip
        first = with_cloud(config.model_dump(mode="json"), api_key_env=KEY_A)
        with reloading(first, tmp_path) as running:
            root = running.proxy.root
            threads, served = streams(running.proxy, 1)
            until(lambda: cloud.stats()["held"] == 1, what="one stream held at the cloud")
            assert running.reload(with_cloud(first, **settings)) == ["cloud"]

            cloud.control("release", {"fault": fault})  # the answer to key A comes now
            for thread in threads:
                thread.join(timeout=60)
            assert served == [(200, "local")]  # refused by the cloud, served by local
            assert cloud.stats()["by_fault"] == {"hold": 1, fault.split(":")[0]: 1}

            cloud.control("faults", {"fault": None})
            left = backend_state(root, "cloud")[f"{kind}_for_s"]
            gauge = scrape(root).get(
                f"smf_router_backend_{kind}_seconds", backend="cloud", tier="cloud"
            )
            answer = chat(running.proxy.url)
            if waits:
                assert left is not None and 0 < left <= 600
                assert gauge is not None and 0 < gauge <= 600
                assert answer.headers["x-smf-backend"] == "local"
                assert cloud.completions() == 1  # passed by, not asked
            else:
                assert (left, gauge) == (None, 0)  # were ~600: key A's wait, kept for key B
                assert (answer.status_code, answer.headers["x-smf-backend"]) == (200, "cloud")
                assert cloud.completions() == 2
