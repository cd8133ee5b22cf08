"""A Letta agent's turns go where the user's ask goes, whatever call its MemGPT agents force,
one agent is one conversation across its memory's edits, and its compaction's summary is one
kind of work (`classifier.letta`).

Found running the Letta server 0.16.8 against the router: its MemGPT agents send
`tool_choice: "required"` (their `send_message` is how they answer), so a poem and a math
question went local as tool_calling; an edit of a memory block changed the system prompt, and
one agent's conversation split in two, its sticky pin lost. The bodies are the ones it sent
(`tests/fixtures/letta-0.16.8.md`); real sockets, the official SDK, a real DuckDB ledger, the
simulators as backends.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier.rules import MEMORY_SUMMARY
from tests import recorded
from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.agent_apis.sticky_stack import ledger_rows, pinned_headers
from tests.harness import Collect, RunningRouter

FIXTURES = recorded.FIXTURES / "letta-0.16.8"
# Each MemGPT agent's turn, and where its ask goes by the default routes
FORCED = {
    "memgpt-v2-code": ("coding", "local"),
    "memgpt-v2-poem": ("prose", "cloud"),
    "memgpt-v2-math": ("math", "cloud"),
    "memgpt-poem": ("prose", "cloud"),
}
FIRST = "Hi! My name is Priya and I work as a data engineer in Lisbon."
KEYS = {"agent": "sk-letta-agent-5c1e"}


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / f"{name}.json")


@pytest.mark.parametrize("name", sorted(FORCED))
def test_a_memgpt_agents_turn_goes_where_its_ask_goes(
    default_proxy: RunningRouter, name: str
) -> None:
    """Its forced `send_message` is its reply channel: no rule decides, the model reads the
    ask (tool_calling and local for each, before)."""
    body = captured(name)
    why = explained(default_proxy, body)["classifier"]
    assert (why["rule"], why["read"]["tool_forced"]) == (None, True)
    assert served(default_proxy, body) == FORCED[name]


def test_a_forced_call_in_another_apps_request_is_a_tool_call(
    default_proxy: RunningRouter,
) -> None:
    body = captured("memgpt-v2-poem")
    body["messages"][0]["content"] = "You are a helpful assistant."
    assert served(default_proxy, body) == ("tool_calling", "local")


def test_a_heartbeat_step_is_read_by_the_users_ask(default_proxy: RunningRouter) -> None:
    """Its latest user message is Letta's heartbeat, and its first Letta's login event:
    neither is read."""
    body = captured("memgpt-v2-heartbeat")
    read = explained(default_proxy, body)["classifier"]["read"]
    assert (read["latest_chars"], read["first_chars"]) == (len(FIRST), 0)
    alone = copy.deepcopy(body)
    alone["messages"] = [body["messages"][0], {"role": "user", "content": FIRST}]
    assert served(default_proxy, body)[1] == served(default_proxy, alone)[1]


@pytest.mark.parametrize("name", ["summary-first", "summary-compacted"])
def test_the_compactions_summary_is_instruction_on_the_local_backend(
    default_proxy: RunningRouter, name: str
) -> None:
    """Its transcript asks nothing (coding by its code, before): instruction by rule."""
    why = explained(default_proxy, captured(name))["classifier"]
    assert (why["rule"], why["read"]["latest_chars"]) == (MEMORY_SUMMARY, 0)
    assert served(default_proxy, captured(name)) == ("instruction", "local")


def test_one_agent_is_one_conversation_across_a_memory_edit(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """A sonnet pins the agent's conversation to the cloud; its coding asks stay there, the
    one after the `human` block's edit too (a new conversation, served locally, before)."""
    names = ["v1-sonnet", "v1-code-before-edit", "v1-code-after-edit"]
    headers = [pinned_headers(pinning, KEYS["agent"], captured(name)) for name in names]
    assert [h["x-smf-intent"] for h in headers] == ["prose", "coding", "coding"]
    assert [h["x-smf-backend"] for h in headers] == ["cloud"] * 3
    rows = ledger_rows(pinning[0], [h["x-request-id"] for h in headers])
    assert len(rows) == 3 and rows[0][1] is not None
    assert {row[1] for row in rows} == {rows[0][1]}
