"""crewAI's tasks are read by their words, not by the frame crewAI puts them in
(`classifier.crewai`).

crewAI 1.15.30 sends each task in a user message of its own: "Current Task:", the task's
description, "This is the expected criteria for your final answer:", its expected output,
"you MUST return the actual complete content as the final answer, not a summary." and an
ending of its mode. Read whole, "Compute 17 * 23" was instruction 0.42 (local) where the ask
alone is math (cloud), and "What is the weather in Paris?" writing 0.51 (cloud) where it is
tool_calling (local) (found in a review of agent frameworks). The bodies are the ones it
sent (`tests/fixtures/crewai-1.15.30.md`); real sockets, the official SDK, the simulators as
backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier.crewai import POST_TOOL
from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "crewai-1.15.30"
WEATHER = ("What is the weather in Paris?", "A one-sentence weather report")
MATH = ("Compute 17 * 23", "The number")
SKY = ("Explain why the sky is blue", "A short explanation")
# Each captured body, the task in it (its description and expected output), and where the
# ask alone goes: the intent and the backend of the default routes
BODIES = {
    "native-tools.json": (WEATHER, ("tool_calling", "local")),
    "native-tools-after-tool.json": (WEATHER, ("tool_calling", "local")),
    "no-tools.json": (MATH, ("math", "cloud")),
    "react.json": (WEATHER, ("tool_calling", "local")),
    "react-after-tool.json": (WEATHER, ("tool_calling", "local")),
    "no-system-prompt.json": (MATH, ("math", "cloud")),
    "with-context.json": (SKY, ("reasoning", "cloud")),
}


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def task_message(body: dict[str, Any]) -> dict[str, Any]:
    """The user message that holds the task: crewAI's first."""
    return next(m for m in body["messages"] if m["role"] == "user")


def bare(body: dict[str, Any], ask: str) -> dict[str, Any]:
    """`body` with its task message the ask alone, and without crewAI's messages after a
    tool: what the user asked, as a client without crewAI would send it."""
    messages = [m for m in body["messages"] if m.get("content") != POST_TOOL]
    first = task_message(body)
    bared = [{**m, "content": ask} if m is first else m for m in messages]
    return {**body, "messages": bared}


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


@pytest.mark.parametrize("name", BODIES)
def test_a_task_goes_where_its_ask_alone_goes(proxy: RunningRouter, name: str) -> None:
    body = captured(name)
    (description, _), where = BODIES[name]
    assert task_message(body)["content"].count(f"Current Task: {description}\n") == 1
    # with tools called in text, crewAI's own user message after a tool's result ends it
    assert (body["messages"][-1]["content"] == POST_TOOL) == name.startswith("react-after")
    assert served(proxy, body) == where
    assert served(proxy, bare(body, description)) == where


@pytest.mark.parametrize("name", BODIES)
def test_explain_reads_the_description_and_the_expected_output(
    proxy: RunningRouter, name: str
) -> None:
    """The words read are the task's, a line apart: not "Current Task:", crewAI's sentences
    about the criteria, its ending, nor an earlier task's output given as context."""
    body = captured(name)
    (description, expected), where = BODIES[name]
    plan = explained(proxy, body)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["latest_cut"]) == (len(f"{description}\n{expected}"), False)
    assert (plan["intent"]["label"], plan["backends"][0]["backend"]) == where
    # crewAI is no coding agent: its texts make the request no agent's session
    assert plan["classifier"]["rule"] is None


@pytest.mark.parametrize("system", [None, "You are a helpful assistant."])
def test_current_task_typed_elsewhere_is_read_whole(
    proxy: RunningRouter, system: str | None
) -> None:
    """Without crewAI's role-playing system prompt, the same text is the user's: read as
    written, and served as it was before crewAI's frame was known."""
    framed = task_message(captured("no-tools.json"))["content"]
    messages = [{"role": "user", "content": framed}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    body = {"model": "auto", "messages": messages}
    read = explained(proxy, body)["classifier"]["read"]
    assert read["latest_chars"] == len(framed)
    assert served(proxy, body) == ("instruction", "local")
