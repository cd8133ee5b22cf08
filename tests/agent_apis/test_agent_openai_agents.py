"""The OpenAI Agents SDK's nested handoff history is read, and keyed, by the user's messages
in it (`classifier.openai_agents`).

With `RunConfig(nest_handoff_history=True)`, the agent a handoff goes to gets the
conversation so far as one assistant message, no user message. Read as sent, the math
specialist's call was unknown on the default route (local) where its triage call went to the
cloud, and every run's specialist call under one set of instructions was one conversation,
one run's pin holding the others' (found running the SDK 0.24.0). The bodies are the ones
it sent (`tests/fixtures/openai-agents-0.24.0.md`); real sockets, the official SDK, the
simulators as backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.harness import Collect, RunningRouter
from tests.resilience.conftest import until

FIXTURES = Path(__file__).parents[1] / "fixtures" / "openai-agents-0.24.0"
MATH = "Solve for x: 3x^2 - 12x + 9 = 0. Show each step."
CODE = "Write a Python function that merges two sorted lists and add unit tests for it."
LINES = (
    "Here is my function:\n\ndef add(a, b):\n    return a - b\n\nWhy does add(2, 3) return -1?"
    " Fix it."
)
FIRST, LATEST = "Solve for x: 2x^2 - 8 = 0.", "Now compute the integral of x^2 from 0 to 3."
# Each triage call, its specialist's, the ask in both, and where both go by the default routes
HANDOFFS = [
    ("responses-triage-math", "responses-math-agent", MATH, ("math", "cloud")),
    ("chat-triage-math", "chat-math-agent", MATH, ("math", "cloud")),
    ("chat-triage-code", "chat-coding-agent", CODE, ("coding", "local")),
    ("lines-triage", "lines-coding-agent", LINES, ("coding", "local")),
]


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def conversations(proxy: RunningRouter, names: list[str]) -> list[str]:
    """The conversation the router's record names for each body, sent in turn as the SDK sent
    it (the official SDK, not streamed), its record found by the reply's `x-request-id`."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    try:
        ids = []
        for name in names:
            body = captured(name)
            api: Any = client.responses if "input" in body else client.chat.completions
            ids.append(api.with_raw_response.create(**body).headers["x-request-id"])
        until(lambda: {r.request_id for r in records.records} >= set(ids), what="the records")
    finally:
        proxy.components.gateway.sinks.remove(records)
    keys = {r.request_id: r.conversation for r in records.records}
    assert all(keys[i] for i in ids), keys
    return [keys[i] for i in ids]


@pytest.mark.parametrize(
    ("triage", "specialist", "ask", "where"), HANDOFFS, ids=[h[1] for h in HANDOFFS]
)
def test_a_specialist_is_read_and_served_as_the_ask_it_was_handed(
    proxy: RunningRouter, triage: str, specialist: str, ask: str, where: tuple[str, str]
) -> None:
    body = captured(specialist)
    items = body.get("input") or body["messages"]
    assert [item["role"] for item in items if item["role"] != "system"] == ["assistant"]
    plan = explained(proxy, body, "responses" if "input" in body else None)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["latest_cut"], read["first_chars"]) == (len(ask), False, 0)
    assert served(proxy, body) == served(proxy, captured(triage)) == where


def test_a_conversation_handed_over_is_read_by_its_first_and_latest_ask(
    proxy: RunningRouter,
) -> None:
    """A run whose input was a conversation: its latest ask is read as the latest, its first
    as the first, as in the triage agent's call; also once the specialist's tool has run."""
    for name in ("turns-triage", "turns-math-agent", "turns-math-agent-tool"):
        read = explained(proxy, captured(name))["classifier"]["read"]
        assert (read["latest_chars"], read["first_chars"]) == (len(LATEST), len(FIRST)), name
        assert served(proxy, captured(name)) == ("math", "cloud"), name


def test_each_runs_specialist_is_a_conversation_of_its_own(proxy: RunningRouter) -> None:
    """Three runs' math specialists under the same instructions: three conversations (one
    key for all three before), each apart from its triage agent's (each agent's instructions
    key it: docs/agents/frameworks.md); a specialist's call after its tool ran, in its
    first's."""
    runs = [f"run-{number}-math-agent" for number in range(3)]
    keys = conversations(
        proxy, [*runs, "run-0-triage", "turns-math-agent", "turns-math-agent-tool"]
    )
    assert len(set(keys[:3])) == 3
    assert keys[3] not in keys[:3]
    assert keys[4] == keys[5]


def test_a_nested_specialist_keys_as_one_handed_the_conversation(proxy: RunningRouter) -> None:
    """With or without `nest_handoff_history`, the math specialist of one ask is one
    conversation: the ask the history holds is the one the plain handoff sends."""
    keys = conversations(proxy, ["responses-math-agent", "responses-math-agent-unnested"])
    assert keys[0] == keys[1]


def test_a_run_sending_its_prompt_cache_key_is_one_conversation(proxy: RunningRouter) -> None:
    """`ModelSettings(extra_args={"prompt_cache_key": ...})` on every agent (the SDK sends
    its own key only to api.openai.com): the triage agent and its specialist are one
    conversation; without it, two."""
    assert len(set(conversations(proxy, ["keyed-chat-triage", "keyed-chat-math-agent"]))) == 1
    assert len(set(conversations(proxy, ["run-0-triage", "run-0-math-agent"]))) == 2
