"""Tools a framework lists in its system prompt's text go where a tool call goes, and
rigging's request to rewrite a reply it failed to parse is no new ask, through the router
(`classifier.smolagents.text_tools`, `classifier.rigging`).

Found running txtai 9.14.0 and rigging 3.3.5 against the router: txtai's `Agent` (a smolagents
ToolCallingAgent on a model that sends no `tools`) and rigging's `json-in-xml` and `xml` tool
modes sent "What is 1234 * 5678? Use the multiply tool." math to the cloud, where their
native tool calls are tool_calling, local; rigging's retry after a failed parse went coding.
The bodies are the ones they sent (`tests/fixtures/txtai-9.14.0.md`,
`tests/fixtures/rigging-3.3.5.md`), sent through the official SDK (not streamed); real
sockets, the simulators as backends, the default routes.
"""

from __future__ import annotations

import copy
from typing import Any

import openai
import pytest

from tests import recorded
from tests.agent_apis.agent_stack import explained
from tests.harness import RunningRouter

TXTAI = recorded.loader(recorded.FIXTURES / "txtai-9.14.0")
RIGGING = recorded.loader(recorded.FIXTURES / "rigging-3.3.5")


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def sent(proxy: RunningRouter, body: dict[str, Any]) -> dict[str, str]:
    """`body` sent through the official SDK: the router's decision headers."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    raw = client.chat.completions.with_raw_response.create(**copy.deepcopy(body))
    assert raw.status_code == 200
    return {name: raw.headers[f"x-smf-{name}"] for name in ("intent", "backend")}


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(TXTAI("agent-multiply.json"), id="txtai-agent"),
        pytest.param(RIGGING("json-in-xml-multiply.json"), id="rigging-json-in-xml"),
        pytest.param(RIGGING("xml-multiply.json"), id="rigging-xml"),
    ],
)
def test_tools_listed_in_text_are_a_tool_call(proxy: RunningRouter, body: dict[str, Any]) -> None:
    """tool_calling on the local backend (math on the cloud, before), the tools read."""
    assert "tools" not in body
    assert sent(proxy, body) == {"intent": "tool_calling", "backend": "local"}
    assert explained(proxy, body)["classifier"]["read"]["has_tools"] is True


def test_riggings_parse_retry_is_read_by_the_question(proxy: RunningRouter) -> None:
    """The question before the retry message is the ask: not coding (as before), on the
    cloud, where the question alone goes."""
    body = RIGGING("parse-retry.json")
    question = {"model": "auto", "messages": body["messages"][:1]}
    assert sent(proxy, body) == sent(proxy, question) == {"intent": "reasoning", "backend": "cloud"}
