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
OWN += ("git_status", "git_diff", "git_commit")


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
