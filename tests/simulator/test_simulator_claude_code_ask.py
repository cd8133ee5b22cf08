"""The simulator answers the user's ask in Claude Code's requests, not Claude Code's own text.

Live review of demo mode (Claude Code 2.1.197, direct and through claude-code-router 2.0.0):
the simulator read the last user message whole. Direct, the router hands a chat backend
Claude Code's in-conversation system turn (its agents' list) as a user message after the
ask, and the simulator called `NotebookEdit` with `new_source` "Available agent types for
the Agent"; through claude-code-router it called `Agent`, the first tool, with the prompt
"<system-reminder> As you answer the user's", and each subagent did again, four deep. It
now reads the latest ask as the classifier does (`router.simulator.latest_ask`) and calls
no subagent unasked (`router.simulator.delegation`). Recorded bodies, replayed through the
official SDKs against a running simulator."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic

from router.simulator import SimThread
from router.translate.anthropic_request import to_chat
from tests.recorded import FIXTURES, loader
from tests.simulator.calls import client

MODEL = "tiny"
ASK = "write a python function is_prime in primes.py"  # claude-code-2.1.197/first-turn.json


recorded = loader(FIXTURES)


def chat_reply(sim: SimThread, body: dict[str, Any]) -> Any:
    """The simulator's chat answer to `body` as claude-code-router or the router sends it
    (without OpenRouter's `reasoning`, which the router drops, and unstreamed)."""
    fields = {k: v for k, v in body.items() if k not in ("reasoning", "stream_options")}
    fields |= {"model": MODEL, "stream": False}
    return client(sim).chat.completions.create(**fields).choices[0].message


def test_direct_claude_code_through_a_chat_backend_answers_the_ask(
    start_sim: Callable[..., SimThread],
) -> None:
    """The body the router hands a chat backend: its reminder, the ask, then Claude Code's
    agents' list as a user message. The ask names `Write` ("write a python function"), and
    the call's content quotes the ask, not the list (was `NotebookEdit`, the list's words)."""
    sim = start_sim()
    body = to_chat(recorded("claude-code-2.1.197/first-turn.json"))
    assert body["messages"][-1]["content"].startswith("Available agent types")
    message = chat_reply(sim, body)
    (call,) = message.tool_calls
    arguments = json.loads(call.function.arguments)
    assert call.function.name == "Write"
    assert arguments["content"] == " ".join(ASK.split()[:6])


def test_direct_claude_code_on_messages_quotes_the_ask_not_its_reminder(
    start_sim: Callable[..., SimThread],
) -> None:
    """The same body on the simulator's own Messages endpoint (a native backend's): the
    call's content quotes the ask, not the `<system-reminder>` before it."""
    sim = start_sim()
    body = recorded("claude-code-2.1.197/first-turn.json")
    sdk = anthropic.Anthropic(base_url=sim.url, api_key="x", max_retries=0)
    fields = {k: body[k] for k in ("messages", "system", "tools")}
    reply = sdk.messages.create(model=MODEL, max_tokens=1024, **fields)
    (call,) = [block for block in reply.content if block.type == "tool_use"]
    assert call.name == "Write"
    assert call.input["content"] == " ".join(ASK.split()[:6])  # type: ignore[index]


def test_through_claude_code_router_an_ask_naming_no_tool_is_answered_in_text(
    start_sim: Callable[..., SimThread],
) -> None:
    """claude-code-router's body for "Translate 'good morning, how are you?' into French.":
    no tool named, the first offered is `Agent` (a subagent's), so the answer is text; the
    simulator called `Agent` with the reminder's words as its prompt."""
    sim = start_sim()
    body = recorded("claude-code-router-2.0.0/translate-ask.json")
    assert body["tools"][0]["function"]["name"] == "Agent"
    message = chat_reply(sim, body)
    assert not message.tool_calls
    assert message.content and "system-reminder" not in message.content


def test_a_subagent_calls_no_subagent_unasked(start_sim: Callable[..., SimThread]) -> None:
    """The subagent the old answer started (its task the reminder's words, `Agent` offered
    first): it called `Agent` again, and so on four deep; it answers now."""
    sim = start_sim()
    message = chat_reply(sim, recorded("claude-code-router-2.0.0/subagent-task.json"))
    assert not message.tool_calls


def test_a_plain_ask_reads_as_before(start_sim: Callable[..., SimThread]) -> None:
    """A plain request's ask is its message: the same call and arguments as before the
    change, the first tool with the ask's first words."""
    sim = start_sim()
    body = to_chat(recorded("claude-code-2.1.197/first-turn.json"))
    body["messages"] = [{"role": "user", "content": "Tell me about primes in number theory"}]
    body["tools"] = body["tools"][1:3]  # Bash first: no subagent's tool
    message = chat_reply(sim, body)
    (call,) = message.tool_calls
    assert call.function.name == "Bash"


def test_a_forced_call_naming_no_tool_skips_the_subagents_tool(
    start_sim: Callable[..., SimThread],
) -> None:
    """A call forced by `"required"` where the ask names no tool goes to the first offered
    tool that starts no subagent (`delegation.first_index`): `Bash`, not `Agent`, which
    would start a subagent for an ask that wanted none."""
    body = recorded("claude-code-router-2.0.0/translate-ask.json")
    assert [tool["function"]["name"] for tool in body["tools"][:2]] == ["Agent", "Bash"]
    message = chat_reply(start_sim(), body | {"tool_choice": "required"})
    (call,) = message.tool_calls
    assert call.function.name == "Bash"
