"""A base URL's query string is sent on every request the router makes to that backend.

Azure OpenAI needs `?api-version=...` on each call, and some gateways take their key as a
query parameter. The connection pool kept only the path of `base_url`: completions went out
without the query, and the probes and `/models` reads put `/models` after it
(`...?api-version=x/models`). Checked against the simulator, which counts what it was sent.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest

from evals.runner import Endpoint, ask, served_context_window
from evals.urls import joined
from router.capacity import metrics_url, read_context_window
from router.health import probe
from tests.harness import Running, RunningRouter, config_for, router, simulator

QUERY = "api-version=2024-10-21"
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    with simulator(profile="vllm", model="local-model") as local:
        queried = Running(f"{local.url}?{QUERY}", local.root)
        config = config_for({"local": queried}, tmp_path_factory.mktemp("query"))
        with router(config) as proxy:
            yield local, proxy


def test_completions_carry_the_base_urls_query(served: tuple[Running, RunningRouter]) -> None:
    local, proxy = served
    sdk = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
    sdk.chat.completions.create(model="local", messages=MESSAGES)
    with sdk.chat.completions.create(model="local", messages=MESSAGES, stream=True) as stream:
        assert [chunk for chunk in stream]
    sdk.completions.create(model="local", prompt="hi")
    seen = local.stats()["by_query"]
    assert seen[f"/v1/chat/completions?{QUERY}"] == 2
    assert seen[f"/v1/completions?{QUERY}"] == 1


async def test_probes_and_model_reads_carry_it_after_their_path(
    served: tuple[Running, RunningRouter],
) -> None:
    local, proxy = served
    settings = proxy.components.config.backend("local")
    assert metrics_url(settings) == f"{local.root}/metrics?{QUERY}"
    async with httpx.AsyncClient() as client:
        assert await probe(client, settings, use_health=True, timeout_s=5) == (True, True)
        assert await probe(client, settings, use_health=False, timeout_s=5) == (True, False)
        assert await read_context_window(client, settings, timeout_s=5) is not None
    seen = local.stats()["by_query"]
    assert seen[f"/health?{QUERY}"] == 1 and seen[f"/v1/models?{QUERY}"] == 2


async def test_eval_runs_carry_it_too(served: tuple[Running, RunningRouter]) -> None:
    """`eval run --endpoint` and the canary ask through the evals runner."""
    local, _ = served
    endpoint = Endpoint(f"{local.url}?{QUERY}", "local-model")
    async with httpx.AsyncClient() as client:
        reply = await ask(client, endpoint, {"model": "local-model", "messages": MESSAGES})
    assert reply["choices"]
    assert served_context_window(endpoint) is not None
    seen = local.stats()["by_query"]
    assert seen[f"/v1/chat/completions?{QUERY}"] >= 1 and seen[f"/v1/models?{QUERY}"] >= 1


def test_a_path_is_put_before_the_query() -> None:
    assert joined("https://x.example/openai/v1/?a=1", "/models") == (
        "https://x.example/openai/v1/models?a=1"
    )
    assert joined("http://h/v1?a=1", "/count?b=2") == "http://h/v1/count?a=1&b=2"
    assert joined("http://h/v1", "/models") == "http://h/v1/models"
