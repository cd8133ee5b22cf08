"""fast-agent's router's call and its orchestrator's planning call are instruction by one
rule, whatever the query or objective (`classifier.fast_agent`).

Read as written (fast-agent 0.2.36 against the router), the router's call went where the
query's topic or the agents' descriptions led: "What is 3 plus 4?" instruction 0.349 (below
`min_confidence`: the default route), "Write a haiku about the sea" prose 0.62 (cloud); the
planner was prose for a haiku objective and coding for a Python one. The bodies are the ones
fast-agent sent (`tests/fixtures/fast-agent-mcp-0.2.36.md`).
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier.fast_agent import PLAN_PARTS, ROUTER_OPENINGS, ROUTING, ROUTING_PARTS
from classifier.fixed import AGENT_CHOICE_READING
from classifier.rules import AGENT_CHOICE
from classifier.templates import fills
from router.config import DEFAULT_ROUTES
from tests import recorded
from tests.classifier.fixed_readings import (
    assert_decided_by,
    assert_explained_by,
    assert_read_by_model,
)

FIXTURES = recorded.FIXTURES / "fast-agent-mcp-0.2.36"
ROUTER = ["router.json", "router-haiku.json"]
PLANNER = ["plan-full.json", "plan-iterative.json"]
# fast-agent's other calls: the work itself, or read evenly by the model
OTHERS = ["evaluate.json", "refine.json", "synthesize.json", "critic.json"]
OBJECTIVE = "Add 2 and 3, then write a poem about the result."
TOPICS = [
    "Prove that the square root of 2 is irrational.",
    "Write a haiku about the sea",
    "Write a Python function that reverses a list",
    "What is the weather in Paris?",
    "Draft an email to my landlord about the broken heater",
    "Integrate x^2 from 0 to 3",
]

captured = recorded.loader(FIXTURES)


def agent_choice_by_rule(body: dict[str, Any]) -> None:
    """`body` is instruction by `AGENT_CHOICE`, routed local."""
    intent = assert_decided_by(body, AGENT_CHOICE_READING, AGENT_CHOICE, "instruction", 0.97)
    assert_explained_by(body, AGENT_CHOICE, "instruction")
    assert DEFAULT_ROUTES[intent.label][0] == "local"


def with_query(query: str) -> dict[str, Any]:
    """The router's recorded call with the user's query `query`."""
    body = captured("router.json")
    body["messages"][1]["content"][0]["text"] = query
    return body


def with_objective(name: str, objective: str) -> dict[str, Any]:
    """The planner's recorded call `name` with the objective `objective`."""
    body = captured(name)
    message = body["messages"][1]
    assert OBJECTIVE in message["content"]
    message["content"] = message["content"].replace(OBJECTIVE, objective)
    return body


@pytest.mark.parametrize("name", ROUTER + PLANNER)
def test_every_captured_choice_is_instruction_by_the_rule(name: str) -> None:
    agent_choice_by_rule(captured(name))


@pytest.mark.parametrize("query", TOPICS)
def test_the_querys_topic_does_not_route_the_routers_call(query: str) -> None:
    """Whatever the query asks, the router's call asks a name out of the agents listed."""
    agent_choice_by_rule(with_query(query))


@pytest.mark.parametrize("name", PLANNER)
@pytest.mark.parametrize("objective", TOPICS)
def test_the_objective_does_not_route_the_plan(name: str, objective: str) -> None:
    agent_choice_by_rule(with_objective(name, objective))


def test_the_query_with_an_image_is_the_routers_call_too() -> None:
    """fast-agent appends its routing text to the user's message, whatever parts it has."""
    body = captured("router.json")
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    body["messages"][1]["content"].insert(1, image)
    agent_choice_by_rule(body)


def test_the_markers_are_what_fast_agent_sent() -> None:
    """The router's opening opens the system prompt it sent and `ROUTING` filled is its last
    part; each planning template is one of the planner's calls filled."""
    router = captured("router.json")["messages"]
    assert router[0]["content"].startswith(ROUTER_OPENINGS[0])
    assert fills(router[1]["content"][-1]["text"], ROUTING_PARTS)
    assert len(ROUTING_PARTS) == 2 and ROUTING.count("{") == 1
    for name, parts in zip(PLANNER, PLAN_PARTS, strict=True):
        text = captured(name)["messages"][1]["content"]
        assert fills(text, parts)
        assert [fills(text, other) for other in PLAN_PARTS].count(True) == 1


@pytest.mark.parametrize(
    "system",
    [
        # a router given an instruction of its own (`@fast.router(instruction=...)`)
        "You route customer questions to the team that can answer them.",
        "Be brief.\n" + ROUTER_OPENINGS[0],
        "You are a helpful assistant.",
    ],
)
def test_a_router_with_another_instruction_is_read_as_written(system: str) -> None:
    assert_read_by_model(
        recorded.with_system(captured("router.json"), system), AGENT_CHOICE_READING
    )


@pytest.mark.parametrize("change", ["pasted", "words-after", "alone", "cut", "assistant-last"])
def test_the_routing_text_only_as_fast_agent_sends_it(change: str) -> None:
    """`ROUTING` filled as the last part after the query, under the router's opening: joined
    into one text, followed by a user's words, sent without the query, cut short, or before
    an assistant's reply, it is read as written."""
    body = captured("router.json")
    messages = body["messages"]
    query, routing = messages[1]["content"]
    if change == "pasted":
        messages[1]["content"] = query["text"] + routing["text"]
    elif change == "words-after":
        routing["text"] += "Also, which of them is cheapest?"
    elif change == "alone":
        messages[1]["content"] = [routing]
    elif change == "cut":
        routing["text"] = routing["text"].split("</fastagent:agents>")[0]
    else:
        messages.append({"role": "assistant", "content": '{"agent": "poet"}'})
    assert_read_by_model(body, AGENT_CHOICE_READING)


@pytest.mark.parametrize("change", ["cut", "words-after", "quoted"])
def test_a_planning_text_only_whole(change: str) -> None:
    """A planning template cut short, followed by a user's words, or quoted inside a user's
    own ask is read as written."""
    body = captured("plan-full.json")
    message = body["messages"][1]
    if change == "cut":
        message["content"] = message["content"].split("<fastagent:instruction>")[0]
    elif change == "words-after":
        message["content"] += "\nWhy does this prompt fail with my model?"
    else:
        message["content"] = "Why does this prompt fail with my model?\n\n" + message["content"]
    assert_read_by_model(body, AGENT_CHOICE_READING)


@pytest.mark.parametrize("name", OTHERS)
def test_fast_agents_other_calls_are_read_by_the_model(name: str) -> None:
    """Its evaluator's rating (instruction by the model for most answers, local either way),
    its refinement and its synthesis (the work asked for), and an agent's step in a chain
    are no choice among agents."""
    assert_read_by_model(captured(name), AGENT_CHOICE_READING)
