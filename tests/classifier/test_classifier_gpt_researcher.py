"""gpt-researcher's report request is writing by one rule, whatever its research found, and
its sub-query request is read by the task quoted inside (`classifier.gpt_researcher`).

Read as written (gpt-researcher 0.15.1 against the router), the report followed its
documents: writing 0.48 (cloud) with them, instruction 0.55 (local) with none
(`Information: "[]"`), instruction 0.51 (local) in its retry that folds the role prompt into
the user message; and every sub-query prompt was instruction, "prove sqrt 2 irrational"
too (math 0.98 alone). The bodies are the ones gpt-researcher sent
(`tests/fixtures/gpt-researcher-0.15.1.md`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify
from classifier.fixed import RESEARCH_REPORT_READING
from classifier.gpt_researcher import DEFAULT_ROLE, ROLE_SPAN
from classifier.request import view
from classifier.rules import RESEARCH_REPORT
from router.conversation import conversation_key
from tests import recorded
from tests.classifier.fixed_readings import (
    assert_decided_by,
    assert_explained_by,
    assert_read_by_model,
)

FIXTURES = recorded.FIXTURES / "gpt-researcher-0.15.1"
REPORTS = [
    "report-documents.json",
    "report-sources.json",
    "report-empty.json",
    "report-folded.json",
]
QUERY = "What do the documents say about heat pumps in cold climates and their effect on the grid?"
DOCUMENT = "When many homes switch to heat pumps, winter peak electricity demand rises."
# Finding 2 of the review: each ask alone, and inside the sub-query prompt (instruction, local)
ASKS = [
    "write a cli snake game",
    "1500-word essay on the Roman Empire",
    "prove sqrt 2 irrational",
]

captured = recorded.loader(FIXTURES)


def writing_by_rule(body: dict[str, Any]) -> None:
    """`body` is writing by `RESEARCH_REPORT`."""
    assert_decided_by(body, RESEARCH_REPORT_READING, RESEARCH_REPORT, "writing", 0.97)
    assert_explained_by(body, RESEARCH_REPORT, "writing")


def read_as_written(body: dict[str, Any]) -> None:
    """`body` is no report request of gpt-researcher's: the model reads it."""
    assert_read_by_model(body, RESEARCH_REPORT_READING)


def replaced(name: str, old: str, new: str) -> dict[str, Any]:
    """The recorded `name` with `old` in its last message replaced by `new`."""
    body = copy.deepcopy(captured(name))
    message = body["messages"][-1]
    assert old in message["content"]
    message["content"] = message["content"].replace(old, new)
    return body


def alone(ask: str) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": "user", "content": ask}]}


@pytest.mark.parametrize("name", REPORTS)
def test_every_report_request_is_writing_by_the_rule(name: str) -> None:
    writing_by_rule(captured(name))


@pytest.mark.parametrize(
    "document",
    [
        "Prove that the square root of 2 is irrational.",
        "def reverse(items):\n    return items[::-1]\n",
        "[]",
    ],
)
def test_what_the_research_found_does_not_route_the_report(document: str) -> None:
    """With no documents the report went local as instruction (found in review)."""
    writing_by_rule(replaced("report-documents.json", DOCUMENT, document))
    writing_by_rule(replaced("report-folded.json", DOCUMENT, document))


def test_another_agents_role_prompt_is_its_report_too() -> None:
    """The agent choice writes the role prompt (a finance agent's, say): the report is the
    same work under it, and in its retry folded before the report."""
    role = "You are a seasoned finance analyst AI assistant."
    writing_by_rule(recorded.with_system(captured("report-documents.json"), role))
    writing_by_rule(replaced("report-folded.json", DEFAULT_ROLE, role))


def test_the_captured_sub_query_request_is_read_by_its_task() -> None:
    body = captured("subqueries.json")
    assert view(body).latest == QUERY
    assert classify(body) == classify(alone(QUERY))
    assert classify(body).label != "instruction"


@pytest.mark.parametrize("ask", ASKS)
def test_a_sub_query_request_reads_as_its_task_alone(ask: str) -> None:
    """Read whole, each was instruction (0.74-0.86, local)."""
    body = replaced("subqueries.json", QUERY, ask)
    assert view(body).latest == ask
    assert classify(body) == classify(alone(ask))


def test_a_tasks_sub_queries_are_one_conversation_apart_from_a_chat() -> None:
    """Keyed by its task, marked as gpt-researcher's: the date in its prompt no longer keys
    one day's sub-queries apart from the next's, and a chat asking the task's words alone
    is another conversation."""
    today = captured("subqueries.json")
    tomorrow = replaced("subqueries.json", "December 07, 2026", "December 08, 2026")
    assert conversation_key(today, {}, "c") == conversation_key(tomorrow, {}, "c")
    assert conversation_key(today, {}, "c") != conversation_key(alone(QUERY), {}, "c")
    other = replaced("subqueries.json", QUERY, ASKS[0])
    assert conversation_key(other, {}, "c") != conversation_key(today, {}, "c")


def test_the_agent_choice_is_read_as_written() -> None:
    body = captured("agent-choice.json")
    assert view(body).fixed is None
    assert view(body).latest == "task: " + QUERY


def test_the_bodies_are_gpt_researchers() -> None:
    """Its texts, quoted from gpt-researcher 0.15.1's `prompts.py` and `agent_creator.py`,
    where it puts them."""
    documents = captured("report-documents.json")
    assert documents["messages"][0] == {"role": "system", "content": DEFAULT_ROLE}
    assert documents["messages"][1]["content"].startswith('\nInformation: "Source: grid.txt')
    assert documents["stream"] is True
    empty = captured("report-empty.json")["messages"][1]["content"]
    assert empty.startswith('\nInformation: "[]"\n---\nUsing the above information')
    folded = captured("report-folded.json")["messages"]
    assert len(folded) == 1 and folded[0]["content"].startswith(DEFAULT_ROLE + "\n\n\nInformation")
    sub = captured("subqueries.json")["messages"]
    assert len(sub) == 1
    assert sub[0]["content"].startswith(
        f'Write 3 search queries to research the following task: "{QUERY}"'
    )


def test_its_texts_elsewhere_are_read_as_written() -> None:
    """Only gpt-researcher's prompts whole, where it sends them: a chat that pastes the
    report's prompt after earlier turns, or with words after it, or under a role prompt too
    long to be one; the sub-query prompt with words after it, or after a system message."""
    report = captured("report-documents.json")
    chat = copy.deepcopy(report)
    chat["messages"][1:1] = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello! How can I help?"},
    ]
    read_as_written(chat)
    more = copy.deepcopy(report)
    more["messages"][1]["content"] += "\nAlso, what is 17 * 23?"
    read_as_written(more)
    long_role = replaced("report-folded.json", DEFAULT_ROLE, "x" * ROLE_SPAN)
    read_as_written(long_role)
    sub = captured("subqueries.json")
    extra = copy.deepcopy(sub)
    extra["messages"][0]["content"] += "\nThen prove that sqrt 2 is irrational."
    assert view(extra).latest != QUERY
    system = copy.deepcopy(sub)
    system["messages"].insert(0, {"role": "system", "content": "You are a helpful assistant."})
    assert view(system).latest != QUERY
