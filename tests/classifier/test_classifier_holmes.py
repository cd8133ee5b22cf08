"""HolmesGPT's questions are read without the paragraph on time, and the skill block, it
appends to them (`classifier.holmes`); its conversation key still hashes them.

Found running HolmesGPT 0.45.0 against the router: read with "When querying tools, always
query for the relevant time period. The current UTC date and time are ...", "Write a short
haiku about on-call engineers." was prose 0.24, under `min_confidence` (0.99 alone), and
"Why is my checkout pod in CrashLoopBackOff?" tool_calling 0.51 (reasoning 0.72 alone). The
bodies are HolmesGPT's, trimmed (`tests/fixtures/holmesgpt-0.45.0.md`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify, holmes
from classifier.request import view, view_cut
from router.conversation import conversation_key
from tests import recorded as recordings

RECORDED = recordings.FIXTURES / "holmesgpt-0.45.0"
recorded = recordings.loader(RECORDED)
HAIKU = "Write a short haiku about on-call engineers."
QUESTION = "What is the difference between a Deployment and a StatefulSet in Kubernetes?"
TIME = "2026-12-07 14:10:52.896984+00:00"
# The skill block `base_user_prompt.jinja2` renders before the paragraph when skills exist,
# as 0.45.0 renders it for a one-entry catalog and global instructions
SKILLS = (
    "\n\n\n# Skill Selection\n\nYou (HolmesGPT) have access to skills with step-by-step"
    " troubleshooting instructions.\nIf one of the following skills relates to the user's"
    " issue or matches one of the alerts or symptoms listed in the skill entry, fetch it with"
    " the fetch_skill tool. Only fetch skills that clearly match — do not fetch"
    " speculatively.\nYou (HolmesGPT) must follow skill sources in this priority order:\n1)"
    " Skill Catalog (priority #1)\n2) Global Instructions (priority #2)\n## Skill Catalog"
    " (priority #1)* id: crashloop\n     desc: a pod restarting in CrashLoopBackOff\n## Global"
    " Instructions (priority #2)Check the runbook first.\n\n\nIf a skill clearly matches the"
    " user's issue:\n1. Fetch the skill with the `fetch_skill` tool.\n2. Decide based on the"
    " skill's contents if it is relevant or not."
)


def first_message(body: dict[str, Any]) -> str:
    content = body["messages"][1]["content"]
    assert isinstance(content, str)
    return content


def asking(question: str, *, skills: bool = False) -> dict[str, Any]:
    """`question.json` asking `question`, its paragraph after it as HolmesGPT appends it (the
    skill block before the paragraph when `skills`)."""
    body = recorded("question.json")
    paragraph = first_message(body)[len(QUESTION) :]
    if skills:
        paragraph = SKILLS + paragraph[2:]
    body["messages"][1]["content"] = question + paragraph
    return body


def alone(body: dict[str, Any], question: str) -> dict[str, Any]:
    """`body` with its first message `question` alone."""
    other = copy.deepcopy(body)
    other["messages"][1]["content"] = question
    return other


def test_a_question_is_read_without_the_paragraph() -> None:
    """Read with it, prose 0.24, under `min_confidence`: sent by the default route."""
    body = recorded("haiku.json")
    assert first_message(body).startswith(HAIKU + "\n\n\n\nWhen querying tools, always query")
    seen, latest_cut, _ = view_cut(body)
    assert (seen.latest, seen.harness_cut, latest_cut) == (HAIKU, False, False)
    intent = classify(body)
    assert (intent.label, intent.source) == ("prose", "model")
    assert intent.confidence > 0.9


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("Why is my checkout pod in CrashLoopBackOff?", "reasoning"),
        ("Write a postmortem for yesterday's outage of the checkout service.", "writing"),
        (
            "Compute how many replicas I need for 1200 requests per second if a pod handles 150.",
            "math",
        ),
        (QUESTION, "reasoning"),
    ],
)
def test_a_question_reads_as_it_does_alone(question: str, label: str) -> None:
    """CrashLoopBackOff was tool_calling 0.51, the postmortem tool_calling, the replicas math
    0.43 (0.86 alone), the Deployment question coding, each read with the paragraph."""
    body = asking(question)
    intent, by_itself = classify(body), classify(alone(body, question))
    assert (intent.label, intent.confidence) == (by_itself.label, by_itself.confidence)
    assert intent.label == label


def test_the_skill_block_is_cut_with_the_paragraph() -> None:
    body = asking(HAIKU, skills=True)
    assert "# Skill Selection" in first_message(body)
    assert view(body).latest == HAIKU
    assert classify(body).label == "prose"


def test_an_attached_file_is_kept() -> None:
    """`-f app.log`'s block is the question's, before the paragraph."""
    body = recorded("crash-file.json")
    assert view(body).latest.endswith("exiting (code 137)\n\n</attached-file>")


def test_a_sessions_first_question_is_read_without_it() -> None:
    """An interactive session's later turns carry no paragraph; its first question, read as
    the first ask beside the latest, is read without it."""
    seen = view(recorded("session.json"))
    assert seen.latest == "Write a short haiku about it."
    assert seen.first.startswith("Why did my api service crash? See the attached log.")
    assert seen.first.endswith("</attached-file>")


def test_the_conversation_key_keeps_the_paragraph() -> None:
    """The time in it keeps two runs of one question two conversations; a session's later
    requests keep its first question as sent, so its key holds."""
    run = recorded("haiku.json")
    again = copy.deepcopy(run)
    again["messages"][1]["content"] = first_message(run).replace(
        TIME, "2026-12-07 14:12:03.118204+00:00"
    )
    assert view(run).latest == view(again).latest
    assert conversation_key(run, {}, "c") != conversation_key(again, {}, "c")
    session = recorded("session.json")
    opening = {**session, "messages": session["messages"][:2]}
    assert conversation_key(opening, {}, "c") == conversation_key(session, {}, "c")


def test_another_apps_question_is_read_as_written() -> None:
    """The paragraph's words under another system prompt are the user's."""
    body = recordings.with_system(recorded("haiku.json"), "You are a helpful assistant.")
    assert view(body).latest.endswith("unless context suggests otherwise.")


def test_the_paragraph_quoted_early_in_a_long_question_is_kept() -> None:
    """The paragraph is looked for in the last `NOTE_WITHIN` characters alone: a question
    that quotes its sentence further back is read up to the paragraph HolmesGPT appends,
    the quote and all the user wrote after it kept. Read as the question alone is."""
    quote = (
        "Our own agent's prompt copies yours:\n\nWhen querying tools, always query for the"
        " relevant time period. The current UTC date and time are filled in at run time.\n\n"
    )
    services = ("checkout", "payments", "search", "cart", "ledger", "notifications")
    lines = [f"- {s}: p99 latency doubled after the 02:00 deploy" for s in services * 6]
    question = quote + "\n".join(lines) + "\nWhich of these should I look at first, and why?"
    assert len(question) - question.index(holmes.NOTE_OPENING) > holmes.NOTE_WITHIN
    body = asking(question)
    assert view(body).latest == view(alone(body, question)).latest  # a long text's view is cut
    assert holmes.without_note(first_message(body)) == question
