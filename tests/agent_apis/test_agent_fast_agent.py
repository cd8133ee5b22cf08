"""fast-agent's router's call and its orchestrator's planning call go to the local backend
as instruction, whatever the query (`classifier.fast_agent`).

fast-agent 0.2.36 streams every request. Read by its words, the router's call on "What is
3 plus 4?" was below `min_confidence` (the default route) and on "Write a haiku about the
sea" prose 0.62, on the cloud (found running fast-agent against the router). The bodies are
the ones it sent (`tests/fixtures/fast-agent-mcp-0.2.36.md`); real sockets, the official
SDK, the simulators as backends.
"""

from __future__ import annotations

import copy
from typing import Any

import openai
import pytest

from classifier.rules import AGENT_CHOICE
from tests.agent_apis.agent_stack import explained
from tests.classifier.test_classifier_fast_agent import PLANNER, ROUTER, captured
from tests.harness import RunningRouter


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def streamed(proxy: RunningRouter, body: dict[str, Any]) -> tuple[str, str]:
    """`body` streamed through the official SDK as fast-agent sends it, read to its end: the
    intent and the backend the headers name."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    with client.chat.completions.with_streaming_response.create(**copy.deepcopy(body)) as raw:
        assert raw.status_code == 200
        text = "".join(
            choice.delta.content or ""
            for chunk in raw.parse()
            for choice in chunk.choices  # the usage chunk has none
        )
        headers = raw.headers
    assert text
    return headers["x-smf-intent"], headers["x-smf-backend"]


@pytest.mark.parametrize("name", ROUTER + PLANNER)
def test_its_choice_of_an_agent_is_instruction_on_the_local_backend(
    proxy: RunningRouter, name: str
) -> None:
    body = captured(name)
    assert body["stream"] is True
    assert streamed(proxy, body) == ("instruction", "local")
    why = explained(proxy, body)["classifier"]
    assert (why["source"], why["rule"]) == ("rule", AGENT_CHOICE)
