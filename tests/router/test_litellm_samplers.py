"""Claude's one sampler through a litellm backend (`router.backends.claude_samplers`):
Claude Sonnet 4.5 on answers `temperature` with `top_p` with a 400, older Claude models
take both. What the `anthropic`-profile simulator (which refuses both) receives is read
from its stats."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from router.backends.claude_samplers import keep_one_sampler, one_sampler_only
from router.config import parse
from tests.harness import INTENTS, Running, RunningRouter, litellm_backend, router, sdk, simulator

ASK = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("model", "refuses_both"),
    [
        ("claude-sonnet-4-5-20250929", True),
        ("anthropic.claude-opus-4-1-20250805-v1:0", True),  # Bedrock
        ("claude-haiku-4-5@20251001", True),  # Vertex
        ("us.anthropic.claude-sonnet-4-6", True),
        ("claude-opus-4-20250514", False),  # Opus 4.0: the date is no minor version
        ("claude-sonnet-4-20250514", False),
        ("claude-3-5-sonnet-20240620", False),
        ("claude-3-7-sonnet-latest", False),
        ("claude-distill-qwen:7b", False),  # a name holding "claude" is no Claude model
        ("gpt-4o", False),
    ],
)
def test_the_claude_models_that_refuse_both_samplers_are_known_by_name(
    model: str, refuses_both: bool
) -> None:
    assert one_sampler_only(model) is refuses_both


ARN = "arn:aws:bedrock:us-east-1:123456789012"


@pytest.mark.parametrize(
    ("model", "refuses_both"),
    [  # as a backend's `model` is written for litellm: Bedrock, Vertex, then others
        (f"bedrock/{ARN}:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0", True),
        ("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", True),
        ("bedrock/converse/us.anthropic.claude-opus-4-1-20250805-v1:0", True),
        ("bedrock/invoke/eu.anthropic.claude-sonnet-4-5-20250929-v1:0", True),
        ("bedrock/global.anthropic.claude-haiku-4-5-20251001-v1:0", True),
        (
            "bedrock/arn:aws:bedrock:us-east-1::foundation-model/"
            "anthropic.claude-opus-4-1-20250805-v1:0",
            True,
        ),
        ("bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0", False),  # Sonnet 4.0
        ("bedrock/converse/us.anthropic.claude-opus-4-20250514-v1:0", False),  # Opus 4.0
        ("bedrock/us.anthropic.claude-3-5-sonnet-20241022-v2:0", False),
        ("bedrock/meta.llama3-70b-instruct-v1:0", False),
        ("bedrock/amazon.nova-pro-v1:0", False),
        # an application inference profile's ARN names no model: both go as sent
        (f"bedrock/converse/{ARN}:application-inference-profile/a1b2c3d4e5f6", False),
        ("vertex_ai/claude-sonnet-4-5@20250929", True),
        ("vertex_ai/claude-opus-4-1@20250805", True),
        ("vertex_ai/claude-sonnet-4@20250514", False),
        ("vertex_ai/claude-3-5-sonnet-v2@20241022", False),
        ("openrouter/anthropic/claude-sonnet-4.5", True),
        ("openrouter/anthropic/claude-3.7-sonnet", False),
        ("azure_ai/claude-opus-4-1", True),
        ("databricks/databricks-claude-sonnet-4-5", True),
        ("databricks/databricks-claude-3-7-sonnet", False),
        # a name that only holds a Claude model's (found in review: it lost its top_p)
        ("ollama/hf.co/someorg/Qwen3-8B-Claude-Sonnet-4.5-Distill-GGUF", False),
        ("hosted_vllm/my-claude-sonnet-4-5-distill", False),
        # one that begins with it is taken for Claude (the module's docstring says why)
        ("hosted_vllm/claude-opus-4-1-style-llama", True),
    ],
)
def test_bedrock_vertex_and_other_providers_ids_of_those_models_are_known_too(
    model: str, refuses_both: bool
) -> None:
    assert one_sampler_only(model) is refuses_both


@pytest.mark.parametrize(
    ("merged", "sent", "kept"),
    [
        ({"temperature": 0.2, "top_p": 0.9}, {"temperature": 0.2, "top_p": 0.9}, "temperature"),
        ({"temperature": 0.7, "top_p": 0.1}, {"top_p": 0.1}, "top_p"),  # 0.7 configured
        ({"temperature": 0.2, "top_p": 0.9}, {"temperature": 0.2}, "temperature"),
        ({"temperature": 0.7, "top_p": 0.9}, {}, "temperature"),  # both configured
    ],
)
def test_the_sampler_a_client_sent_alone_is_the_one_kept(
    merged: dict[str, Any], sent: dict[str, Any], kept: str
) -> None:
    body = {"messages": ASK, **merged}
    keep_one_sampler(body, sent)
    assert body == {"messages": ASK, kept: merged[kept]}


@pytest.fixture(scope="module")
def claude(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    """`new` (Claude Sonnet 4.5, a configured default temperature) and `old` (Claude 3.5
    Sonnet) on one simulator."""
    with simulator(profile="anthropic", model="claude-sonnet-4-5") as server:
        new = litellm_backend("new", "anthropic/claude-sonnet-4-5", server.root)
        old = litellm_backend("old", "anthropic/claude-3-5-sonnet-20240620", server.root)
        config = parse(
            {
                "backends": [{**new, "extra_body": {"temperature": 0.7}}, old],
                "routes": {intent: ["new"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("samplers") / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            yield server, proxy


def sent_upstream(server: Running) -> dict[str, Any]:
    last = server.stats()["last_request"]
    return {k: last[k] for k in ("temperature", "top_p") if k in last}


def test_a_client_s_top_p_alone_is_not_replaced_by_a_configured_temperature(
    claude: tuple[Running, RunningRouter],
) -> None:
    server, proxy = claude
    raw = sdk(proxy).chat.completions.with_raw_response.create(
        model="new", messages=ASK, top_p=0.1, max_tokens=5
    )
    assert raw.http_response.status_code == 200
    assert sent_upstream(server) == {"top_p": 0.1}


def test_both_from_a_client_reach_claude_4_5_as_the_temperature_alone(
    claude: tuple[Running, RunningRouter],
) -> None:
    server, proxy = claude
    raw = sdk(proxy).chat.completions.with_raw_response.create(
        model="new", messages=ASK, temperature=0.2, top_p=0.9, max_tokens=5
    )
    assert raw.http_response.status_code == 200
    assert sent_upstream(server) == {"temperature": 0.2}


def test_an_older_claude_model_gets_both_samplers(claude: tuple[Running, RunningRouter]) -> None:
    """The simulator refuses both for any model (it serves one): the 400 shows both went."""
    server, proxy = claude
    with pytest.raises(openai.BadRequestError) as refused:
        sdk(proxy).chat.completions.create(
            model="old", messages=ASK, temperature=0.2, top_p=0.9, max_tokens=5
        )
    assert "cannot both be specified" in refused.value.message
    assert sent_upstream(server) == {"temperature": 0.2, "top_p": 0.9}
