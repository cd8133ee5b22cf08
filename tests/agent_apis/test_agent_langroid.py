"""A langroid agent's ask that names a tool it lists in its system prompt's text goes where a
tool call goes, and its tool's result, a user message, is no new ask (`classifier.langroid`).

Found running langroid 0.69.16 against the router: with its default tools in text (no `tools`
field), "What is 1234 * 5678? Use the multiply tool." went math to the cloud, and the tool's
result "7006652" was read as the next request's ask. The bodies are the ones it sent
(`tests/fixtures/langroid-0.69.16.md`), sent through the official SDK as langroid sends them
(not streamed); real sockets, the simulators as backends, the default routes.
"""

from __future__ import annotations

import copy
from typing import Any

import openai
import pytest

from tests import recorded
from tests.agent_apis.agent_stack import explained
from tests.harness import RunningRouter

FIXTURES = recorded.FIXTURES / "langroid-0.69.16"


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / f"{name}.json")


def sent(proxy: RunningRouter, body: dict[str, Any]) -> dict[str, str]:
    """`body` sent through the official SDK: the router's decision headers."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    raw = client.chat.completions.with_raw_response.create(**copy.deepcopy(body))
    assert raw.status_code == 200
    return {name: raw.headers[f"x-smf-{name}"] for name in ("intent", "backend")}


@pytest.mark.parametrize("name", ["tool-turn1", "tool-turn2"])
def test_an_ask_naming_a_listed_tool_is_a_tool_call(proxy: RunningRouter, name: str) -> None:
    """Both turns of the tool loop: tool_calling on the local backend (math on the cloud,
    before), the second read after the tool's result, its ask the user's."""
    body = captured(name)
    assert "tools" not in body
    read = explained(proxy, body)["classifier"]["read"]
    assert (read["has_tools"], read["after_tool_result"]) == (True, name == "tool-turn2")
    assert sent(proxy, body) == {"intent": "tool_calling", "backend": "local"}


def test_an_ask_naming_no_tool_goes_where_its_words_go(proxy: RunningRouter) -> None:
    assert sent(proxy, captured("tool-poem")) == {"intent": "prose", "backend": "cloud"}
