"""The suite bypasses a proxy set in the environment for 127.0.0.1 (`tests/conftest.py`):
sent through a developer's proxy, 17 tests of three files failed. The loopback names are
added to those `NO_PROXY` and `no_proxy` held, never in their place."""

from __future__ import annotations

import os
import urllib.request

import pytest

from tests.conftest import LOOPBACK, bypass_proxies_for_loopback


def test_loopback_is_added_to_the_names_either_variable_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_PROXY", "corp.example, localhost")
    monkeypatch.setenv("no_proxy", "internal.example,corp.example")
    bypass_proxies_for_loopback()
    names = "corp.example,localhost,internal.example,127.0.0.1"
    assert os.environ["NO_PROXY"] == os.environ["no_proxy"] == names


def test_a_proxy_in_the_environment_is_bypassed_for_loopback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As httpx's `trust_env` clients read it (urllib's `getproxies_environment`)."""
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("ALL_PROXY", "http://proxy.example:3128")
    for variable in ("NO_PROXY", "no_proxy", "http_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    assert not urllib.request.proxy_bypass_environment("127.0.0.1")  # the premise
    bypass_proxies_for_loopback()
    for name in LOOPBACK:
        assert urllib.request.proxy_bypass_environment(name)
    assert not urllib.request.proxy_bypass_environment("example.com")
