"""nanocoder's requests: a coding agent's session, told by its tools.

Found in a live review (tests/fixtures/nanocoder-1.25.2.md): of nanocoder's 29 tools only
`execute_bash` was known as a coding agent's, so its requests were read as a chat's, and a
file fix after a math question went to the cloud as math 0.41.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.harness_tools import HARNESS_TOOLS
from classifier.request import view
from tests.recorded import FIXTURES as RECORDED
from tests.recorded import body as recorded

FIXTURES = RECORDED / "nanocoder-1.25.2"
OWN = ("string_replace", "search_file_contents", "lsp_get_diagnostics")
# the git MCP server's tools (modelcontextprotocol/servers, src/git: `GitTools`), which nanocoder
# offers by the same names, and a chat app may too
GIT_SERVER = ("git_status", "git_diff_unstaged", "git_diff_staged", "git_diff", "git_commit")
GIT_SERVER += ("git_add", "git_reset", "git_log", "git_create_branch", "git_checkout")
GIT_SERVER += ("git_show", "git_branch")


def body(name: str) -> dict[str, Any]:
    return recorded(FIXTURES / f"{name}.json")


def with_ask(ask: str) -> dict[str, Any]:
    request = body("first-turn")
    request["messages"][-1]["content"] = ask
    return request


def test_its_distinctive_tool_names_are_its_harness() -> None:
    assert set(OWN) <= HARNESS_TOOLS


@pytest.mark.parametrize("name", ["first-turn", "math-then-file-fix"])
def test_its_requests_are_an_agents_session(name: str) -> None:
    assert view(body(name)).agent_tools


def test_a_file_fix_after_a_math_turn_is_coding() -> None:
    intent = classify(body("math-then-file-fix"))
    assert (intent.label, intent.source) == ("coding", "rule")


@pytest.mark.parametrize(
    ("ask", "label"),
    [
        ("explain what median() does in calc.py", "coding"),
        ("Write a haiku about autumn leaves.", "prose"),
    ],
)
def test_its_asks_read_as_an_agents(ask: str, label: str) -> None:
    assert classify(with_ask(ask)).label == label


def test_the_git_servers_tools_are_no_coding_agents() -> None:
    """A chat app with the git MCP server attached: its unclear asks are read as asked, not
    as a coding agent's (git_status, git_diff and git_commit counted as an agent's made
    "What is the capital of Australia?" coding, found in review)."""
    request = with_ask("What is the capital of Australia?")
    request["messages"][0]["content"] = "You are a helpful assistant."
    schema = {"type": "object", "properties": {}}
    request["tools"] = [
        {"type": "function", "function": {"name": name, "parameters": schema}}
        for name in GIT_SERVER
    ]
    assert not view(request).agent_tools
    assert classify(request).label == "reasoning"
