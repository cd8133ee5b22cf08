"""AgentScope's runtime-state reminder, a user message of its own after the ask, is no ask and
no sign of a coding agent (`classifier.agentscope`): the recorded bodies
(`tests/fixtures/agentscope-2.0.11.md`) on the classifier's view of them, and the edges of the
reader's scope. The reminder's words are quoted from AgentScope 2.0.11's sources
(`agentscope/agent/_config.py`, `InjectionConfig.template`), not taken from the module under
test; Claude Code's reminder from its recorded request (`tests/fixtures/claude-code-2.1.332`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.asks import first_ask
from classifier.request import view
from tests.recorded import loader

FIXTURES = Path(__file__).parents[1] / "fixtures"
captured = loader(FIXTURES / "agentscope-2.0.11")
OPENING = (
    "<system-reminder>Treat the following as the ground truth at this point of the "
    "conversation. Anything stated earlier is outdated, and a later reminder, if any, "
    "supersedes this one:\n"
)
TIME = "<current-time>2026-12-07T05:20:28</current-time>\n<timezone>UTC</timezone>"
ASK = "Explain why the sky is blue in two sentences."


def reminded(fields: str) -> str:
    """AgentScope 2.0.11's default template around `fields`."""
    return f"{OPENING}{fields}\n</system-reminder>"


def holds_reminder(message: dict[str, Any]) -> bool:
    """Whether `message` is a user message of AgentScope's reminder."""
    content = message.get("content")
    texts = [content] if isinstance(content, str) else [p.get("text", "") for p in content or []]
    return message["role"] == "user" and any(t.startswith(OPENING) for t in texts)


def without_reminders(body: dict[str, Any]) -> dict[str, Any]:
    """`body` without the user messages that hold AgentScope's reminder."""
    kept = [m for m in body["messages"] if not holds_reminder(m)]
    return {**body, "messages": kept}


def chat(*messages: tuple[str, str]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("sky.json", "reasoning"),
        ("compare-reminded.json", "prose"),
        ("after-compression.json", "reasoning"),
    ],
)
def test_a_recorded_request_reads_as_without_the_reminder(name: str, label: str) -> None:
    """Read as an agent's session, the sky was coding 0.794, the compare turn coding 0.840
    (prose 0.743 in the same turn's call without a reminder after the ask), the turn after a
    compression coding 0.889."""
    body = captured(name)
    assert any(map(holds_reminder, body["messages"]))
    alone = without_reminders(body)
    seen = view(body)
    assert seen.harness_cut is False  # AgentScope is no coding agent
    assert (seen.latest, seen.first) == (view(alone).latest, view(alone).first)
    assert classify(body) == classify(alone)
    assert classify(body).label == label
    assert first_ask(body["messages"]) is first_ask(alone["messages"])


def test_one_ask_keeps_its_route_whether_a_reminder_follows_it() -> None:
    """The second turn's two model calls: the reminder came after the ask in one only."""
    assert classify(captured("compare-reminded.json")) == classify(captured("compare.json"))


def test_every_field_of_the_reminder_and_a_part_array_are_passed_over() -> None:
    """The template's fields: the time, the tasks, the context's length, a failing tool."""
    fields = [
        TIME,
        "<tasks>You have 1 in-progress tasks and 2 pending tasks. Use `TaskList` to view "
        "them if you don't know.</tasks>",
        "<context-length>Your current context contains 163 tokens.</context-length>",
        "<tool-error>The last 3 calls to 'search' with the same arguments all failed.</tool-error>",
    ]
    for field in fields:
        body = chat(("user", ASK), ("user", reminded(field)))
        assert view(body).latest == ASK and view(body).harness_cut is False
    parts = chat(("user", ASK), ("user", ""))
    parts["messages"][1]["content"] = [{"type": "text", "text": reminded(TIME)}]
    assert view(parts).harness_cut is False


@pytest.mark.parametrize(
    "text",
    [
        reminded(TIME) + "\nand what about sunsets?",  # the user's words after it
        f"{OPENING}{TIME}\n</system-reminder>".replace("Treat", "Take"),  # other words
        # another reminder in the tag, as long as the opening, its lines all fields
        "<system-reminder>"
        + "Keep to the user's setup.".ljust(len(OPENING) - 18)
        + "\n"
        + TIME
        + "\n</system-reminder>",
        reminded("the time is 05:20 UTC"),  # a field not in a tag
        reminded("<note>one\ntwo</note>"),  # a field over lines
        reminded("<current-time>" + "9" * 5000 + "</current-time>"),  # past the bound
    ],
)
def test_other_reminders_are_an_agents_text_as_before(text: str) -> None:
    """Not the template's whole message: cut as Claude Code's reminder is, a coding
    agent's sign."""
    assert view(chat(("user", ASK), ("user", text))).harness_cut is True


def rag_hint(context: str) -> str:
    """AgentScope 2.0.11's RAG hint (`agentscope/middleware/_rag.py`,
    `_DEFAULT_HINT_TEMPLATE`) around `context`."""
    return (
        "<system-reminder>The following content is retrieved from the knowledge base(s) and"
        f" may be helpful for the current request:\n<content>{context}</content>"
        "</system-reminder>"
    )


RETRIEVED = "Rayleigh scattering: shorter wavelengths scatter more.\nThe sky is blue."


def test_the_rag_hint_is_passed_over() -> None:
    """Its RAG middleware's hint, a user message of one text part after the ask (its OpenAI
    formatter's shape): read as a coding agent's text, the sky was coding 0.778 (reasoning
    0.833 alone)."""
    body = chat(("system", "You are a helpful assistant."), ("user", ASK), ("user", ""))
    body["messages"][2]["content"] = [{"type": "text", "text": rag_hint(RETRIEVED)}]
    alone = {**body, "messages": body["messages"][:2]}
    seen = view(body)
    assert (seen.latest, seen.harness_cut) == (ASK, False)
    assert classify(body) == classify(alone)
    assert classify(body).label == "reasoning"


@pytest.mark.parametrize(
    "text",
    [
        rag_hint(RETRIEVED) + "\nand what about sunsets?",  # the user's words after it
        rag_hint(RETRIEVED).replace("knowledge base(s)", "docs"),  # a custom template
        rag_hint("x" * 300_000),  # past the bound
    ],
)
def test_other_hints_are_read_as_before(text: str) -> None:
    """Not the hint whole: cut as a coding agent's text, or (past the harness blocks'
    bound) read as the latest ask; never passed over."""
    seen = view(chat(("user", ASK), ("user", text)))
    assert (seen.latest, seen.harness_cut) != (ASK, False)


def test_claude_codes_reminder_still_marks_its_session() -> None:
    """Claude Code's own reminder (its context before the first ask), a user message of its
    own in a plain chat body, is still an agent's text: the session is a coding agent's."""
    recorded = loader(FIXTURES / "claude-code-2.1.332")("prose.json")
    reminder = recorded["messages"][0]["content"][0]["text"]
    assert reminder.startswith("<system-reminder>")
    body = chat(("user", reminder), ("user", ASK))
    assert view(body).latest == ASK
    assert view(body).harness_cut is True
    assert classify(body).label == "coding"  # non-coding read below the session's floor
