"""`POST /v1/router/explain` with `api: messages` or `api: responses` reads the body as that
API, and says what serving it does: a Messages body read as chat took Anthropic's
`tool_choice: none` for an open choice and a sonnet for a tool request (found in review)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.harness import RunningRouter

TOOL = {
    "name": "web_search",
    "description": "Search the web",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
}
SONNET = "Don't search for anything; just write me a sonnet about the sea."


def explained(proxy: RunningRouter, api: str, body: dict[str, Any]) -> dict[str, Any]:
    reply = httpx.post(f"{proxy.root}/v1/router/explain", json={"api": api, **body})
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def test_explain_reads_a_messages_body_as_serving_does(proxy: RunningRouter) -> None:
    body: dict[str, Any] = {
        "model": "auto",
        "max_tokens": 64,
        "system": [{"type": "text", "text": "You are a helpful assistant."}],
        "tools": [TOOL],
        "tool_choice": {"type": "none"},
        "messages": [{"role": "user", "content": SONNET}],
    }
    client = anthropic_client(proxy)
    served = client.messages.with_raw_response.create(**body)
    plan = explained(proxy, "messages", body)
    assert (plan["intent"]["label"], plan["route"]) == (
        served.headers["x-smf-intent"],
        served.headers["x-smf-route"],
    )
    assert plan["intent"]["label"] != "tool_calling"  # tools offered, none allowed


def test_explain_reads_a_responses_body_as_serving_does(proxy: RunningRouter) -> None:
    body: dict[str, Any] = {
        "model": "auto",
        "instructions": "You are a coding agent.",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": SONNET}]},
        ],
    }
    client = openai_client(proxy)
    served = client.responses.with_raw_response.create(**body)
    plan = explained(proxy, "responses", body)
    assert plan["intent"]["label"] == served.headers["x-smf-intent"]
    assert plan["intent"]["confidence"] == pytest.approx(
        float(served.headers["x-smf-confidence"]), abs=1e-3
    )


@pytest.mark.parametrize("api", ["embeddings", 5, None, ["chat"]])
def test_explain_names_the_apis_it_reads(proxy: RunningRouter, api: object) -> None:
    """An `api` that is no string was explained as chat, a 200 (found in review)."""
    reply = httpx.post(f"{proxy.root}/v1/router/explain", json={"api": api, "model": "auto"})
    assert reply.status_code == 400
    assert reply.json()["error"]["param"] == "api"
    assert "messages" in reply.json()["error"]["message"]
