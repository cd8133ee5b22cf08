"""VoltAgent 2.10.0 through the demo's simulator: a supervisor's `delegate_task` names a
sub-agent its system prompt lists.

The supervisor lists its sub-agents as `<specialized_agents>\\n- writer: Writes short
poems\\n</specialized_agents>` and offers `delegate_task(task, targetAgents: string[])`; the
simulator put the ask in `targetAgents`, and VoltAgent answered "No valid target agents
found. Available agents: writer" (a live review of demo mode). Replayed from the recorded
bodies (`tests/fixtures/voltagent-2.10.0-sim.md`), through the official openai SDK, a real
socket, the simulator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from router.simulator import SimThread
from router.simulator.offered_agents import Offered, listing
from tests import recorded
from tests.simulator.calls import client, only_call

captured = recorded.loader(recorded.FIXTURES / "voltagent-2.10.0-sim")


def called(sim: SimThread, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The one tool call the simulator answers a recorded body with: its name, its arguments."""
    fields = {key: body[key] for key in ("messages", "tools", "tool_choice")}
    return only_call(client(sim).chat.completions.create(model="tiny", **fields))


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_the_supervisor_delegates_to_a_listed_agent(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    name, arguments = called(start_sim(profile=profile), captured("supervisor-delegate.json"))
    assert name == "delegate_task"
    assert arguments["targetAgents"] == ["writer"]
    assert arguments["task"] == "Write a haiku about the sea."  # names no agent: as before


def test_the_supervisor_delegates_to_the_agent_its_ask_names(
    start_sim: Callable[..., SimThread],
) -> None:
    body = captured("supervisor-delegate.json")
    system = body["messages"][0]["content"]
    body["messages"][0]["content"] = system.replace(
        "- writer: Writes short poems", "- writer: Writes short poems\n- researcher: Finds facts"
    )
    body["messages"][1]["content"] = "Ask the researcher how deep the sea is."
    assert called(start_sim(), body)[1]["targetAgents"] == ["researcher"]


def test_bulleted_listings_and_what_they_leave_alone() -> None:
    """Bullets inside an element of agents, a name without a purpose too; bullets of another
    element (`<guidelines>`, `<agents_memory>`) or of one never closed are none."""
    listed = "Team:\n<available_agents>\n- writer: poems\n* Fact Finder\n-  : x\n"
    listed += "</available_agents>"
    assert listing("hi", listed) == Offered(("writer", "Fact Finder"), "hi")
    assert listing("hi", "agents:\n<guidelines>\n- be terse: always\n</guidelines>") is None
    assert listing("hi", "<agents_memory>\n- writer: said hi\n</agents_memory>") is None
    assert listing("hi", "<specialized_agents>\n- writer: poems\n") is None
    assert listing("hi", "<agents>\n- a: x\n" * 10_000) is None
