"""agency-swarm's delegating asks are calls of its `send_message` (`classifier.agency_swarm`).

Found in a live review of agency-swarm 1.11.0: with `send_message` offered to the CEO and
"Developer" its one recipient, "Tell the Developer to draft a short status report on the API
migration." was writing 0.87 and went to the cloud, whose sticky pin then kept the CEO's
later delegations there; the CEO's turn only calls `send_message`. The bodies are the ones
it sent (`tests/fixtures/agency-swarm-1.11.0.md`); they go through the router in
`tests/agent_apis/test_agent_agency_swarm.py`.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from classifier import classify
from classifier.agency_swarm import (
    DESCRIPTION_OPENING,
    NAMES,
    RECIPIENT_DESCRIPTION,
    named_recipient,
)
from classifier.request import view
from classifier.rules import rule_intent
from tests import recorded
from tests.classifier.fixed_readings import assert_explained_by, named

FIXTURES = recorded.FIXTURES / "agency-swarm-1.11.0"
captured = recorded.loader(FIXTURES)
WHY = "tools offered and has an agent of its agency do it: {}"
RULE = WHY.format("Developer")
# The CEO's requests, each offering `send_message` to the Developer, and their latest ask
TELL = "Tell the Developer to draft a short status report on the API migration."
HAVE = "Have the Developer check the build for branch hotfix-9, then summarize."
CEO = {
    "ceo-tell-draft.json": TELL,
    "ceo-tell-draft-result.json": TELL,
    "ceo-have-check.json": HAVE,
}
# The Developer's own requests (its `get_build_status` offered), the CEO's message its ask
DEVELOPER = ["developer-tell-draft.json", "developer-have-check.json"]
# Asks of the live review (each was read by its words: writing, prose, instruction) and
# others that have the Developer do the work, any case
DELEGATING = [
    "Have the Developer check the build for branch release-2.1, then summarize.",
    "Have the Developer write a haiku about our release.",
    "Coordinate with the Developer and give me a one-paragraph summary of open bugs.",
    "get the developer to write a limerick about code review.",
    "Please ask our developer to prove that the square root of 2 is irrational.",
    "Delegate this to the Developer: write a short poem about autumn.",
    "developer, draft the release notes for version 2.1.",
    "Developer: check the build for branch main.",
    "The tests fail on main. Ask the Developer whether the fix is merged.",
    "Check with the Developer whether the deploy finished.",
    "Read the failing log, then have the Developer fix the flaky test.",
    "Could you please tell the Developer to rerun the nightly job?",
]
# Asks that name no recipient as the doer: the model's reading stands
OWN = [
    "Write a haiku about our release.",
    "What does a developer do all day? Answer in two sentences.",
    "Have the Designer write a haiku about our release.",
    "Write a short poem about a developer who never sleeps.",
]
# Asks that only mention a recipient, each with the agency's one agent so named: tool_calling
# 0.90 by the rule before (found in review), none has it do the work. The verb opens no
# clause ("should I ask the developer", "we have the developer"), no task follows the name
# ("in you shine", "the truth:", "the designer's"), or "Name:" heads no imperative.
MENTIONING = [
    ("Developer", "What questions should I ask the developer in a job interview?"),
    ("Developer", "Write a short story where we have the developer fall in love."),
    ("Writer", "Let the writer in you shine: write a poem about autumn."),
    ("Summary", "Summary: the meeting went well. Write a follow-up email."),
    ("Analyst", "How do I get the analyst role at a bank? Write me a cover letter."),
    ("Manager", "I need to talk to the manager about my raise; draft an email to HR."),
    ("Developer", "Developer: what does that word mean in Greek?"),
    ("Truth", "Tell the truth: is Python slower than Go?"),
    ("Designer", "Can you help me make the designer's mockup into HTML/CSS code?"),
    ("Developer", "developer: check the build for branch main."),
]


def with_ask(body: dict[str, Any], ask: str) -> dict[str, Any]:
    """A copy of the CEO's first-turn `body` with another ask."""
    other = copy.deepcopy(body)
    other["messages"][-1]["content"] = ask
    return other


def sending_to(names: list[str], ask: str) -> dict[str, Any]:
    """The CEO's first-turn body, its `send_message` sending to the agents `names`, asking
    `ask`."""
    body = with_ask(captured("ceo-tell-draft.json"), ask)
    body["tools"][0]["function"]["parameters"]["properties"]["recipient_agent"]["enum"] = names
    return body


def test_the_bodies_are_agency_swarms() -> None:
    """The CEO's requests offer `send_message` in agency-swarm's words, "Developer" its
    recipient; the Developer's offer its own tool, the CEO's message the ask."""
    for name in CEO:
        (tool,) = captured(name)["tools"]
        function = tool["function"]
        assert function["name"] == "send_message"
        assert function["description"].lstrip().startswith(DESCRIPTION_OPENING)
        recipient = function["parameters"]["properties"]["recipient_agent"]
        assert (recipient["description"], recipient["enum"]) == (
            RECIPIENT_DESCRIPTION,
            ["Developer"],
        )
        assert view(captured(name)).recipients == ("Developer",)
    for name in DEVELOPER:
        body = captured(name)
        assert [tool["function"]["name"] for tool in body["tools"]] == ["get_build_status"]
        assert view(body).recipients == ()


@pytest.mark.parametrize("name", sorted(CEO))
def test_the_ceos_delegating_ask_is_a_call_of_send_message(name: str) -> None:
    """Read as sent, the delegation is tool_calling by the rule, after the Developer's
    answer too (writing 0.87 by its words, before)."""
    body = captured(name)
    assert view(body).latest == CEO[name]
    assert_explained_by(body, RULE, "tool_calling")


@pytest.mark.parametrize("ask", DELEGATING)
def test_an_ask_that_has_a_recipient_do_it_asks_for_send_message(ask: str) -> None:
    assert_explained_by(with_ask(captured("ceo-tell-draft.json"), ask), RULE, "tool_calling")


@pytest.mark.parametrize("ask", OWN)
def test_an_ask_that_names_no_recipient_as_the_doer_keeps_its_reading(ask: str) -> None:
    """No rule decides it, the model reads it: not the name anywhere ("a developer"), nor
    an agent the tool does not offer ("the Designer")."""
    body = with_ask(captured("ceo-tell-draft.json"), ask)
    assert rule_intent(view(body)) is None, named(body)
    assert classify(body).source == "model", named(body)


@pytest.mark.parametrize(("agent", "ask"), MENTIONING)
def test_an_ask_that_only_mentions_a_recipient_keeps_its_reading(agent: str, ask: str) -> None:
    """Agents are named by roles, everyday words: the name where the ask only mentions it
    decides nothing, the model reads the ask."""
    body = sending_to([agent], ask)
    assert view(body).recipients == (agent,)
    assert rule_intent(view(body)) is None, named(body)
    assert classify(body).source == "model", named(body)


@pytest.mark.parametrize("name", DEVELOPER)
def test_the_developers_own_request_is_read_by_the_model(name: str) -> None:
    """The Developer's ask is the CEO's message ("Tell the Developer to draft a"), with its
    own tool offered and no `send_message`: read by the model, as before."""
    body = captured(name)
    assert rule_intent(view(body)) is None
    assert classify(body).source == "model"


def test_a_recipient_offering_send_message_on_is_read_by_its_own_recipients() -> None:
    """A Developer that may itself send to QA: its ask "Tell the Developer to draft a"
    names no agent it may send to."""
    body = captured("developer-tell-draft.json")
    forwarding = copy.deepcopy(captured("ceo-tell-draft.json")["tools"][0])
    forwarding["function"]["parameters"]["properties"]["recipient_agent"]["enum"] = ["QA"]
    body["tools"].append(forwarding)
    assert view(body).recipients == ("QA",)
    assert rule_intent(view(body)) is None
    assert_explained_by(
        with_ask(body, "Ask QA to test the login page."), WHY.format("QA"), "tool_calling"
    )


def test_another_apps_send_message_names_no_recipients() -> None:
    """Only agency-swarm's tool: the same schema described otherwise, or its recipient
    parameter described otherwise, names no agents, and the ask keeps its reading."""
    body = with_ask(captured("ceo-tell-draft.json"), DELEGATING[1])
    other_description = copy.deepcopy(body)
    other_description["tools"][0]["function"]["description"] = "Send a message to a teammate."
    other_field = copy.deepcopy(body)
    fields = other_field["tools"][0]["function"]["parameters"]["properties"]
    fields["recipient_agent"]["description"] = "Who gets it."
    for other in (other_description, other_field):
        assert view(other).recipients == ()
        assert rule_intent(view(other)) is None


def test_the_recipient_is_named_as_the_tool_names_it() -> None:
    """Matched as a word in any case, a name of two words over any space; not inside a
    longer word."""
    names = ("Developer", "Virtual Assistant")
    assert named_recipient(names, "have the virtual  assistant book it") == "Virtual Assistant"
    assert named_recipient(names, "tell the DEVELOPER to run it") == "Developer"
    assert named_recipient(names, "tell the Developers to run it") is None
    assert named_recipient((), "tell the Developer to run it") is None


@pytest.mark.parametrize(
    "entries",
    [
        [123] * NAMES + ["Developer"],  # no names
        ["QA"] * NAMES + ["Developer"],  # one name again and again
        [" ", "x" * 65, "QA", " QA "] * NAMES + ["Developer"],
    ],
    ids=["not-names", "duplicates", "mixed"],
)
def test_entries_that_are_no_new_name_hide_no_recipient(entries: list[Any]) -> None:
    """Counted before they were read, `NAMES` entries that are no name an agent may have, or
    a name again, hid the agents after them (found in review): "Developer" went unread."""
    body = sending_to(entries, HAVE)
    assert view(body).recipients[-1] == "Developer"
    assert_explained_by(body, RULE, "tool_calling")


def test_a_name_is_matched_casefolded() -> None:
    """As `str.casefold` compares them, not `lower`: "STRASSE" is "Straße"."""
    assert named_recipient(("Straße",), "Tell STRASSE to check the build.") == "Straße"
    assert named_recipient(("STRASSE",), "Tell Straße to check the build.") == "STRASSE"


def test_many_recipients_are_looked_up_not_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """64 tools of 32 names of 64 characters each (a 238 KB body) compiled into one pattern
    per tool list took 1.3 s and about 10 MB each (found in review). Now the first `NAMES`
    names are read, and looked up in the ask with no pattern compiled per request."""
    tool = captured("ceo-tell-draft.json")["tools"][0]
    tools = []
    for t in range(64):
        many = copy.deepcopy(tool)
        many["function"]["name"] = f"send_message_{t}"
        enum = [f"Agent {t:02d} {n:02d} " + "x" * 50 for n in range(32)]
        many["function"]["parameters"]["properties"]["recipient_agent"]["enum"] = enum
        tools.append(many)
    body = {**captured("ceo-tell-draft.json"), "tools": tools}
    seen = view(body).recipients
    assert len(seen) == NAMES
    assert seen[0] == "Agent 00 00 " + "x" * 50

    def no_compile(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a pattern compiled per request: {args!r:.80}")

    monkeypatch.setattr(re, "compile", no_compile)
    ask = f"Tell agent 00 01 {'x' * 50} to check the build."
    assert named_recipient(seen, ask) == seen[1]
    assert named_recipient(seen, "Tell agent 63 31 to check the build.") is None
    assert named_recipient(seen, "Have the Developer check the build.") is None
