"""A Messages answer names its request id as Anthropic's API does, `request-id`: the only
header the `anthropic` SDK reads it from (`request_id` of a raw response and of an
`APIStatusError`), which Claude Code shows with an error. It was only `x-request-id`, and
the SDK said None (found in review). OpenAI's APIs keep `x-request-id` alone."""

from __future__ import annotations

import anthropic
import httpx
import pytest

from tests.agent_apis.agent_stack import anthropic_client
from tests.harness import Running, RunningRouter

ASK = [{"role": "user", "content": "Write a Python function that reverses a list."}]


def test_a_messages_answer_and_its_stream_carry_request_id(proxy: RunningRouter) -> None:
    sdk = anthropic_client(proxy)
    raw = sdk.messages.with_raw_response.create(model="cloud", max_tokens=5, messages=ASK)  # type: ignore[arg-type]
    assert raw.request_id is not None and raw.request_id == raw.headers["x-request-id"]
    with sdk.messages.with_streaming_response.create(
        model="local",
        max_tokens=5,
        messages=ASK,  # type: ignore[arg-type]
        stream=True,
    ) as streamed:
        "".join(streamed.iter_text())
    assert streamed.request_id is not None
    assert streamed.request_id == streamed.headers["x-request-id"]
    counted = sdk.messages.with_raw_response.count_tokens(model="cloud", messages=ASK)  # type: ignore[arg-type]
    assert counted.request_id is not None
    assert counted.request_id == counted.headers["x-request-id"]


def test_a_messages_refusal_carries_request_id_whoever_refused(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """Refused before the gateway took it (an unknown model), by a backend (its context
    error, through the gateway), and on the FastAPI path (count_tokens' bad body)."""
    sdk = anthropic_client(proxy)
    with pytest.raises(anthropic.NotFoundError) as unknown:
        sdk.messages.create(model="no-such-model", max_tokens=5, messages=ASK)  # type: ignore[arg-type]
    servers["claude"].control("faults", {"fault": "context_length"})
    try:
        with pytest.raises(anthropic.BadRequestError) as too_long:
            sdk.messages.create(model="claude", max_tokens=5, messages=ASK)  # type: ignore[arg-type]
    finally:
        servers["claude"].control("faults", {"fault": None})
    for error in (unknown.value, too_long.value):
        assert error.request_id is not None
        assert error.request_id == error.response.headers["x-request-id"]
    counted = httpx.post(f"{proxy.root}/v1/messages/count_tokens", content=b"{not json")
    assert counted.status_code == 400
    assert counted.headers["request-id"] == counted.headers["x-request-id"]


def test_openai_answers_keep_x_request_id_alone(proxy: RunningRouter) -> None:
    body = {"model": "cloud", "max_tokens": 5, "messages": ASK}
    answered = httpx.post(f"{proxy.url}/chat/completions", json=body)
    refused = httpx.post(f"{proxy.url}/chat/completions", json={**body, "model": "nope"})
    for reply in (answered, refused):
        assert reply.headers["x-request-id"] and "request-id" not in reply.headers
