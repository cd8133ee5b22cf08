"""A backend's `extra_body` holds defaults: the client's own value wins, on either kind.

A litellm backend dropped every client field outside OpenAI's chat request, then filled in
its `extra_body`: a client's `chat_template_kwargs: {enable_thinking: true}` or `top_k` was
replaced by the backend's, where a `kind: openai` backend on the same server forwarded the
client's (found in review). A field the backend's `extra_body` names now passes on both,
merged the same way, but for litellm's own arguments, which stay the backend's. Real
sockets: the router, litellm speaking OpenAI's chat to a vLLM simulator that shows the body
it received, the official SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from router.config import parse
from tests.harness import (
    INTENTS,
    Running,
    RunningRouter,
    openai_via_litellm,
    router,
    sdk,
    simulator,
)

HELLO: list[Any] = [{"role": "user", "content": "Say hello."}]
DEFAULTS = {"chat_template_kwargs": {"enable_thinking": False, "thinking_budget": 64}, "top_k": 20}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    """`local` (`kind: openai`) and `lite` (`kind: litellm`, `openai/…`) with the same
    defaults on one vLLM simulator; `pinned`, a litellm backend whose `extra_body` names
    litellm's own arguments: its provider, and a Bedrock `model_id`."""
    with simulator(profile="vllm", model="engine-model") as engine:
        lite = {**openai_via_litellm("lite", engine.url, "engine-model"), "extra_body": DEFAULTS}
        pinned = {
            **openai_via_litellm("pinned", engine.url, "engine-model"),
            "model": "engine-model",  # no prefix: the provider is the configured one
            "extra_body": {"custom_llm_provider": "openai", "model_id": "operators-arn"},
        }
        config = parse(
            {
                "backends": [
                    {
                        "name": "local",
                        "tier": "local",
                        "base_url": engine.url,
                        "model": "engine-model",
                        "extra_body": DEFAULTS,
                    },
                    lite,
                    pinned,
                ],
                "routes": {i: ["local"] for i in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("extra_body") / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            yield engine, proxy


def _sent(engine: Running, proxy: RunningRouter, model: str, extra: dict[str, Any]) -> Any:
    sdk(proxy).chat.completions.create(model=model, messages=HELLO, extra_body=extra)
    return engine.stats()["last_request"]


@pytest.mark.parametrize("model", ["local", "lite"])
def test_the_clients_own_value_wins_over_the_backends_extra_body(
    stack: tuple[Running, RunningRouter], model: str
) -> None:
    """README: the client's own values win. On `lite` the upstream got the backend's
    `enable_thinking: false` and `top_k: 20` whatever the client sent. A dict is merged key
    by key on both kinds: the backend's `thinking_budget` stays beside the client's key."""
    engine, proxy = stack
    sent = _sent(engine, proxy, model, {})
    assert (sent["chat_template_kwargs"], sent["top_k"]) == (DEFAULTS["chat_template_kwargs"], 20)
    own = {"chat_template_kwargs": {"enable_thinking": True}, "top_k": 1}
    sent = _sent(engine, proxy, model, own)
    assert sent["chat_template_kwargs"] == {"enable_thinking": True, "thinking_budget": 64}
    assert sent["top_k"] == 1


def test_litellms_own_arguments_stay_the_backends(stack: tuple[Running, RunningRouter]) -> None:
    """Named in `extra_body`, litellm's arguments still steer litellm: a client's provider
    would send the backend's key to another API, a client's `model_id` another model on the
    backend's account. They are dropped, so the backend's reach the upstream."""
    engine, proxy = stack
    steering = {"custom_llm_provider": "anthropic", "model_id": "clients-arn"}
    sent = _sent(engine, proxy, "pinned", steering)
    assert sent["model_id"] == "operators-arn"
    assert sent["messages"][-1]["content"] == "Say hello."
