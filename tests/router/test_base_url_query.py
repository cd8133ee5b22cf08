"""A base URL's query string is sent on every request the router makes to that backend
(`kind: openai`; litellm cannot, so with `kind: litellm` it is a config error).

Azure OpenAI needs `?api-version=...` on each call, and some gateways take their key as a
query parameter. The connection pool kept only the path of `base_url`: completions went out
without the query, and the probes and `/models` reads put `/models` after it
(`...?api-version=x/models`). Checked against the simulator, which counts what it was sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
import yaml

from classifier import INTENTS
from evals.endpoint import Endpoint, ask, served_context_window
from evals.urls import joined
from router.capacity import metrics_url, read_context_window
from router.config import ConfigError, load, parse
from router.probe import probe
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


def test_a_litellm_backend_with_a_query_in_base_url_is_a_config_error(tmp_path: Path) -> None:
    """litellm hands the URL to the OpenAI SDK, which put the path after the query
    (`/v1?api-version=xchat/completions`): every request failed (found in review)."""
    path = tmp_path / "router.yaml"
    litellm = {"name": "cloud", "tier": "cloud", "kind": "litellm", "model": "openai/m"}
    litellm["base_url"] = f"http://127.0.0.1:9/v1?{QUERY}"
    local = {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    path.write_text(yaml.safe_dump({"backends": [litellm, local]}))
    with pytest.raises(ConfigError, match=r"backends\.0\.base_url \(line \d+\): a `kind: litellm`"):
        load(path, env={})
    litellm["base_url"] = "http://127.0.0.1:9/v1"  # without the query: fine
    path.write_text(yaml.safe_dump({"backends": [litellm, local]}))
    assert load(path, env={}).backend("cloud").kind == "litellm"


def test_azure_through_litellm_takes_its_api_version_from_extra_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the error above points to: litellm's own `api_version` sends the query."""
    monkeypatch.setenv("AZURE_KEY_FOR_TEST", "sk-azure")
    with simulator(profile="vllm", model="local-model") as local:
        azure = {
            "name": "azure",
            "tier": "cloud",
            "kind": "litellm",
            "model": "azure/dep",
            "api_key_env": "AZURE_KEY_FOR_TEST",
            "base_url": local.root,
            "extra_body": {"api_version": "2024-10-21"},
        }
        plain = {"name": "local", "tier": "local", "base_url": local.url, "model": "local-model"}
        config = parse(
            {
                "backends": [azure, plain],
                "routes": {intent: ["azure", "local"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path / "ledger")},
            }
        )
        with router(config) as proxy:
            sdk = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
            sdk.chat.completions.create(model="auto", messages=MESSAGES)  # 404: local answers
        seen = local.stats()["by_query"]
        assert seen.get(f"/openai/deployments/dep/chat/completions?{QUERY}") == 1, local.stats()
