"""Fixtures of the router tests that talk to one router over two simulators (local, cloud)
through the official SDK: test_proxy_sdk.py, test_routing_headers.py,
test_failed_plan_named.py and others. A module that defines a fixture of the same name uses
its own."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from tests.harness import Running, RunningRouter, config_for, router, simulator


@pytest.fixture(scope="module")
def backends() -> Iterator[dict[str, Running]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        yield {"local": local, "cloud": cloud}


@pytest.fixture(scope="module")
def proxy(
    backends: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    with router(config_for(backends, tmp_path_factory.mktemp("proxy"))) as running:
        yield running


@pytest.fixture
def client(proxy: RunningRouter) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
