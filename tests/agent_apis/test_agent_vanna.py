"""Vanna's questions go to the local backend: its SQL prompt's as coding, each a
conversation of its own, and its Agent's as tool_calling (`classifier.vanna`).

vanna 2.0.2's legacy `generate_sql` sends its SQL prompt, its trained question-SQL pairs,
then the question: "What is the total revenue per country?" was math and went to the cloud,
and every question of a trained instance was one conversation, keyed by the trained pair,
so one cloud turn's sticky pin held them all (a question asking for a SQL join, coding
0.967, was served by the cloud). Its Agent's same question, which it answers with `run_sql`,
was math 0.402, on the cloud (found running vanna against the router). The bodies are the
ones it sent (`tests/fixtures/vanna-2.0.2.md`); real sockets, the official SDK, a real
DuckDB ledger, the simulators as backends.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier.rules import CODE_ANSWER, TOOL_AGENT
from tests import recorded
from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served, served_as_read
from tests.agent_apis.sticky_stack import ledger_rows, pinned_headers
from tests.harness import Collect, RunningRouter

FIXTURES = recorded.FIXTURES / "vanna-2.0.2"
QUESTIONS = {
    "generate-sql-revenue.json": "What is the total revenue per country?",
    "generate-sql-top3.json": "Who are the top 3 customers by revenue?",
    "generate-sql-march.json": "What is the average order amount in March 2024?",
    "generate-sql-most-customers.json": "Which country has the most customers?",
    "generate-sql-join.json": (
        "Write a SQL query that lists every customer with their orders, joining the two tables."
    ),
}
AGENT = ["agent-first-turn.json", "agent-after-run-sql.json", "agent-second-question.json"]
KEYS = {"legacy": "sk-vanna-legacy-7d2a"}


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


@pytest.mark.parametrize("name", QUESTIONS)
def test_generate_sqls_question_is_coding_on_the_local_backend(
    default_proxy: RunningRouter, name: str
) -> None:
    """Read by the question alone, the trained pair passed over; coding by the rule."""
    plan = served_as_read(default_proxy, captured(name), QUESTIONS[name], ("coding", "local"))
    assert (plan["classifier"]["source"], plan["classifier"]["rule"]) == ("rule", CODE_ANSWER)


def test_a_users_own_sql_expert_prompt_is_read_as_written(default_proxy: RunningRouter) -> None:
    """Asking for an explanation, the same question is the model's reading: math, the
    cloud, where vanna's prompt sends it to the local backend as coding."""
    body = captured("generate-sql-revenue.json")
    assert served(default_proxy, body) == ("coding", "local")
    own = copy.deepcopy(body)
    own["messages"][0]["content"] = (
        "You are a SQL expert. Explain in plain words what the user's query does and why."
    )
    assert explained(default_proxy, own)["classifier"]["source"] == "model"
    assert served(default_proxy, own)[1] == "cloud"


def test_each_question_is_a_conversation_of_its_own(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Four questions of one trained instance, one asked twice: a conversation per
    question in the ledger (the same question's two requests one), each served locally."""
    names = [
        "generate-sql-revenue.json",
        "generate-sql-top3.json",
        "generate-sql-march.json",
        "generate-sql-join.json",
        "generate-sql-revenue.json",
    ]
    headers = [pinned_headers(pinning, KEYS["legacy"], captured(name)) for name in names]
    rows = ledger_rows(pinning[0], [h["x-request-id"] for h in headers])
    conversations = [row[1] for row in rows]
    assert None not in conversations
    assert len(set(conversations[:4])) == 4 and conversations[4] == conversations[0]
    assert [(h["x-smf-intent"], h["x-smf-backend"]) for h in headers] == [("coding", "local")] * 5


@pytest.mark.parametrize("name", AGENT)
def test_the_agents_asks_are_tool_calling_on_the_local_backend(
    default_proxy: RunningRouter, name: str
) -> None:
    """Its questions and its turn after `run_sql`'s result: tool_calling by the rule of its
    session, served locally."""
    body = captured(name)
    assert served(default_proxy, body) == ("tool_calling", "local")
    why = explained(default_proxy, body)["classifier"]
    assert why["source"] == "rule" and why["rule"].startswith(TOOL_AGENT)
