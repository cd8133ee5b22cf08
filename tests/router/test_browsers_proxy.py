"""Behind a reverse proxy (`server.proxy_headers`) a keyless router still answers no rebound
name.

The Host check was skipped behind a proxy, and nothing said so: a keyless router on
127.0.0.1 with `proxy_headers: true` served a page rebound to it (`Host:
rebind.evil.example`) its cloud backend and its reload (found in review). Forwarding headers
tell nothing apart: a rebound page is same-origin with itself, so its script may send
`X-Forwarded-For` and `-Host` with no preflight. The proxy's public name is listed in
`server.allowed_hosts`; with keys the Host is not checked (a rebound page has none).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from classifier.intent import INTENTS
from router.app import create_app
from router.config import hash_key
from tests.harness import Running, RunningRouter, config_for, router, simulator
from tests.processes import router_process

BODY = b'{"model": "local", "messages": [{"role": "user", "content": "hi"}]}'
PUBLIC = "router.team.example"  # the name the proxy forwards as Host
FORWARDED = {"x-forwarded-for": "203.0.113.7", "x-forwarded-proto": "https"}


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    """A keyless router on 127.0.0.1 behind a proxy, as uvicorn runs it for `serve`."""
    with simulator(profile="vllm", model="local-model") as local:
        tmp = tmp_path_factory.mktemp("proxied")
        server = {"proxy_headers": True, "allowed_hosts": [PUBLIC]}
        with router(config_for({"local": local}, tmp, server=server)) as proxy:
            yield local, proxy


def sent(proxy: RunningRouter, method: str, path: str, headers: dict[str, str]) -> httpx.Response:
    with httpx.Client(trust_env=False, timeout=30) as client:
        return client.request(method, proxy.root + path, content=BODY, headers=headers)


def test_a_rebound_page_is_refused_behind_a_proxy_whatever_it_forwards(
    proxied: tuple[Running, RunningRouter],
) -> None:
    local, proxy = proxied
    rebound = f"rebind.evil.example:{proxy.root.rpartition(':')[2]}"
    page = {"content-type": "text/plain", "host": rebound, "origin": f"http://{rebound}"}
    forged = {**page, **FORWARDED, "x-forwarded-host": rebound}  # its script may add these
    before = local.completions()
    answers = [
        sent(proxy, "POST", "/v1/chat/completions", page),
        sent(proxy, "POST", "/v1/chat/completions", forged),
        sent(proxy, "POST", "/v1/router/reload", forged),
        sent(proxy, "GET", "/v1/router/report", forged),
        sent(proxy, "GET", "/metrics", page),  # on loopback every path is checked
    ]
    assert [a.status_code for a in answers] == [403] * 5
    message = answers[1].json()["error"]["message"]
    assert "server.proxy_headers" in message and "server.allowed_hosts" in message
    assert local.completions() == before


def test_what_a_proxy_forwards_is_answered(proxied: tuple[Running, RunningRouter]) -> None:
    """Its public name once listed; nginx's default Host, the upstream's own address."""
    local, proxy = proxied
    before = local.completions()
    own = proxy.root.removeprefix("http://")
    via = {"content-type": "application/json", **FORWARDED}
    listed = sent(proxy, "POST", "/v1/chat/completions", {**via, "host": f"{PUBLIC}:443"})
    upstream = sent(proxy, "POST", "/v1/chat/completions", {**via, "host": own})
    assert [listed.status_code, upstream.status_code] == [200, 200]
    assert local.completions() == before + 2


async def test_with_keys_a_router_behind_a_proxy_answers_its_public_name(
    proxied: tuple[Running, RunningRouter], tmp_path: Path
) -> None:
    """A rebound page cannot present a key: with keys the proxy's name need not be listed."""
    local, _ = proxied
    keys = {"keys": [{"name": "alice", "sha256": hash_key("sk-alice")}]}
    config = config_for({"local": local}, tmp_path, auth=keys, server={"proxy_headers": True})
    app = create_app(config)
    asked = {"authorization": "Bearer sk-alice", "host": "router.elsewhere.example", **FORWARDED}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:4000") as c:
            answer = await c.post("/v1/chat/completions", content=BODY, headers=asked)
    assert answer.status_code == 200, answer.text


KEY = {"name": "ops", "sha256": hashlib.sha256(b"sk-test").hexdigest(), "admin": True}


@pytest.mark.parametrize(("keys", "warned"), [([], True), ([KEY], False)], ids=["open", "keys"])
def test_a_keyless_router_behind_a_proxy_on_loopback_warns_at_start(
    tmp_path: Path, keys: list[dict[str, Any]], warned: bool
) -> None:
    """On loopback NO AUTH said nothing, though the proxy makes the router reachable."""
    config = {
        "backends": [
            {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
        ],
        "routes": {intent: ["local"] for intent in INTENTS},
        "ledger": {"path": str(tmp_path / "ledger")},
        "auth": {"keys": keys},
        "server": {"proxy_headers": True},
    }
    with router_process(config, tmp_path) as (proxy, _):
        log = tmp_path / f"router-{proxy.root.rsplit(':', 1)[1]}.log"
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    warnings = [line for line in lines if "NO AUTH" in line["msg"]]
    if not warned:
        assert warnings == []
        return
    (line,) = warnings
    assert line["level"] == "warning"
    assert "behind a proxy (server.proxy_headers)" in line["msg"]
    assert "name the proxy forwards as Host in server.allowed_hosts" in line["msg"]
