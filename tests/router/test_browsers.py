"""A web page the user has open cannot drive the router on their desk.

Without a check, a cross-site page POSTs a `text/plain` body (no CORS preflight) that the
router reads as JSON, and with no keys configured (the loopback default) it is served:
cloud credit spent, config reloaded. A page whose name was rebound to 127.0.0.1 sends its
own name as Host. API clients send neither; the official SDK still gets its answers.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import yaml

from router import reload
from router.app import create_app
from router.config import Config, ConfigError, hash_key, parse
from tests.harness import Running, RunningRouter, config_for, router, simulator
from tests.router.config_files import GOOD
from tests.router.env_config_check import config_check

BODY = b'{"model": "local", "messages": [{"role": "user", "content": "hi"}]}'
EVIL = "https://evil.example"
REBOUND = "rebind.attacker.example:4000"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    with simulator(profile="vllm", model="local-model") as local:
        tmp = tmp_path_factory.mktemp("browsers")
        config = config_for(
            {"local": local}, tmp, server={"allowed_origins": ["https://chat.team.example"]}
        )
        with router(config) as proxy:
            yield local, proxy


def post(
    proxy: RunningRouter, path: str = "/v1/chat/completions", **headers: str
) -> httpx.Response:
    with httpx.Client(trust_env=False) as client:
        return client.post(
            proxy.root + path, content=BODY, headers={"content-type": "text/plain", **headers}
        )


def test_a_cross_site_page_is_refused_before_any_backend_is_asked(
    served: tuple[Running, RunningRouter],
) -> None:
    local, proxy = served
    before = local.completions()
    refused = post(proxy, origin=EVIL, **{"sec-fetch-site": "cross-site"})
    assert refused.status_code == 403
    assert "allowed_origins" in refused.json()["error"]["message"]
    assert post(proxy, "/v1/router/reload", origin=EVIL).status_code == 403
    messages = post(proxy, "/v1/messages", origin="null")
    assert messages.status_code == 403 and messages.json()["type"] == "error"  # Anthropic's shape
    assert local.completions() == before


def test_a_rebound_name_on_loopback_is_refused(served: tuple[Running, RunningRouter]) -> None:
    local, proxy = served
    before = local.completions()
    assert post(proxy, host="evil.example:4000").status_code == 403
    assert local.completions() == before
    # an IP literal cannot be a rebound name; nor can this machine's own name
    for host in ("127.0.1.1:4000", "0.0.0.0:4000", f"{socket.gethostname()}:4000"):
        assert post(proxy, host=host).status_code == 200, host


def test_api_clients_own_origin_and_listed_origins_are_served(
    served: tuple[Running, RunningRouter],
) -> None:
    _, proxy = served
    sdk = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
    reply = sdk.chat.completions.create(model="local", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content
    own = proxy.root.removeprefix("http://")
    assert post(proxy, origin=proxy.root, host=own).status_code == 200
    assert post(proxy, origin="https://chat.team.example").status_code == 200
    assert post(proxy, host=f"localhost:{own.rpartition(':')[2]}").status_code == 200


def test_allowed_origins_must_be_origins(served: tuple[Running, RunningRouter]) -> None:
    data = served[1].components.config.model_dump(mode="json")
    for bad in ("chat.team.example/app", "null", "https://chat.team.example/app"):
        with pytest.raises(ConfigError, match="allowed_origins"):
            parse({**data, "server": {"allowed_origins": [bad]}})
    extension = {"allowed_origins": ["chrome-extension://abcdef/", "APP://obsidian.md"]}
    server = parse({**data, "server": extension}).server
    assert server.allowed_origins == ["chrome-extension://abcdef", "app://obsidian.md"]


def test_a_reload_changes_the_origins_at_once_and_the_proxy_switch_not_at_all(
    served: tuple[Running, RunningRouter], tmp_path: Path
) -> None:
    """The origins are read per request; whether a proxy names the host is how uvicorn
    started (its proxy-header middleware), so the Host check follows that, not the file."""
    _, proxy = served
    data = proxy.components.config.model_dump(mode="json")
    path = tmp_path / "router.yaml"
    reload.reloader_of(proxy.components).source = path

    def reloaded(server: dict[str, Any]) -> dict[str, Any]:
        path.write_text(yaml.safe_dump({**data, "server": {**data["server"], **server}}))
        answer = httpx.post(f"{proxy.url}/router/reload", trust_env=False)
        assert answer.status_code == 200, answer.text
        return answer.json()

    try:
        assert "server" not in reloaded({"allowed_origins": [EVIL]})["restart_needed"]
        assert post(proxy, origin=EVIL).status_code == 200
        assert post(proxy, host=REBOUND).status_code == 403
        hosts = {"allowed_origins": [EVIL], "allowed_hosts": ["rebind.attacker.example"]}
        assert "server" not in reloaded(hosts)["restart_needed"]
        assert post(proxy, host=REBOUND).status_code == 200
        assert reloaded({"allowed_origins": [EVIL], "proxy_headers": True})["restart_needed"] == [
            "server"
        ]
        assert post(proxy, host="evil.example:4000").status_code == 403
    finally:
        reloaded({})


def test_a_repeated_origin_is_read_as_every_endpoint_reads_headers(
    served: tuple[Running, RunningRouter],
) -> None:
    """Read apart from `request_headers`, the last of two `Origin` headers won: a page's
    request carrying a second, forged own-origin header was served."""
    local, proxy = served
    before = local.completions()
    with httpx.Client(trust_env=False) as client:
        answer = client.post(
            proxy.root + "/v1/chat/completions",
            content=BODY,
            headers=[("content-type", "text/plain"), ("origin", EVIL), ("origin", proxy.root)],
        )
    assert answer.status_code == 403
    assert local.completions() == before


async def answers_in_a_container(
    config: Config, asks: list[dict[str, str]]
) -> list[httpx.Response]:
    """The app as uvicorn runs it in the compose container: the connection accepted on the
    container's own address (not loopback), from the Docker bridge that publishes
    127.0.0.1:4000."""
    app = create_app(config)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("172.18.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://172.18.0.2:4000") as c:
            return [
                await c.post("/v1/chat/completions", content=BODY, headers=headers)
                for headers in asks
            ]


async def test_a_keyless_router_off_loopback_answers_no_rebound_name(
    served: tuple[Running, RunningRouter], tmp_path: Path
) -> None:
    """The Host check applied on loopback only, so in the shipped compose deployment (no
    keys: every caller admin) a page rebound to 127.0.0.1 was served, same-origin with
    itself (found in review)."""
    local, _ = served
    config = config_for({"local": local}, tmp_path, server={"allowed_hosts": ["router.lan"]})
    before = local.completions()
    plain = {"content-type": "text/plain"}
    refused, by_ip, listed, own = await answers_in_a_container(
        config,
        [
            {**plain, "host": REBOUND, "origin": f"http://{REBOUND}"},
            {**plain, "host": "192.168.1.10:4000"},
            {**plain, "host": "Router.LAN.:4000"},
            {**plain, "host": "localhost:4000"},
        ],
    )
    assert refused.status_code == 403
    message = refused.json()["error"]["message"]
    assert "server.allowed_hosts" in message and "auth.keys" in message
    assert local.completions() == before + 3
    assert [by_ip.status_code, listed.status_code, own.status_code] == [200, 200, 200]


async def test_a_keyless_router_off_loopback_answers_probes_to_any_host(
    served: tuple[Running, RunningRouter], tmp_path: Path
) -> None:
    """Prometheus scrapes a compose or Kubernetes router by its service name: a keyless
    config from before the Host check (no allowed_hosts) lost its metrics to a 403 after an
    upgrade (found in review). The read-only probes answer any Host; the APIs do not."""
    local, _ = served
    config = config_for({"local": local}, tmp_path)
    app = create_app(config)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("172.18.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://172.18.0.2:4000") as c:
            named = {"host": "router:4000"}
            probes = [(await c.get(p, headers=named)).status_code for p in ("/metrics", "/healthz")]
            models = await c.get("/v1/models", headers=named)
            posted = await c.post("/metrics", headers=named)
    assert probes == [200, 200]
    assert models.status_code == 403 and posted.status_code in (403, 405)


async def test_with_keys_a_router_off_loopback_answers_any_host(
    served: tuple[Running, RunningRouter], tmp_path: Path
) -> None:
    """A rebound page cannot present a key, so with keys the Host is not checked there."""
    local, _ = served
    keys = {"keys": [{"name": "alice", "sha256": hash_key("sk-alice")}]}
    config = config_for({"local": local}, tmp_path, auth=keys)
    key = {"authorization": "Bearer sk-alice", "content-type": "text/plain"}
    (answer,) = await answers_in_a_container(config, [{**key, "host": REBOUND}])
    assert answer.status_code == 200


async def test_a_listed_name_in_another_script_answers_the_punycode_browsers_send(
    served: tuple[Running, RunningRouter], tmp_path: Path
) -> None:
    """`bücher.lan` was refused as "not a host name", and a browser sends it as
    `xn--bcher-kva.lan` (found in review): the entry is kept in that form."""
    local, _ = served
    config = config_for({"local": local}, tmp_path, server={"allowed_hosts": ["Bücher.lan"]})
    assert config.server.allowed_hosts == ["xn--bcher-kva.lan"]
    plain = {"content-type": "text/plain"}
    answers = await answers_in_a_container(
        config,
        [
            {**plain, "host": "xn--bcher-kva.lan:4000"},
            {**plain, "host": "XN--BCHER-KVA.LAN"},
            {**plain, "host": "xn--bcher-kva.example:4000"},  # not listed
        ],
    )
    assert [a.status_code for a in answers] == [200, 200, 403]


def test_allowed_hosts_must_be_host_names(served: tuple[Running, RunningRouter]) -> None:
    data = served[1].components.config.model_dump(mode="json")
    for bad in ("http://router.lan", "router.lan:4000", "*.lan", "router.lan/v1", "", "ü..lan"):
        with pytest.raises(ConfigError, match=r"server\.allowed_hosts: .*not a host name") as e:
            parse({**data, "server": {"allowed_hosts": [bad]}})
        assert "punycode form xn--" in str(e.value)
    server = parse({**data, "server": {"allowed_hosts": ["Router.LAN.", "smf_router"]}}).server
    assert server.allowed_hosts == ["router.lan", "smf_router"]


ORIGINS = GOOD + "server:\n  allowed_origins:\n    - https://chat.team.example\n    - '{bad}'\n"


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("https://*.team.example", "holds a *, but entries are compared whole, never as patterns"),
        ("*", "holds a *, but entries are compared whole"),
        ("https://u:pw-SECRET@x.com", "holds a user or password, which no browser sends"),
        ("https://x.com:99999", "has a port that is not a number from 1 to 65535"),
        ("https://x.com:", "has a port that is not a number from 1 to 65535"),
        ("https://x.com/app", "is not an origin like https://chat.example:8443"),
        ("https://a b.example", "has no host a browser could send"),
    ],
)
def test_an_origin_no_browser_sends_is_refused_naming_its_entry(
    tmp_path: Path, bad: str, why: str
) -> None:
    """An entry is compared whole with the `Origin` header: `https://*.team.example`, a
    user and password or port 99999 passed `config check`, and a page from
    `https://chat.team.example` was still refused (found in review), as `allowed_hosts`
    already refuses what can never match."""
    done = config_check(tmp_path, ORIGINS.replace("{bad}", bad), {})
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert f"server.allowed_origins (line 17): entry 1 (counting from 0) {why}" in output
    assert "SECRET" not in output and "Traceback" not in output


async def test_a_listed_origin_matches_as_browsers_send_it(
    served: tuple[Running, RunningRouter], tmp_path: Path
) -> None:
    """Browsers leave out the scheme's default port and send a name in another script in
    its punycode form: `https://chat.team.example:443` and `https://bücher.example` were
    kept as written and never matched (found in review)."""
    local, _ = served
    listed = ["HTTPS://Chat.Team.Example:443/", "https://Bücher.example", "http://[::1]:3000"]
    config = config_for({"local": local}, tmp_path, server={"allowed_origins": listed})
    assert config.server.allowed_origins == [
        "https://chat.team.example",
        "https://xn--bcher-kva.example",
        "http://[::1]:3000",
    ]
    plain = {"content-type": "text/plain", "host": "127.0.0.1:4000"}
    sent = ["https://chat.team.example", "https://xn--bcher-kva.example", "http://[::1]:3000"]
    answers = await answers_in_a_container(config, [{**plain, "origin": o} for o in sent])
    assert [a.status_code for a in answers] == [200, 200, 200]


HOSTS = GOOD + "server:\n  allowed_hosts:\n    - router.lan\n    - '{bad}'\n"


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("http://u:pw-SECRET@x.lan", "has a scheme (such as http://)"),
        ("u:pw-SECRET@x.lan", "holds a user or password"),
        ("*.SECRET.lan", "holds a *, but entries are compared whole, never as patterns"),
        ("x.lan/SECRET", "has a path"),
        ("SECRET.lan:4000", "has a port (or is an IPv6 address, which needs no listing)"),
        ("SECRET..lan", "has a character or a label a host name cannot have"),
        ("  ", "is empty"),
    ],
)
def test_a_host_that_is_no_host_name_is_refused_naming_its_entry_not_quoting_it(
    tmp_path: Path, bad: str, why: str
) -> None:
    """`http://u:pw@x` was quoted whole by the error, and so printed by `config check`, the
    log of a refused reload and its 400 answer (found in review): named by its index, as
    an `allowed_origins` entry is."""
    done = config_check(tmp_path, HOSTS.replace("{bad}", bad), {})
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    said = f"server.allowed_hosts (line 17): entry 1 (counting from 0) {why}, so it is not a host"
    assert said in output and "punycode form xn--" in output
    assert "secret" not in output.lower() and "Traceback" not in output
