"""A Marvin task goes where its instructions go, whatever end-turn call it forces; `say()`
where the user's message goes; extract, classify and cast to the local backend as
instruction (`classifier.marvin`).

Found running Marvin 3.2.7 (on pydantic-ai 1.94.0) against the router: every request sends
`tool_choice: "required"` with its task's `MarkTaskSuccessful_<id>` tool (how it answers), so
each went local as tool_calling, an integral and a haiku too. The bodies are the ones it
sent (`tests/fixtures/marvin-3.2.7.md`), streamed as Marvin streams them through the
official SDK; real sockets, the simulators as backends, the default routes.
"""

from __future__ import annotations

import copy
from typing import Any

import openai
import pytest

from classifier.rules import MARVIN_FORM
from tests import recorded
from tests.agent_apis.agent_stack import explained
from tests.harness import RunningRouter

FIXTURES = recorded.FIXTURES / "marvin-3.2.7"
# Each task and where its ask goes by the default routes
TASKS = {
    "run-math": ("math", "cloud"),
    "run-code": ("coding", "local"),
    "agent-haiku": ("prose", "cloud"),
    "say-third": ("reasoning", "cloud"),
}
FORMS = ["extract-int", "extract-person", "classify", "cast"]


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / f"{name}.json")


def streamed(proxy: RunningRouter, body: dict[str, Any]) -> dict[str, str]:
    """`body` streamed through the official SDK as pydantic-ai sends Marvin's, read to its
    end: the router's decision headers."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    with client.chat.completions.with_streaming_response.create(**copy.deepcopy(body)) as raw:
        assert raw.status_code == 200
        raw.read()
        return {name: raw.headers[f"x-smf-{name}"] for name in ("intent", "route", "backend")}


def test_the_math_task_goes_to_the_cloud(proxy: RunningRouter) -> None:
    """`marvin.run("What is the integral of x^2 * e^x dx? Show the steps.")`: math, on the
    cloud's route (tool_calling and local, before)."""
    body = captured("run-math")
    assert body["stream"] is True and body["tool_choice"] == "required"
    assert streamed(proxy, body) == {"intent": "math", "route": "math", "backend": "cloud"}


@pytest.mark.parametrize("name", sorted(TASKS))
def test_a_task_goes_where_its_ask_goes(proxy: RunningRouter, name: str) -> None:
    """No rule decides: the end-turn call is Marvin's reply channel, the model reads the
    instructions (or `say()`'s user message)."""
    body = captured(name)
    why = explained(proxy, body)["classifier"]
    assert (why["rule"], why["read"]["tool_forced"], why["read"]["has_tools"]) == (
        None,
        True,
        False,
    )
    headers = streamed(proxy, body)
    assert (headers["intent"], headers["backend"]) == TASKS[name]


@pytest.mark.parametrize("name", FORMS)
def test_extract_classify_and_cast_are_instruction_on_the_local_backend(
    proxy: RunningRouter, name: str
) -> None:
    body = captured(name)
    assert explained(proxy, body)["classifier"]["rule"] == MARVIN_FORM
    headers = streamed(proxy, body)
    assert (headers["intent"], headers["backend"]) == ("instruction", "local")


def test_a_forced_call_in_another_apps_request_is_a_tool_call(proxy: RunningRouter) -> None:
    body = captured("run-math")
    body["messages"][0]["content"] = "You are a helpful assistant."
    headers = streamed(proxy, body)
    assert (headers["intent"], headers["backend"]) == ("tool_calling", "local")
