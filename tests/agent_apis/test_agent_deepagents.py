"""LangChain deepagents' sessions are read by the ask: its tools are a general-purpose
harness's, not a coding agent's (`classifier.harness_tools.GENERAL_HARNESS_TOOLS`).

deepagents 0.7.32 (`create_deep_agent`) offers its file tools, `task` and, under some
profiles, `write_todos` on every request, for research and writing as much as for code.
Three of them (read_file, glob, grep) are coding agents' names, and made each of its
sessions a coding agent's (`classifier.rules.agent_session`): "Why did the Roman Empire
fall? Compare the main scholarly theories." under "You are an expert researcher..." was
coding 0.557, served locally, where the model read reasoning 0.65 (found in a review of
agent frameworks). The bodies are the ones it sent (`tests/fixtures/deepagents-0.7.32.md`);
real sockets, the official SDK, the simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier.harness_tools import GENERAL_HARNESS_TOOLS, HARNESS_TOOLS
from classifier.request import view
from classifier.toolset import tool_name
from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "deepagents-0.7.32"
RESEARCH = "Why did the Roman Empire fall? Compare the main scholarly theories."
RESEARCHER = "You are an expert researcher. Conduct thorough research and write a polished report."
CODING_ASKS = [
    "write a python function that parses ISO dates",
    "Write a python function is_prime in primes.py",
]
ITS_TOOLS = ["ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep", "task"]


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def first_turn(ask: str) -> dict[str, Any]:
    """Its first request, the researcher's system prompt and `ask`."""
    body = captured("first-turn.json")
    messages = body["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [
        ("system", RESEARCHER),
        ("user", RESEARCH),
    ]
    messages[1]["content"] = ask
    return body


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def test_a_research_ask_is_what_the_model_reads_and_goes_to_the_cloud(
    proxy: RunningRouter,
) -> None:
    assert served(proxy, first_turn(RESEARCH)) == ("reasoning", "cloud")
    plan = explained(proxy, first_turn(RESEARCH))
    assert (plan["intent"]["label"], plan["classifier"]["rule"]) == ("reasoning", None)


def test_its_sub_agents_ask_is_read_alike(proxy: RunningRouter) -> None:
    """The general-purpose sub-agent a `task` call starts offers the file tools alone; the
    task's description (here the capture's scripted one) is its ask."""
    body = captured("sub-agent.json")
    assert [tool_name(tool) for tool in body["tools"]] == ITS_TOOLS[:-1]
    intent, backend = served(proxy, body)
    assert intent != "coding" and backend == "cloud"


@pytest.mark.parametrize("ask", CODING_ASKS)
def test_a_coding_ask_is_coding_by_the_models_reading(proxy: RunningRouter, ask: str) -> None:
    assert served(proxy, first_turn(ask)) == ("coding", "local")
    plan = explained(proxy, first_turn(ask))
    assert (plan["intent"]["source"], plan["classifier"]["rule"]) == ("model", None)


def test_its_tools_are_a_general_harness_and_a_coding_agents_beside_them_still_count() -> None:
    """None of its tools can be named ("Read the file notes.md" names no `read_file`), and
    none counts for a coding agent's harness; three coding agents' own beside them do."""
    body = first_turn("Read the file notes.md and summarise it")
    assert [tool_name(tool) for tool in body["tools"]] == ITS_TOOLS
    assert set(ITS_TOOLS) <= GENERAL_HARNESS_TOOLS
    seen = view(body)
    assert (seen.tool_names, seen.agent_tools, seen.harness_cut) == ("", False, False)
    coding = [{"type": "function", "function": {"name": n}} for n in ("Bash", "Edit", "TodoWrite")]
    assert {"Bash", "Edit", "TodoWrite"} <= HARNESS_TOOLS
    assert view({**body, "tools": body["tools"] + coding}).agent_tools
    # a file app's three, without the harness's `ls` and `edit_file`, still count as before
    qwen_like = [t for t in body["tools"] if tool_name(t) in ("read_file", "glob", "grep")]
    assert view({**body, "tools": qwen_like}).agent_tools
