"""An agent run without a crew (`Agent.kickoff`) is read by its request's words, not by the
frame crewAI puts them in (`classifier.crewai`).

crewAI 1.15.30 sends `Agent.kickoff(request)` as it sends a crew's task, but the request
stands where a task's description and criteria would: "Current Task:", the request, then
what crewAI adds (its memories with memory, its mode's ending: "Begin! ... Thought:" with
tools called in text, "Provide your complete response:" without tools, none with native
tool calls; the date with `inject_date` and no system prompt). With no criteria after it, it
was read whole: "Compute 17 * 23" was math 0.54 (`Provide your complete response:`), asked
after a line of the user's tool_calling 0.68 where its words alone are math 0.99, and the
role-playing slice that opens the task without a system prompt was read as the ask (found
running crewAI). The bodies are the ones it sent (`tests/fixtures/crewai-1.15.30.md`); real
sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier.crewai import CRITERIA, TASK_OPENING
from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "crewai-1.15.30"
MATH = "Compute 17 * 23"
WEATHER = "What is the weather in Paris?"
# Each captured body, its request, and where the request alone goes by the default routes
BODIES = {
    "kickoff-no-tools.json": (MATH, ("math", "cloud")),
    "kickoff-native-tools.json": (WEATHER, ("tool_calling", "local")),
    "kickoff-react.json": (WEATHER, ("tool_calling", "local")),
    "kickoff-no-system-prompt.json": (MATH, ("math", "cloud")),
    "kickoff-date.json": (MATH, ("math", "cloud")),
    "kickoff-memory.json": (MATH, ("math", "cloud")),
    "kickoff-history.json": (MATH, ("math", "cloud")),
}
# `Agent.kickoff(messages)`: the last user message is the request, those before it history
EARLIER = "I have a multiplication for you."


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def bare(body: dict[str, Any], request: str) -> dict[str, Any]:
    """`body` with its last user message the request alone: what the user asked, as a
    client without crewAI would send it."""
    messages = [dict(m) for m in body["messages"]]
    last = max(i for i, m in enumerate(messages) if m["role"] == "user")
    messages[last]["content"] = request
    return {**body, "messages": messages}


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def test_the_bodies_hold_a_request_in_crewais_frame() -> None:
    """What crewAI sent: "Current Task:" and the request, no criteria after it, its memories
    or its ending or the date after it."""
    for name, (request, _) in BODIES.items():
        text = [m for m in captured(name)["messages"] if m["role"] == "user"][-1]["content"]
        assert f"\n{TASK_OPENING}{request}" in text and CRITERIA not in text
        assert text.endswith(request) == (name == "kickoff-native-tools.json")
        memories = "\n\n# Memories from past conversations:\n" in text
        assert memories == (name == "kickoff-memory.json")


@pytest.mark.parametrize("name", BODIES)
def test_a_request_goes_where_its_words_alone_go(proxy: RunningRouter, name: str) -> None:
    body = captured(name)
    request, where = BODIES[name]
    plan = explained(proxy, body)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["latest_cut"]) == (len(request), False)
    # the history before the request is the user's, read as written
    first = len(EARLIER) if name == "kickoff-history.json" else 0
    assert read["first_chars"] == first
    assert (plan["intent"]["label"], plan["backends"][0]["backend"]) == where
    # crewAI is no coding agent: its texts make the request no agent's session
    assert plan["classifier"]["rule"] is None
    assert served(proxy, body) == served(proxy, bare(body, request)) == where


def test_current_task_without_its_line_break_is_read_whole(proxy: RunningRouter) -> None:
    """Not as crewAI opens a request (a line break first): with no criteria after it either,
    it is no frame of crewAI's, and read as written."""
    body = captured("kickoff-no-tools.json")
    text = f"{TASK_OPENING}{MATH}"
    body["messages"][-1]["content"] = text
    assert explained(proxy, body)["classifier"]["read"]["latest_chars"] == len(text)
