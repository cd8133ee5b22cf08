"""A captured agent's body sent as the agent sends it (the official SDK, not streamed), and
the intent and backend the router's headers name for it: what the tests of an agent's or a
framework's own texts read."""

from __future__ import annotations

from typing import Any

import openai

from tests.harness import RunningRouter


def served(proxy: RunningRouter, body: dict[str, Any]) -> tuple[str, str]:
    """`body` to `/v1/responses` when it holds an `input`, else to chat completions."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    if "input" in body:
        raw: Any = client.responses.with_raw_response.create(**body)
    else:
        raw = client.chat.completions.with_raw_response.create(**body)
    assert raw.http_response.status_code == 200
    raw.parse()
    return raw.headers["x-smf-intent"], raw.headers["x-smf-backend"]
