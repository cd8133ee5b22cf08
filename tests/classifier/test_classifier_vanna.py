"""Vanna's SQL prompt asks for SQL, its example pairs are no asks, and its Agent's asks are
for its tools (`classifier.vanna`).

vanna 2.0.2's legacy `generate_sql` sends `get_sql_prompt`'s system prompt, its trained
question-SQL pairs as user and assistant turns, then the question: read by its topic, "What is
the total revenue per country?" was math 0.797 and went to the cloud, and the trained pair
was read as every question's first ask. Its Agent's "What is the total revenue per
country?", which it answers with `run_sql`, was math 0.402 (found running vanna against the
router). The bodies are the ones it sent (`tests/fixtures/vanna-2.0.2.md`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify
from classifier.asks import first_ask
from classifier.decision import explain
from classifier.fixed import CODE_ANSWER_READING
from classifier.request import view
from classifier.rules import CODE_ANSWER, TOOL_AGENT
from tests import recorded
from tests.classifier.fixed_readings import assert_decided_by

FIXTURES = recorded.FIXTURES / "vanna-2.0.2"
# Each `generate_sql` body and its question, the prompt's last message
QUESTIONS = {
    "generate-sql-revenue.json": "What is the total revenue per country?",
    "generate-sql-top3.json": "Who are the top 3 customers by revenue?",
    "generate-sql-march.json": "What is the average order amount in March 2024?",
    "generate-sql-most-customers.json": "Which country has the most customers?",
    "generate-sql-join.json": (
        "Write a SQL query that lists every customer with their orders, joining the two tables."
    ),
}
REVENUE = QUESTIONS["generate-sql-revenue.json"]
DDL = "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL)"
DOC = "Amounts are in EUR. A customer's revenue is the sum of their orders' amounts."
# The tables and the documentation, as `add_ddl_to_prompt` and `add_documentation_to_prompt`
# append them
CONTEXT = f"\n===Tables \n{DDL}\n\n\n===Additional Context \n\n{DOC}\n\n"
GUIDELINES = (  # `get_sql_prompt`'s, 0.5.0 to 2.x: the first five
    "===Response Guidelines \n"
    "1. If the provided context is sufficient, please generate a valid SQL query without any"
    " explanations for the question. \n"
    "2. If the provided context is almost sufficient but requires knowledge of a specific"
    " string in a particular column, please generate an intermediate SQL query to find the"
    " distinct strings in that column. Prepend the query with a comment saying"
    " intermediate_sql \n"
    "3. If the provided context is insufficient, please explain why it can't be generated. \n"
    "4. Please use the most relevant table(s). \n"
    "5. If the question has been asked and answered before, please repeat the answer exactly"
    " as it was given before. \n"
)


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


def opening(dialect: str) -> str:
    """`get_sql_prompt`'s own opening, 0.5.0 to 2.x."""
    return (
        f"You are a {dialect} expert. Please help to generate a SQL query to answer the"
        " question. Your response should ONLY be based on the given context and follow the"
        " response guidelines and format instructions. "
    )


def sql_prompt(dialect: str, version: str, start: str | None = None) -> str:
    """`get_sql_prompt`'s system prompt as `version` writes it (0.3.4, 0.5.5, 0.6.6 to
    2.0.2), over one table and one documentation line; `start` in place of its opening, as
    the `initial_prompt` config sets it."""
    if version == "0.3.4":
        start = start or (
            "The user provides a question and you provide SQL. You will only respond with SQL"
            " code and not with any explanations.\n\nRespond with only SQL code. Do not answer"
            " with any explanations -- just the code.\n"
        )
        return start + CONTEXT
    text = (start or opening(dialect)) + CONTEXT + GUIDELINES
    if version != "0.5.5":
        text += (
            f"6. Ensure that the output SQL is {dialect}-compliant and executable, and free of"
            " syntax errors. \n"
        )
    return text


def asked(system: str, ask: str, pairs: int = 1) -> dict[str, Any]:
    """vanna's `generate_sql` body: the system prompt, `pairs` trained pairs, the ask."""
    examples = [
        {"role": "user", "content": "How many customers are there?"},
        {"role": "assistant", "content": "SELECT COUNT(*) FROM customers;"},
    ]
    messages = [{"role": "system", "content": system}, *examples * pairs]
    messages.append({"role": "user", "content": ask})
    return {"model": "auto", "messages": messages, "stop": None, "temperature": 0.7}


@pytest.mark.parametrize("name", QUESTIONS)
def test_generate_sqls_question_is_coding_and_its_only_ask(name: str) -> None:
    """Read by the question alone (the trained pair passed over), and coding by the rule:
    the reply is SQL."""
    body = captured(name)
    seen = view(body)
    assert (seen.latest, seen.first, seen.fixed == CODE_ANSWER_READING) == (
        QUESTIONS[name],
        "",
        True,
    )
    assert first_ask(body["messages"]) is body["messages"][-1]
    assert_decided_by(body, CODE_ANSWER_READING, CODE_ANSWER, "coding")


@pytest.mark.parametrize(
    ("dialect", "version"),
    [
        ("SQLite", "2.0.2"),
        ("PostgreSQL", "0.7.9"),
        ("T-SQL / Microsoft SQL Server", "0.6.6"),
        ("SQL", "0.5.5"),
        ("Snowflake SQL", "0.3.4"),
    ],
)
def test_every_versions_sql_prompt_asks_for_sql(dialect: str, version: str) -> None:
    """Each version's template and dialect, with two trained pairs or none."""
    for pairs in (0, 2):
        body = asked(sql_prompt(dialect, version), REVENUE, pairs)
        seen = view(body)
        assert (seen.latest, seen.first, seen.fixed == CODE_ANSWER_READING) == (REVENUE, "", True)
        assert classify(body).label == "coding"


def test_a_configured_opening_with_vannas_guidelines_asks_for_sql() -> None:
    """The `initial_prompt` config replaces the opening; the guidelines still end it."""
    start = "You answer questions about our shop's orders with a query."
    assert classify(asked(sql_prompt("SQLite", "2.0.2", start), REVENUE)).label == "coding"


def test_lookalikes_and_vannas_other_prompts_are_read_as_written() -> None:
    """Only the whole template counts: a user's own "You are a SQL expert" prompt that asks
    for an explanation, vanna's opening without its guidelines, the guidelines with words of
    the user's after them, the old opening not at the start. vanna's plotly, follow-up and
    summary prompts ask for what they say."""
    assert classify(asked(sql_prompt("SQL", "2.0.2"), REVENUE)).source == "rule"
    guidelines = sql_prompt("SQL", "2.0.2")
    lookalikes = [
        "You are a SQL expert. Explain in plain words what the user's query does and why.",
        opening("SQL") + "Explain your answer step by step.",
        guidelines + "\nAlso explain the query in plain words.",
        "Reply briefly.\n" + sql_prompt("SQL", "0.3.4"),
    ]
    for system in lookalikes:
        body = asked(system, REVENUE)
        seen = view(body)
        assert seen.fixed != CODE_ANSWER_READING
        assert seen.first == "How many customers are there?"  # no example passed over
        assert classify(body).source == "model"
    for name in ("plotly-code.json", "followup-questions.json", "summary.json"):
        assert view(captured(name)).fixed != CODE_ANSWER_READING


def test_the_pairs_are_passed_over_only_in_vannas_prompt() -> None:
    """In another chat, an earlier user turn with a reply after it is the first ask."""
    body = captured("generate-sql-revenue.json")
    assert first_ask(body["messages"]) is body["messages"][-1]
    other = copy.deepcopy(body)
    other["messages"][0]["content"] = "You are a helpful assistant."
    assert first_ask(other["messages"]) is other["messages"][1]
    assert view(other).first == "How many customers are there?"


@pytest.mark.parametrize(
    "name", ["agent-first-turn.json", "agent-after-run-sql.json", "agent-second-question.json"]
)
def test_vannas_agent_asks_for_its_tools(name: str) -> None:
    """Its data questions, and its turn after `run_sql`'s result: tool_calling, by the
    rule of its session."""
    body = captured(name)
    why = explain(body)
    assert (why["intent"], why["source"]) == ("tool_calling", "rule")
    assert why["rule"].startswith(TOOL_AGENT)
    assert why["model_intent"] == "math"  # the ask itself read as before
    assert view(body).tool_agent is True


def test_vannas_agent_needs_its_identity_and_its_tools() -> None:
    """Without Vanna's identity, without one of its tools, or with tools turned off, the
    ask is read as it was; and in its session an ask clearly of other work stays so."""
    body = captured("agent-first-turn.json")
    assert classify(body).label == "tool_calling"
    weather = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
    variants = [copy.deepcopy(body) for _ in range(3)]
    variants[0]["messages"][0]["content"] = "You are a helpful data analyst."
    variants[1]["tools"] = [weather]
    variants[2]["tool_choice"] = "none"
    for variant in variants:
        assert view(variant).tool_agent is False
        assert classify(variant).source == "model"
    haiku = copy.deepcopy(body)
    haiku["messages"][1]["content"] = "Write a haiku about autumn leaves."
    assert classify(haiku).label == "prose"
