"""What a request carrying vLLM's own output constraint (`structured_outputs`) is told when
it cannot be served as sent, through the real app (a router over the vLLM and cloud
simulators, a local backend through litellm beside them; the official openai and anthropic
SDKs). Each found in review: a private request on `prose: [cloud, ollama]` was told its
route "has no local backend"; `model: ollama`, a local backend through litellm, was told
"a cloud backend refuses it"; `/v1/messages` dropped the field and answered unconstrained
even on `local`; `structured_outputs: false` reached vLLM, whose 500 became a 502."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from classifier import INTENTS
from router.config import parse
from tests.harness import Running, RunningRouter, router, sdk

MATH = [{"role": "user", "content": "Compute 17 * 23."}]
CHOICE = {"structured_outputs": {"choice": ["391", "392"]}}


@pytest.fixture(scope="module")
def proxy(
    backends: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """`ollama` is local, through litellm (at the vLLM simulator, never reached here)."""
    local, cloud = backends["local"], backends["cloud"]
    tmp: Path = tmp_path_factory.mktemp("words")
    config = parse(
        {
            "backends": [
                {"name": "local", "tier": "local", "base_url": local.url, "model": "local-model"},
                {
                    "name": "ollama",
                    "tier": "local",
                    "kind": "litellm",
                    "base_url": local.url,
                    "model": "openai/local-model",
                },
                {"name": "cloud", "tier": "cloud", "base_url": cloud.url, "model": "cloud-model"},
            ],
            "routes": {i: ["local", "cloud"] for i in INTENTS} | {"prose": ["cloud", "ollama"]},
            "ledger": {"path": str(tmp / "ledger"), "flush_interval_s": 0.2},
            "resilience": {"enabled": False},
        }
    )
    with router(config) as running:
        yield running


def calls(backends: dict[str, Running]) -> dict[str, int]:
    """Requests each backend saw, on every API path."""
    return {name: sum(server.stats()["by_path"].values()) for name, server in backends.items()}


def refused(proxy: RunningRouter, model: str, **extra: Any) -> openai.BadRequestError:
    with pytest.raises(openai.BadRequestError) as caught:
        sdk(proxy).chat.completions.create(model=model, messages=MATH, **extra)  # type: ignore[arg-type]
    return caught.value


def test_a_private_request_is_told_the_field_left_nothing_not_its_privacy(
    proxy: RunningRouter, backends: dict[str, Running]
) -> None:
    """`prose` has a local backend (ollama): privacy kept the cloud out, the field ollama."""
    before = calls(backends)
    error = refused(proxy, "prose", extra_body=CHOICE, extra_headers={"x-smf-private": "true"})
    assert "has no local backend" not in error.message
    assert "'prose' has no backend that honours structured_outputs" in error.message
    assert "(cloud: private, ollama: vllm_fields)" in error.message
    assert "litellm drops it" in error.message
    assert "a model with a local backend not called through litellm" in error.message
    assert error.param == "model" and calls(backends) == before


def test_a_local_backend_through_litellm_is_not_called_a_cloud(
    proxy: RunningRouter, backends: dict[str, Running]
) -> None:
    before = calls(backends)
    error = refused(proxy, "ollama", extra_body=CHOICE)
    assert "'ollama' has no backend that honours structured_outputs" in error.message
    assert "litellm drops it, and the local server answers unconstrained" in error.message
    assert "cloud" not in error.message
    assert calls(backends) == before


def test_the_messages_api_refuses_the_field_in_anthropics_shape(
    proxy: RunningRouter, backends: dict[str, Running]
) -> None:
    """Anthropic's API has no such field; the translation to chat dropped it, and `local`
    answered unconstrained. Now a 400 naming it, as Anthropic refuses an extra input."""
    client = anthropic.Anthropic(base_url=proxy.root, api_key="x", max_retries=0)
    before = calls(backends)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(
            model="local",
            max_tokens=8,
            messages=MATH,
            extra_body=CHOICE,  # type: ignore[arg-type]
        )
    body = caught.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"].startswith("structured_outputs: the Messages API has no")
    assert calls(backends) == before
    plain = client.messages.create(model="local", max_tokens=8, messages=MATH)  # type: ignore[arg-type]
    assert plain.content  # the same request without it is served


@pytest.mark.parametrize("value", [False, "json", ["391"]])
def test_a_field_that_is_no_object_is_the_routers_400_not_vllms_500(
    proxy: RunningRouter, backends: dict[str, Running], value: Any
) -> None:
    """vLLM 0.32 calls `.get` on the field before checking its type (its 500, the router's
    502); the router, which routes by the field, refuses it first."""
    before = calls(backends)
    error = refused(proxy, "local", extra_body={"structured_outputs": value})
    assert error.param == "structured_outputs"
    assert "Invalid type for 'structured_outputs': expected an object" in error.message
    assert calls(backends) == before
