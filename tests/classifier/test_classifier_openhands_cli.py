"""The OpenHands CLI 1.16.0's requests (SDK 1.21.0): its condenser's summary request is read
as its agent's coding work, the summary it wrote is no ask in the agent's later turns, and
its sub-agents' `task` tool is the agent's own.

Found running the CLI against the router in demo mode: the summary request (no
`prompt_cache_key`, no ask) was `unknown` and went local while its haiku session was on the
cloud; a summary that named stats.py read coding 0.9 as the user's ask; "Use the task tool
to delegate a review of stats.py to a sub-agent." tool_calling 0.9 by the tool's name. The
bodies are the ones it sent (`tests/fixtures/openhands-cli-1.16.0.md`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify, explain
from classifier.fixed import CONDENSER_READING
from classifier.harness_tools import HARNESS_TOOLS, PLAIN_NAMES
from classifier.request import view

FIXTURES = Path(__file__).parents[1] / "fixtures"
CLI = FIXTURES / "openhands-cli-1.16.0"
HAIKU = "Write a haiku about autumn rain."
# A summary in the fields the condenser's prompt orders (`summarizing_prompt.j2`), as a
# model writes it for the haiku session of `condenser.json`
SUMMARY = (
    "USER_CONTEXT: User asked for a haiku about autumn rain, then asked to make it rhyme.\n"
    "COMPLETED: Listed the working directory (stats.py only); wrote a haiku about autumn"
    " rain.\nPENDING: Make the haiku rhyme.\n"
    "CURRENT_STATE: Working directory holds stats.py only; no files changed."
)
DELEGATE = "Use the task tool to delegate a review of stats.py to a sub-agent."


def captured(name: str, fixtures: Path = CLI) -> dict[str, Any]:
    return dict(json.loads((fixtures / name).read_text(encoding="utf-8")))


def after_summary(summary: str, keep_first: bool) -> dict[str, Any]:
    """The agent's request after a condensation, its summary `summary`: the captured one
    (the summary its only user message), or with the first ask and the agent's first step
    kept before it (`keep_first`, the default 4 events: system prompt, ask, call, result)."""
    body = captured("agent-after-summary.json")
    system, _, call, result = body["messages"]
    note = {"role": "user", "content": [{"type": "text", "text": summary}]}
    kept = [{"role": "user", "content": [{"type": "text", "text": HAIKU}]}, call, result]
    body["messages"] = [system, *(kept if keep_first else []), note, call, result]
    return body


def test_the_condensers_summary_request_is_its_agents_coding_work() -> None:
    body = captured("condenser.json")
    assert "prompt_cache_key" not in body and len(body["messages"]) == 1
    seen = view(body)
    assert (seen.latest, seen.first, seen.fixed == CONDENSER_READING) == ("", "", True)
    intent = classify(body)
    assert (intent.label, intent.source) == ("coding", "rule")


def test_the_newer_condensers_two_messages_alike() -> None:
    """SDK 1.58.2 sends its prompt as a system message and its events after it."""
    body = captured("condenser.json", FIXTURES / "openhands-sdk-1.58.2")
    assert len(body["messages"]) == 2
    assert (classify(body).label, classify(body).source) == ("coding", "rule")


@pytest.mark.parametrize("extra", ["before", "after"])
def test_its_prompt_among_other_messages_is_no_summary_request(extra: str) -> None:
    body = captured("condenser.json")
    other = {"role": "user", "content": HAIKU}
    body["messages"] = (
        [other, *body["messages"]]
        if extra == "before"
        else [
            *body["messages"],
            {"role": "assistant", "content": "Done."},
            other,
        ]
    )
    assert view(body).fixed != CONDENSER_READING


@pytest.mark.parametrize(("keep_first", "label"), [(True, "prose"), (False, "unknown")])
def test_the_summary_in_its_agents_request_is_no_ask(keep_first: bool, label: str) -> None:
    """Read as the ask, the summary was coding 0.9 by "stats.py": the first ask kept before
    it is read, or the request has none (its tools say an agent's session)."""
    body = after_summary(SUMMARY, keep_first)
    seen = view(body)
    assert seen.latest == (HAIKU if keep_first else "")
    assert seen.harness_cut
    assert classify(body).label == label


def test_the_captured_summary_of_other_words_is_read() -> None:
    """The simulator's summary holds none of the prompt's fields: it is the model's text."""
    body = captured("agent-after-summary.json")
    assert view(body).latest.startswith("Here is a solution:")


@pytest.mark.parametrize(
    "text",
    [
        "USER_CONTEXT: what does this field mean in our config loader?",
        "Please fill these in:\nUSER_CONTEXT: ...\nCOMPLETED: ...",
    ],
)
def test_a_users_words_like_its_fields_are_read(text: str) -> None:
    """One field alone, or the fields after the user's own words, are the user's ask."""
    assert view(after_summary(text, False)).latest == text


def test_its_summary_in_another_clients_request_is_the_users() -> None:
    body = after_summary(SUMMARY, False)
    body["messages"][0] = {"role": "system", "content": "You are a helpful assistant."}
    assert view(body).latest == SUMMARY


def test_its_task_tool_is_its_agents_own() -> None:
    """`task` (its sub-agents) is a plain word: it counts only beside an agent's name."""
    body = after_summary(DELEGATE, False)
    names = [tool["function"]["name"] for tool in body["tools"]]
    assert names == ["terminal", "file_editor", "task_tracker", "task", "finish", "think"]
    assert "task" in HARNESS_TOOLS and "task" in PLAIN_NAMES
    seen = view(body)
    assert (seen.latest, seen.agent_tools) == (DELEGATE, True)
    assert "task" not in seen.tool_names.split()
    intent = classify(body)
    assert (intent.label, intent.source) == ("coding", "rule")
    # the session's rule, not the tool-naming one; the model reads tool_calling 0.46 since
    # complement NB's term (2026-12-06), below even odds: the session's rule decides
    assert explain(body)["rule"].startswith("agent_session"), explain(body)["rule"]
