"""The OpenHands Software Agent SDK's requests: its 1.x tools say an agent's session, its
title call is read by the ask inside, its condenser's summary request asks nothing.

Found running the SDK 1.58.2 against the router: its tools (`terminal`, `file_editor`,
`task_tracker`, `finish`, `think`) held one name the router knew, so "Why does main()
return 0 even when the upload fails?" was reasoning 0.64, on the cloud; its title call was
read by its fixed words (a poem's instruction 0.59), its condenser's summary writing 0.59.
The bodies are the ones it sent (`tests/fixtures/openhands-sdk-1.58.2.md`).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.asks import first_ask
from classifier.harness_tools import HARNESS_TOOLS
from classifier.openhands import SUMMARY_END, SUMMARY_OPENING
from classifier.request import view

FIXTURES = Path(__file__).parents[1] / "fixtures" / "openhands-sdk-1.58.2"
EXPLAIN = "Why does main() return 0 even when the upload fails?"
POEM = "Write a short poem about autumn leaves."
CODE = "Create hello.py printing hi and run it."


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def asking(name: str, ask: str) -> dict[str, Any]:
    """The agent's first request `name` with `ask` as the user's first text part."""
    body = captured(name)
    body["messages"][1]["content"][0]["text"] = ask
    return body


def title_call(ask: str) -> dict[str, Any]:
    """OpenHands' title call for a conversation whose first ask is `ask`."""
    body = captured("title-call.json")
    part = body["messages"][1]["content"][0]
    assert f"message:\n\n{CODE}.Also make sure" in part["text"]
    part["text"] = part["text"].replace(CODE, ask)
    return body


def test_its_tools_are_an_agents_harness_but_finish_and_think() -> None:
    """`finish` and `think` are words any app may name a tool: they count for no agent."""
    body = captured("agent-explain.json")
    names = [tool["function"]["name"] for tool in body["tools"]]
    assert names == ["terminal", "file_editor", "task_tracker", "finish", "think"]
    assert {"terminal", "file_editor", "task_tracker", "planning_file_editor"} <= HARNESS_TOOLS
    assert not {"finish", "think"} & HARNESS_TOOLS
    assert view(body).agent_tools


def test_an_unsure_ask_in_its_session_is_coding() -> None:
    intent = classify(captured("agent-explain.json"))
    assert (intent.label, intent.source) == ("coding", "rule")


@pytest.mark.parametrize(
    ("ask", "label"),
    [(POEM, "prose"), ("What is the integral of x^2 from 0 to 3? Give the exact value.", "math")],
)
def test_a_clear_ask_in_its_session_stays_what_it_is(ask: str, label: str) -> None:
    assert classify(asking("agent-explain.json", ask)).label == label


def test_an_app_offering_finish_and_think_is_no_agents_session() -> None:
    body = captured("agent-explain.json")
    body["messages"] = [{"role": "user", "content": EXPLAIN}]
    body["tools"] = [t for t in body["tools"] if t["function"]["name"] in ("finish", "think")]
    body["tools"].append(copy.deepcopy(body["tools"][0]))
    body["tools"][-1]["function"]["name"] = "search_notes"
    assert not view(body).agent_tools and not view(body).harness_cut


def test_recalled_knowledge_in_a_second_part_is_not_the_ask() -> None:
    """1.x puts a skill's knowledge (`<EXTRA_INFO>`) after the ask, in the same message; the
    repository's context (`<REPO_CONTEXT>`) goes in the system message."""
    body = captured("agent-skill.json")
    system, user = (m["content"] for m in body["messages"])
    assert system[1]["text"].startswith("<REPO_CONTEXT>")
    assert user[1]["text"].startswith("<EXTRA_INFO>")
    seen = view(body)
    assert (seen.latest, seen.first) == (EXPLAIN, "")
    assert classify(body).label == "coding"


@pytest.mark.parametrize(("ask", "label"), [(EXPLAIN, "coding"), (POEM, "prose"), (CODE, None)])
def test_the_title_call_is_read_by_the_ask_inside(ask: str, label: str | None) -> None:
    """Read as the agent's own turn is: an unsure ask coding (the call is an agent's), a poem
    prose; by the fixed words, a poem's was instruction 0.59, an integral's coding 0.51."""
    body = title_call(ask)
    seen = view(body)
    assert (seen.latest, seen.harness_cut) == (ask, True)
    assert first_ask(body["messages"]) is body["messages"][1]
    turn = classify(asking("agent-explain.json", ask)).label
    assert classify(body).label == (label or turn)


def test_a_long_asks_title_call_is_read_without_its_cut_mark() -> None:
    """OpenHands puts the first 1,000 characters of a longer ask, then "...(truncated)"."""
    ask = "Refactor the upload module. " + "Keep the retries. " * 80
    assert view(title_call(ask[:1000] + "...(truncated)")).latest == ask[:1000]


def test_its_title_words_in_another_clients_request_are_the_users() -> None:
    body = title_call(EXPLAIN)
    body["messages"][0] = {"role": "system", "content": "You are a helpful assistant."}
    assert view(body).latest.startswith("Generate a title (maximum 50 characters)")


def test_the_condensers_summary_request_asks_nothing() -> None:
    """Its events hold the user's asks, each read in its own turn: no ask, and the request
    read as its agent's coding work (`tests/classifier/test_classifier_openhands_cli.py`)."""
    body = captured("condenser.json")
    seen = view(body)
    assert (seen.latest, seen.first, seen.harness_cut) == ("", "", True)
    assert (classify(body).label, classify(body).source) == ("coding", "rule")


def test_the_older_condensers_one_message_asks_nothing() -> None:
    """1.21.0 sent its whole prompt (`summarizing_prompt.j2`) as one user message."""
    body = captured("condenser.json")
    system, events = (m["content"][0]["text"] for m in body["messages"])
    body["messages"] = [{"role": "user", "content": [{"type": "text", "text": system + events}]}]
    assert system.startswith(SUMMARY_OPENING) and events.endswith(SUMMARY_END)
    assert (view(body).latest, classify(body).source) == ("", "rule")


@pytest.mark.parametrize("system", ["You are a helpful assistant.", None])
def test_its_events_after_another_system_prompt_are_the_users(system: str | None) -> None:
    body = captured("condenser.json")
    events = body["messages"][1]
    body["messages"] = (
        [events] if system is None else [{"role": "system", "content": system}, events]
    )
    assert view(body).latest.startswith("<EVENT>\nMessageEvent (user)")
