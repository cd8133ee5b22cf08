"""Fixtures of the router tests that talk to one router over two simulators (local, cloud)
through the official SDK: test_proxy_sdk.py, test_routing_headers.py,
test_failed_plan_named.py and others. A module that defines a fixture of the same name uses
its own: `cloud_model` alone to put the cloud simulator on another model (OpenAI's
completions model, for one), `backends` or `proxy` for anything else."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from tests.harness import Running, RunningRouter, config_for, router, simulator


@pytest.fixture(scope="module")
def cloud_model() -> str:
    """The model the cloud simulator serves and the cloud backend names."""
    return "cloud-model"


@pytest.fixture(scope="module")
def backends(cloud_model: str) -> Iterator[dict[str, Running]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model=cloud_model) as cloud,
    ):
        yield {"local": local, "cloud": cloud}


@pytest.fixture(scope="module")
def proxy(
    backends: dict[str, Running], cloud_model: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    models = {"cloud": cloud_model}
    with router(config_for(backends, tmp_path_factory.mktemp("proxy"), models=models)) as running:
        yield running


@pytest.fixture
def client(proxy: RunningRouter) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
