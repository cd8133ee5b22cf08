"""Agno's session summary asks nothing of a user's, and its dependencies are no words of the
user's (`classifier.agno`).

Agno 3.1.10 sends a session summary after each run (`enable_session_summaries`): its prompt
with the session's messages as the system prompt, "Provide the summary of the
conversation." as the ask. Read as sent, that sentence was writing and went to the cloud
whatever the session was (found in a review of agent frameworks); and with
`add_dependencies_to_context`, the dependencies' JSON was read as part of the ask. The bodies
are the ones it sent (`tests/fixtures/agno-3.1.10.md`); real sockets, the official SDK, the
simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served, served_by_default
from tests.harness import RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "agno-3.1.10"
WEATHER = "What is the weather in Paris?"


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def test_a_session_summary_takes_the_default_route(default_proxy: RunningRouter) -> None:
    """A coding session's summary: no ask read (Agno's sentence is no one's), so the
    default route, local, as opencode's compaction request takes it."""
    body = captured("session-summary.json")
    assert "User: Now write a unit test for add." in body["messages"][0]["content"]
    served_by_default(default_proxy, body)


def test_the_dependencies_are_not_read_as_the_ask(default_proxy: RunningRouter) -> None:
    body = captured("dependencies.json")
    assert body["messages"][0]["content"] != WEATHER
    read = explained(default_proxy, body)["classifier"]["read"]
    assert (read["latest_chars"], read["latest_cut"]) == (len(WEATHER), False)
    alone = {**body, "messages": [{"role": "user", "content": WEATHER}]}
    assert served(default_proxy, body) == served(default_proxy, alone) == ("tool_calling", "local")


def test_a_message_of_nothing_but_a_block_is_read_as_sent(default_proxy: RunningRouter) -> None:
    """A user message that is Agno's block alone: cut, nothing was left of it, and the haiku
    inside was unknown 0.0 (found in review); read as sent, it is the ask."""
    ask = "   \n\n<additional context>\nPlease write a haiku about autumn\n</additional context>"
    body = {"model": "auto", "messages": [{"role": "user", "content": ask}]}
    read = explained(default_proxy, body)["classifier"]["read"]
    assert read["latest_chars"] == len(ask)
    assert served(default_proxy, body)[0] == "prose"
    context = "\n\n<additional context>\n" + json.dumps({"user": "bob"}) + "\n</additional context>"
    turns = [
        {"role": "user", "content": "Write a Python function that reverses a list"},
        {"role": "assistant", "content": "def r(l): return l[::-1]"},
        {"role": "user", "content": context},
    ]
    read = explained(default_proxy, {"model": "auto", "messages": turns})["classifier"]["read"]
    assert read["latest_chars"] == len(context)
