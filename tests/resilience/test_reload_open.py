"""A reload that removes the last router key from a router listening off loopback says NO
AUTH, as `serve` says at start: it said nothing, and the router was open to anyone who
reached it, the cloud keys behind it (found in review)."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
import yaml

from router import open_listener, reload
from router.config import hash_key, parse
from tests.harness import config_for, router, simulator

ADMIN = {"name": "ops", "sha256": hash_key("sk-admin"), "admin": True}


@pytest.mark.parametrize(
    ("host", "keys_after", "warned"),
    [("0.0.0.0", [], True), ("127.0.0.1", [], False), ("0.0.0.0", [ADMIN], False)],
    ids=["open-off-loopback", "open-on-loopback", "keys-kept"],
)
def test_a_reload_leaving_no_keys_off_loopback_warns(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    host: str,
    keys_after: list[dict[str, object]],
    warned: bool,
) -> None:
    monkeypatch.setattr(open_listener, "_HOSTS", set())  # no other test's `serve` address
    with simulator(profile="vllm", model="local-model") as local:
        data = config_for({"local": local}, tmp_path).model_dump(mode="json")
        config = parse({**data, "auth": {"keys": [ADMIN]}})
        path = tmp_path / "router.yaml"
        path.write_text(yaml.safe_dump({**data, "auth": {"keys": keys_after}}))
        with router(config) as proxy, caplog.at_level(logging.WARNING):
            open_listener.warn_if_open(config, host, behind_proxy=False)  # as `serve`: quiet
            assert not [r for r in caplog.records if "NO AUTH" in r.getMessage()]
            reload.reloader_of(proxy.components).source = path
            admin = {"authorization": "Bearer sk-admin"}
            answer = httpx.post(f"{proxy.url}/router/reload", headers=admin, timeout=60)
            assert answer.status_code == 200, answer.text
    warnings = [r for r in caplog.records if "NO AUTH" in r.getMessage()]
    replied = [w for w in answer.json()["warnings"] if "NO AUTH" in w]  # the log's text
    if warned:
        (record,) = warnings
        assert record.levelno == logging.WARNING
        assert f"listening on {host} with no router keys" in record.getMessage()
        assert replied == [record.getMessage()]
    else:
        assert warnings == replied == []


@pytest.mark.parametrize("started_behind_proxy", [True, False], ids=["proxied", "direct"])
def test_a_reload_advises_allowed_hosts_as_serve_started_not_as_its_config_says(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    started_behind_proxy: bool,
) -> None:
    """Which Host is checked is how `serve` started (uvicorn's proxy headers: the proxy's
    public name behind one), and so is NO AUTH's advice on server.allowed_hosts: a reload
    that turns `proxy_headers` over changes neither (found in re-review)."""
    monkeypatch.setattr(open_listener, "_HOSTS", set())
    with simulator(profile="vllm", model="local-model") as local:
        data = config_for({"local": local}, tmp_path).model_dump(mode="json")

        def behind(proxy_headers: bool) -> dict[str, object]:
            return {**data["server"], "proxy_headers": proxy_headers}

        config = parse({**data, "auth": {"keys": [ADMIN]}, "server": behind(started_behind_proxy)})
        path = tmp_path / "router.yaml"
        flipped = {**data, "auth": {"keys": []}, "server": behind(not started_behind_proxy)}
        path.write_text(yaml.safe_dump(flipped))
        with router(config) as proxy, caplog.at_level(logging.WARNING):
            open_listener.warn_if_open(config, "0.0.0.0", started_behind_proxy)  # as `serve`
            reload.reloader_of(proxy.components).source = path
            admin = {"authorization": "Bearer sk-admin"}
            answer = httpx.post(f"{proxy.url}/router/reload", headers=admin, timeout=60)
            assert answer.status_code == 200, answer.text
    (said,) = [w for w in answer.json()["warnings"] if "NO AUTH" in w]
    assert "allowed_hosts" in said  # keyless, the Host is checked behind a proxy too
    assert ("service name" in said) is not started_behind_proxy, said
    assert ("name the proxy forwards" in said) is started_behind_proxy, said
