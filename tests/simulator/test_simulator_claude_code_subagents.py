"""A Claude Code subagent the simulator starts ends: it is not started again, and starts none.

Live review of demo mode (Claude Code 2.1.337, `claude -p "Use the Agent tool to have a
subagent look through calc.py and summarize it"`): 2,417 requests, 889 subagents in 3.5
minutes. The simulator wrote the ask's first words, "Use the Agent tool to have", as the
subagent's prompt, so each subagent was asked for `Agent` again, down to Claude Code's depth
limit; and 2.1.337 runs a subagent in the background, then sends the main session a turn
whose last user message is the `<task-notification>` (no ask: the latest ask is still the
user's), or hands a subagent its child's report with its agents' list after it, and the
simulator, seeing no tool result last, called `Agent` again. Now an ask a tool call already
followed is answered as after a tool's result (`router.simulator.latest_ask`), and the
prompt written for a subagent names no tool that starts one (`tool_calls._arguments`).
Recorded bodies (`tests/fixtures/claude-code-2.1.337.md`) as the router hands them to a chat
backend (`to_chat`), against a running simulator through the openai SDK."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from router.simulator import SimThread
from router.translate.anthropic_request import to_chat
from tests.recorded import FIXTURES, loader
from tests.simulator.calls import client

recorded = loader(FIXTURES / "claude-code-2.1.337")


def chat_reply(sim: SimThread, body: dict[str, Any]) -> Any:
    """The simulator's unstreamed chat answer to the Messages `body` the router translates."""
    fields = to_chat(body) | {"model": "tiny", "stream": False}
    fields.pop("stream_options", None)
    return client(sim).chat.completions.create(**fields).choices[0].message


def test_the_ask_naming_agent_still_starts_a_subagent(start_sim: Callable[..., SimThread]) -> None:
    """The user's ask names `Agent`: its first turn calls it, as before."""
    message = chat_reply(start_sim(), recorded("agent-ask.json"))
    (call,) = message.tool_calls
    assert call.function.name == "Agent"


def test_the_task_notification_turn_answers_in_text(start_sim: Callable[..., SimThread]) -> None:
    """The main session's turn after a background subagent finished: the ask, the `Agent`
    call, its "Async agent launched" result, a text answer, then the notification. The ask
    was answered by that call: text now (was `Agent` again, one more subagent per
    notification)."""
    body = recorded("task-notification.json")
    assert "<task-notification>" in json.dumps(body["messages"][-1])
    message = chat_reply(start_sim(), body)
    assert not message.tool_calls
    assert message.content


def test_a_subagents_handback_answers_in_text(start_sim: Callable[..., SimThread]) -> None:
    """A subagent after its own `Agent` call's report, Claude Code's agents' list after the
    result (a user message last on a chat backend): text now (was `Agent` again)."""
    body = recorded("subagent-handback.json")
    assert body["messages"][-1]["role"] == "system"
    message = chat_reply(start_sim(), body)
    assert not message.tool_calls
    assert message.content


def test_the_subagents_prompt_starts_no_further_subagent(
    start_sim: Callable[..., SimThread],
) -> None:
    """The prompt the simulator writes into the `Agent` call names no `Agent`, and the
    subagent given it (its recorded first request, that prompt as its ask) starts none."""
    sim = start_sim()
    (call,) = chat_reply(sim, recorded("agent-ask.json")).tool_calls
    written = json.loads(call.function.arguments)["prompt"]
    assert written == "look through calc.py and summarize it"  # the task, not the instruction
    body = recorded("subagent-task.json")
    ask = body["messages"][0]["content"][-1]
    assert ask["text"] == "Use the Agent tool to have"  # the old prompt, as recorded
    ask["text"] = written
    assert body["tools"][0]["name"] == "Agent"
    message = chat_reply(sim, body)
    assert not any(c.function.name == "Agent" for c in message.tool_calls or ())
