"""fast-agent's workflows through the demo's simulator: its router and its orchestrator get an
agent the prompt lists, and an ask names a server-prefixed MCP tool by the tool's own name.

fast-agent 0.2.36's router (`RoutingResponse.agent`, a free string) and orchestrator (a
`Plan` whose `AgentTask.agent` is "Name of Agent from given list of agents") got the
prompt's first words for the agent, and both workflows stopped ("the agent What is 3 plus
4? Select was not known to the Router"); "Use the get_weather tool" called `calc-add` (a
live review of demo mode). Replayed from the recorded bodies, through the official openai
SDK, a real socket, the simulator.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from router.simulator import SimThread
from router.simulator.asked_tool import asked_index
from router.simulator.instances import structured
from router.simulator.offered_agents import Offered, listing, names_agent
from tests import recorded
from tests.simulator.calls import client

MODEL = "tiny"
captured = recorded.loader(recorded.FIXTURES / "fast-agent-mcp-0.2.36-sim")


def answered(sim: SimThread, body: dict[str, Any]) -> Any:
    """The simulator's structured answer to a recorded body, streamed as fast-agent asks."""
    fields = {key: body[key] for key in ("messages", "response_format", "max_tokens")}
    chunks = client(sim).chat.completions.create(model=MODEL, stream=True, **fields)
    return json.loads("".join(c.choices[0].delta.content or "" for c in chunks if c.choices))


def called(sim: SimThread, body: dict[str, Any], ask: str) -> str:
    """The tool the simulator calls for a recorded tool body, its ask replaced."""
    body["messages"][-1]["content"] = ask
    fields = {key: body[key] for key in ("messages", "tools")}
    (call,) = (
        client(sim).chat.completions.create(model=MODEL, **fields).choices[0].message.tool_calls
        or []
    )
    return str(call.function.name)  # type: ignore[union-attr]


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_the_router_gets_an_agent_it_lists(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """ "What is 3 plus 4?" names neither `toolbot` nor `poet`: the first listed, not a
    skill's name (`add`) from inside the list, nor the prompt's first words."""
    reply = answered(start_sim(profile=profile), captured("router.json"))
    assert reply["agent"] == "toolbot"
    assert reply["confidence"] != "toolbot"  # a field that names no agent, as before


def test_the_router_gets_the_agent_its_query_names(start_sim: Callable[..., SimThread]) -> None:
    body = captured("router.json")
    body["messages"][1]["content"][0]["text"] = "Ask the poet for a haiku about rain."
    assert answered(start_sim(), body)["agent"] == "poet"


def test_the_orchestrators_plan_names_listed_agents(start_sim: Callable[..., SimThread]) -> None:
    """Every task of the plan names an agent of `<fastagent:available-agents>`."""
    plan = answered(start_sim(), captured("orchestrator-plan.json"))
    tasks = [task for step in plan["steps"] for task in step["tasks"]]
    assert tasks
    assert {task["agent"] for task in tasks} == {"toolbot"}
    assert all(task["description"] != "toolbot" for task in tasks)


@pytest.mark.parametrize(
    ("ask", "tool"),
    [
        ("What is the weather in Paris? Use the get_weather tool.", "calc-get_weather"),
        ("Get weather for Paris please", "calc-get_weather"),
        ("Call calc-get_weather for Paris", "calc-get_weather"),
        ("What is 17.5 plus 24.25? Use the add tool.", "calc-add"),
        ("What is the weather in Paris?", "calc-add"),  # no name: the first, as before
    ],
)
def test_an_ask_names_a_server_prefixed_tool(
    start_sim: Callable[..., SimThread], ask: str, tool: str
) -> None:
    assert called(start_sim(), captured("toolbot-add.json"), ask) == tool


@pytest.mark.parametrize(
    ("names", "ask", "expected"),
    [
        (["mcp__calc__add", "mcp__calc__get_weather"], "get weather", 1),
        (["mcp__brave__web_search", "WebSearch"], "web search", 1),  # the whole name first
        (["WebSearch", "mcp__brave__web_search"], "use brave web search", 1),  # the longer
        (["calc-get_weather", "get_weather"], "get weather", 1),
        (["calc-add", "other-add"], "other add", 1),
        (["calc-add", "calc-get_weather"], "calc", None),  # a prefix alone names nothing
    ],
)
def test_prefixed_names(names: list[str], ask: str, expected: int | None) -> None:
    assert asked_index(names, ask) == expected


AGENT = {"type": "string"}


@pytest.mark.parametrize(
    ("field", "schema", "expected"),
    [
        ("agent", AGENT, True),
        ("next_agent", AGENT, True),
        ("agent_name", AGENT, True),
        ("agents", AGENT, True),
        ("user_agent", AGENT, False),
        ("agent", {"type": "string", "format": "uri"}, False),
        ("target", {"type": "string", "description": "Name of Agent from the list"}, True),
        ("reason", {"type": "string", "description": "Why this agent fits"}, False),
        ("confidence", AGENT, False),
    ],
)
def test_which_fields_name_an_agent(field: str, schema: dict[str, Any], expected: bool) -> None:
    assert names_agent(field, schema) is expected


def test_listings_and_what_they_leave_alone() -> None:
    """Tagged (`name='x'` too) and JSON listings, the earlier first; a JSON list no text
    about agents leads into, or of objects without names, is none; the system's listing
    leaves the whole user text as the ask."""
    tagged = 'Do it.\n<agent name="a">x</agent><my:agent id="2" name=\'b\'>y</my:agent>'
    assert listing(tagged, "") == Offered(("a", "b"), "Do it.\n")
    shown = 'Pick one of the agents: [{"name": "c"}, {"name": "d"}] <agent name="e">'
    assert listing(shown, "") == Offered(("c", "d"), "Pick one of the agents: ")
    assert listing('Items: [{"name": "c"}]', "") is None
    assert listing('agents: [{"name": "c"}, {"id": 1}]', "") is None
    assert listing("hello", '<agent name="s">') == Offered(("s",), "hello")
    assert listing("<agent" * 10_000, "") is None


def test_without_a_listing_an_agent_field_gets_the_prompts_words() -> None:
    """The walk asks for an agent only where a field names one, once; none offered, the
    field is filled as before."""
    schema = {
        "type": "object",
        "properties": {
            "agent": AGENT,
            "steps": {
                "type": "array",
                "items": {"type": "object", "properties": {"agent": AGENT}, "required": ["agent"]},
                "minItems": 3,
            },
        },
        "required": ["agent", "steps"],
    }
    asked: list[int] = []

    def none() -> str | None:
        asked.append(1)
        return None

    value = json.loads(structured(schema, "Route this request please", agent=none))
    assert value["agent"] == "Route this request please"
    assert asked == [1]
    value = json.loads(structured(schema, "Route this", agent=lambda: "poet"))
    assert value == {"agent": "poet", "steps": [{"agent": "poet"}] * 3}
