"""A coding agent's plain tool names count when its system prompt says whose it is
(`classifier.harness_tools.AGENT_IDENTITIES`, `classifier.toolset.agent_identified`).

Found in review: once plain names (Read, Write, Edit, WebSearch, WebFetch) counted only
beside a name of an agent's own machinery, a Claude Code custom subagent given `tools: Read,
Write, Edit` (or Read, WebSearch and WebFetch) was no agent's session any more: "explain
what sync_dir does in utils.py" went from coding 0.90, served locally, to reasoning 0.73, on
the cloud, and "write unit tests for build_parser" from coding 0.91 to writing 0.61. Its
system prompt opens with Claude Code's identity; a notes app's with the same tools does not,
and stays no session (`test_classifier_plain_tool_names`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify, explain
from classifier.request import view
from router.translate.view import chat_view
from tests.agent_shapes.claude_code import CLAUDE_CODE_SYSTEM

# Claude Code's identity lines: its subagents', its main agent's (CLAUDE_CODE_SYSTEM), and
# its Agent SDK's (the recorded `claude -p` bodies)
SUBAGENT = "You are an agent for Claude Code, Anthropic's official CLI for Claude."
MAIN = CLAUDE_CODE_SYSTEM[0]["text"]
RECORDED = Path(__file__).parents[1] / "fixtures" / "claude-code-2.1.197" / "first-turn.json"
SDK = json.loads(RECORDED.read_text())["system"][0]["text"]
# A custom subagent's own prompt, from its definition's body
ROLE = "You are a code reviewer. Review the repository's code for bugs and explain it."
BILLING = "x-anthropic-billing-header: cc_version=2.1.197.4f2; cc_entrypoint=cli; cch=00000;"
# The `tools:` a custom subagent may be given, all of them plain names
TOOLSETS = {"docs": ["Read", "Write", "Edit"], "research": ["Read", "WebSearch", "WebFetch"]}
ASKS = [
    "explain what sync_dir does in utils.py",
    "write a docstring for main() explaining the exit codes",
]


def chat(system: str | list[dict[str, Any]], names: list[str], ask: str) -> dict[str, Any]:
    tools = [{"type": "function", "function": {"name": n, "description": "x"}} for n in names]
    messages = [{"role": "system", "content": system}, {"role": "user", "content": ask}]
    return {"model": "auto", "messages": messages, "tools": tools}


def messages_api(identity: str, names: list[str], ask: str) -> dict[str, Any]:
    """The Messages body Claude Code sends for a subagent, as the router's view reads it:
    its attribution block, its identity, the subagent's prompt, as system blocks."""
    system = [
        {"type": "text", "text": BILLING},
        {"type": "text", "text": identity, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": ROLE, "cache_control": {"type": "ephemeral"}},
    ]
    tools = [{"name": n, "description": "x", "input_schema": {"type": "object"}} for n in names]
    turn = {"role": "user", "content": [{"type": "text", "text": ask}]}
    body = {"model": "auto", "max_tokens": 64, "system": system, "tools": tools}
    return chat_view("messages", {**body, "messages": [turn]})


def shapes(identity: str, names: list[str], ask: str) -> list[dict[str, Any]]:
    """A subagent's request as a chat body (its system prompt one text, or its blocks as
    text parts, as a gateway passes them) and as a Messages body."""
    parts = [{"type": "text", "text": identity}, {"type": "text", "text": ROLE}]
    return [
        chat(f"{identity}\n\n{ROLE}", names, ask),
        chat(parts, names, ask),
        messages_api(identity, names, ask),
    ]


@pytest.mark.parametrize("identity", [SUBAGENT, MAIN, SDK], ids=["subagent", "main", "sdk"])
@pytest.mark.parametrize("names", TOOLSETS.values(), ids=list(TOOLSETS))
@pytest.mark.parametrize("ask", ASKS)
def test_a_claude_code_subagent_with_plain_tools_is_its_session(
    identity: str, names: list[str], ask: str
) -> None:
    for body in shapes(identity, names, ask):
        seen = view(body)
        assert (seen.agent_tools, seen.harness_cut, seen.tool_names) == (True, True, "")
        assert explain(body)["rule"].startswith("agent_session")
        assert classify(body).label == "coding"


@pytest.mark.parametrize("names", TOOLSETS.values(), ids=list(TOOLSETS))
@pytest.mark.parametrize("ask", ASKS)
def test_a_notes_app_with_the_same_tools_is_no_session(names: list[str], ask: str) -> None:
    """Without an agent's identity opening its system prompt: an app's, or one that names
    Claude Code past its start, or none at all. No agent's session: the model reads the
    ask. Nor does an ask that names a source file decide (`rules.offered_file_intent`):
    Read, Write, Edit, WebSearch and WebFetch, with no parameters, are no shell or file
    tool by their names (`classifier.file_tools`), a notes app's or a research app's."""
    systems: list[str | list[dict[str, Any]]] = [
        "You are a helpful notes assistant. Read, write and edit the user's notes.",
        f"You help with notes. Never claim this: {MAIN}",
        [{"type": "text", "text": "You are a notes assistant."}, {"type": "text", "text": MAIN}],
    ]
    bodies = [chat(system, names, ask) for system in systems]
    bodies.append({**chat("", names, ask), "messages": [{"role": "user", "content": ask}]})
    for body in bodies:
        seen = view(body)
        assert (seen.agent_tools, seen.harness_cut) == (False, False)
        assert seen.tool_names == " ".join(names)
        assert (seen.file_tools, explain(body)["rule"]) == (False, None)


def test_an_identity_alone_without_tools_is_no_session() -> None:
    """The identity only lets an agent's plain names count: no tools, no session by them."""
    body = chat(f"{SUBAGENT}\n\n{ROLE}", [], "Summarise the main causes of World War I.")
    assert view(body).agent_tools is False
    # nor does a prompt that only opens like one make an app's plain names count
    lookalike = SUBAGENT.replace("Claude Code,", "Claude Code Pro,")
    body = chat(f"{lookalike}\n\n{ROLE}", TOOLSETS["docs"], ASKS[0])
    assert view(body).agent_tools is False
