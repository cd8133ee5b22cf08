"""Strands Agents' nudge to call its structured-output tool is no ask (`classifier.strands`):
the recorded bodies (`tests/fixtures/strands-agents-1.62.0.md`) on the classifier's view of
them, and the edges of the reader's scope. Strands' texts are quoted from its installed 1.62.0
sources (`strands/tools/structured_output/_structured_output_context.py`,
`strands/tools/structured_output/structured_output_tool.py`), not taken from the module
under test.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify
from classifier.request import view
from tests import recorded

FIXTURES = recorded.FIXTURES / "strands-agents-1.62.0"
ASK = "Give me facts about Tokyo."
NUDGE = "You must format the previous response as structured output."


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


def without_nudge(body: dict[str, Any]) -> dict[str, Any]:
    """The same request, its last message (the nudge) dropped: what it asks without it."""
    return {**body, "messages": body["messages"][:-1]}


def unforced(body: dict[str, Any]) -> dict[str, Any]:
    """The request with no tool choice: its one tool alone forces it (Strands sends it alone
    as a provider may ignore `tool_choice`), and the rule on a forced choice decides nothing."""
    return {k: v for k, v in body.items() if k != "tool_choice"}


@pytest.mark.parametrize("name", ["openai-forced.json", "litellm-forced-stream.json"])
def test_the_recorded_nudge_is_passed_over_for_the_ask(name: str) -> None:
    body = captured(name)
    assert body["messages"][-1]["content"] == [{"text": NUDGE, "type": "text"}]
    seen = view(body)
    assert seen.latest == ASK and seen.first == ""
    assert seen.harness_cut is False  # Strands is no coding agent
    assert classify(body).label == "tool_calling"  # the forced choice's rule


def test_without_a_tool_choice_the_nudge_no_longer_decides_the_intent() -> None:
    """Read as the ask, the nudge made it instruction 0.967 (found in review)."""
    body = unforced(captured("openai-forced.json"))
    assert view(body).latest == ASK
    assert classify(body) == classify(unforced(without_nudge(captured("openai-forced.json"))))
    assert classify(body).label != "instruction"


def test_its_words_outside_strands_request_are_read_as_written() -> None:
    """Without Strands' output tool, or with other tools beside it, the text is the user's."""
    body = unforced(captured("openai-forced.json"))
    bare = {k: v for k, v in body.items() if k != "tools"}
    other = copy.deepcopy(body)
    other["tools"][0]["function"]["description"] = "City facts."
    more = copy.deepcopy(body)
    more["tools"].append({"type": "function", "function": {"name": "get_weather"}})
    for request in (bare, other, more):
        assert view(request).latest == NUDGE


@pytest.mark.parametrize(
    "text",
    [NUDGE + " Then tell me about Osaka.", "Please: " + NUDGE, NUDGE.lower()],
)
def test_only_the_exact_nudge_whole_is_passed_over(text: str) -> None:
    body = unforced(captured("openai-forced.json"))
    body["messages"][-1] = {"role": "user", "content": text}
    assert view(body).latest == text


def test_the_nudge_is_passed_over_only_after_a_reply_and_the_ask() -> None:
    """Strands appends it after the reply that called no tool, after the user's ask: as the
    first user message, or right after a tool's result, it is read as written."""
    body = unforced(captured("openai-forced.json"))
    first = {**body, "messages": [body["messages"][0], body["messages"][-1]]}
    assert view(first).latest == NUDGE
    after_tool = {**body, "messages": body["messages"][:4] + body["messages"][-1:]}
    assert view(after_tool).latest == NUDGE
