"""Agent frameworks' texts the router reads past to the task, through the router: crewAI's
prompt at a task's last iteration and a task given with files (`classifier.crewai`),
pydantic-ai's summary of a compacted conversation (`classifier.pydantic_ai`), the template
a smolagents managed agent's task comes in (`classifier.smolagents`), and Strands' nudge to
call its structured-output tool (`classifier.strands`).

Read as the ask, each decided the request by the framework's words: crewAI's weather task at
its `max_iter` was instruction 0.52 (its task tool_calling), its "Compute 17 * 23" with an
image instruction 0.39 (local; the task math, cloud), a managed agent's plan for "Find the
current weather in Paris, France" tool_calling 0.30, and pydantic-ai's summary was read as
the conversation's first ask, and Strands' nudge was the ask its forced request was read by
(found running the frameworks). The bodies are the ones each sent
(`tests/fixtures/crewai-1.15.30.md`, `smolagents-1.26.0.md`, `pydantic-ai-2.78.0.md`,
`strands-agents-1.62.0.md`);
real sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent_apis.served import served_as_read
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures"
WEATHER = "What is the weather in Paris?\nA one-sentence weather report"
MATH = "Compute 17 * 23\nThe number"
MANAGED = "Find the current weather in Paris, France"
TOKYO = "Give me facts about Tokyo."
# Each captured body, the words read of it, and where they go (intent, backend) by the
# default routes
BODIES = {
    "crewai-1.15.30/native-tools-force-final.json": (WEATHER, ("tool_calling", "local")),
    "crewai-1.15.30/react-force-final.json": (WEATHER, ("tool_calling", "local")),
    "crewai-1.15.30/files.json": (MATH, ("math", "cloud")),
    "crewai-1.15.30/files-no-system-prompt.json": (MATH, ("math", "cloud")),
    "crewai-1.15.30/files-responses.json": (MATH, ("math", "cloud")),
    "smolagents-1.26.0/managed-tool-plan.json": (MANAGED, ("tool_calling", "local")),
    "smolagents-1.26.0/managed-tool-step.json": (MANAGED, ("tool_calling", "local")),
    "smolagents-1.26.0/managed-code-step.json": (MANAGED, ("coding", "local")),
    "pydantic-ai-2.78.0/summary.json": ("And the second largest?", ("tool_calling", "local")),
    "strands-agents-1.62.0/openai-forced.json": (TOKYO, ("tool_calling", "local")),
    "strands-agents-1.62.0/litellm-forced-stream.json": (TOKYO, ("tool_calling", "local")),
}


def captured(name: str) -> dict[str, Any]:
    """The body as sent, but for its model: crewAI asks for files by a model that reads them
    ("gpt-4o"), which the router serves as `auto`."""
    return {**json.loads((FIXTURES / name).read_text(encoding="utf-8")), "model": "auto"}


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


@pytest.mark.parametrize("name", BODIES)
def test_the_task_is_read_and_served_as_itself(proxy: RunningRouter, name: str) -> None:
    words, where = BODIES[name]
    served_as_read(proxy, captured(name), words, where)


def test_the_frameworks_words_are_in_the_bodies() -> None:
    """What each body holds besides the task: crewAI's prompt ending a run at `max_iter`, its
    list of a task's files, smolagents' template around a managed agent's task, pydantic-ai's
    summary before the ask, Strands' nudge after its reply."""
    force = "Now it's time you MUST give your absolute best final answer."
    for name in ("native-tools-force-final.json", "react-force-final.json"):
        assert captured(f"crewai-1.15.30/{name}")["messages"][-1]["content"].startswith(force)
    for name in ("files.json", "files-no-system-prompt.json", "files-responses.json"):
        body = captured(f"crewai-1.15.30/{name}")
        parts = (body.get("messages") or body["input"])[-1]["content"]
        assert [part["type"] for part in parts] in (
            ["text", "image_url"],
            ["input_text", "input_image"],
        )
        assert "\n\nInput files (content already loaded in conversation):" in parts[0]["text"]
    for name in ("managed-tool-plan.json", "managed-tool-step.json", "managed-code-step.json"):
        text = json.dumps(captured(f"smolagents-1.26.0/{name}"))
        assert "You're a helpful agent named 'weather_agent'." in text
    messages = captured("pydantic-ai-2.78.0/summary.json")["messages"]
    assert messages[1]["content"].startswith("<pyai:conversation_summary>\n")
    nudge = "You must format the previous response as structured output."
    for name in ("openai-forced.json", "litellm-forced-stream.json"):
        last = captured(f"strands-agents-1.62.0/{name}")["messages"][-1]
        assert last["content"] == [{"text": nudge, "type": "text"}]
