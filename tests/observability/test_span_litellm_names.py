"""A litellm backend's provider and model on its spans are what litellm itself sends to
(`get_llm_provider`, no network), not a reading of the model's first `/`."""

from __future__ import annotations

from typing import Any

import pytest

from router.config import Backend
from router.span_attributes import provider_name, request_model


def litellm_backend(model: str, extra_body: dict[str, Any] | None = None) -> Backend:
    return Backend(
        name="x",
        tier="cloud",
        kind="litellm",
        base_url="http://127.0.0.1:9/v1",
        model=model,
        extra_body=extra_body or {},
    )


@pytest.mark.parametrize(
    ("model", "provider", "said"),
    [
        ("meta-llama/Llama-3.1-8B-Instruct", "hosted_vllm", "hosted_vllm"),
        ("Qwen/Qwen3-8B", "openai", "openai"),
        ("claude-3-5-sonnet-20241022", "anthropic", "anthropic"),
        ("gemini-2.5-pro", "gemini", "gcp.gemini"),  # the conventions' name, as a prefix's
    ],
)
def test_a_provider_named_in_extra_body_is_the_spans_provider(
    model: str, provider: str, said: str
) -> None:
    """The provider was the model's first segment: `meta-llama` for a Hugging Face name
    served through `custom_llm_provider: hosted_vllm`, the backend's name for a model with
    no `/` (found in review). The model stays whole: it is the provider's name for it."""
    backend = litellm_backend(model, {"custom_llm_provider": provider})
    assert (provider_name(backend), request_model(backend)) == (said, model)


def test_a_prefix_litellm_does_not_know_is_still_the_provider() -> None:
    """litellm tells no provider for `antropic/…` (such a backend's requests fail): the
    prefix is the best guess there is, as before."""
    assert provider_name(litellm_backend("antropic/claude")) == "antropic"


@pytest.mark.parametrize(
    ("model", "said"),
    [
        (
            "bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0",
            "anthropic.claude-3-5-sonnet-20240620-v1:0",
        ),
        (
            "bedrock/invoke/anthropic.claude-3-haiku-20240307-v1:0",
            "anthropic.claude-3-haiku-20240307-v1:0",
        ),
        (
            "bedrock/us.anthropic.claude-3-5-sonnet-20241022-v2:0",
            "us.anthropic.claude-3-5-sonnet-20241022-v2:0",
        ),
    ],
)
def test_a_bedrock_model_is_its_model_id_without_litellms_route(model: str, said: str) -> None:
    """litellm keeps the API it calls Bedrock by in the model (`converse/anthropic…`): the
    spans' model was that, no Bedrock model id (found in review)."""
    backend = litellm_backend(model)
    assert (provider_name(backend), request_model(backend)) == ("aws.bedrock", said)
