"""What OpenHands sends, in two shapes.

Its older versions (the CodeAct agent, tools `execute_bash`, `str_replace_editor`...): after
the first ask, the workspace's context as a user message of its own (`additional_info.j2`:
`<REPOSITORY_INFO>`, `<REPOSITORY_INSTRUCTIONS>`, `<RUNTIME_INFORMATION>`), and what a keyword
in an ask recalls, another after it (`microagent_info.j2`, `<EXTRA_INFO>`), each a text part.

The Software Agent SDK (1.x; 1.58.2's, `tests/fixtures/openhands-sdk-1.58.2.md`): tools
`terminal`, `file_editor`, `task_tracker`, `finish`, `think`; the repository's context in
the system message, a second text part (`<REPO_CONTEXT>`), and what a keyword in the ask
recalls as a second text part of the ask's own message (`AgentContext.
get_user_message_suffix`, `skill_knowledge_info.j2`: `<EXTRA_INFO>`).

The system prompts and the texts are shortened but keep their tags, as OpenHands sends them.
"""

from __future__ import annotations

from typing import Any

from tests.agent_shapes.tools import COMMAND, function_tools

OPENHANDS_SYSTEM = (
    "You are OpenHands agent, a helpful AI assistant that can interact with a computer to "
    "solve tasks."
)
WORKSPACE = (
    "<REPOSITORY_INFO>\nAt the user's request, repository acme/dsync has been cloned to the "
    "current working directory /workspace/dsync.\n</REPOSITORY_INFO>\n\n"
    "<REPOSITORY_INSTRUCTIONS>\n# dsync\n\nKeep the tool small.\n- Run `pytest -q` before "
    "committing.\n</REPOSITORY_INSTRUCTIONS>\n\n<RUNTIME_INFORMATION>\n\nThe user has access to "
    "the following hosts for accessing a web application,\neach of which has a corresponding "
    "port:\n* https://work-1-abcdefg.prod-runtime.all-hands.dev (port 12000)\n\n"
    "Today's date is 2026-11-20 (UTC).\n</RUNTIME_INFORMATION>\n"
)
OPENHANDS_TOOLS = function_tools(
    (
        ("execute_bash", "Execute a bash command in the terminal within a persistent shell."),
        ("str_replace_editor", "Custom editing tool for viewing, creating and editing files."),
        ("finish", "Signals the completion of the current task or conversation."),
    ),
    COMMAND,
)
RECALLED = (
    "<EXTRA_INFO>\nThe following information has been included based on a keyword match for "
    '"test".\nIt may or may not be relevant to the user\'s request.\n\n# Testing\nRun the '
    "existing test suite first.\n</EXTRA_INFO>\n"
)


def openhands_user(text: str) -> dict[str, Any]:
    """A user message as OpenHands sends it: one text part."""
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def openhands_body(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A chat body as OpenHands sends it, with `messages` after its system prompt."""
    system = {"role": "system", "content": OPENHANDS_SYSTEM}
    return {"model": "auto", "tools": OPENHANDS_TOOLS, "messages": [system, *messages]}


# The SDK's: its system prompt's opening (1.58.2's; 1.21.0's opened with the sentence)
OPENHANDS_SDK_SYSTEM = f"<SOUL>\n{OPENHANDS_SYSTEM}\n</SOUL>\n\n<ROLE>\n* Your primary role is..."
REPO_CONTEXT = (
    "<REPO_CONTEXT>\nThe following information has been included based on several files "
    "defined in user's repository.\n\n[BEGIN context from [agents]]\n# dsync\n\nKeep the "
    "tool small.\n[END Context]\n\n</REPO_CONTEXT>"
)
OPENHANDS_SDK_TOOLS = function_tools(
    (
        ("terminal", "Execute a shell command in the terminal within a persistent shell session."),
        ("file_editor", "Custom editing tool for viewing, creating and editing files."),
        ("task_tracker", "This tool provides structured task management capabilities."),
        ("finish", "Signals the completion of the current task or conversation."),
        ("think", "Use the tool to think about something."),
    ),
    COMMAND,
)
RECALLED_PART = (
    "<EXTRA_INFO>\nThe following information has been included based on a keyword match for "
    '"upload".\nIt may or may not be relevant to the user\'s request.\n\n\n# Testing\nRun '
    "the existing test suite first.\n</EXTRA_INFO>"
)


def openhands_sdk_body(ask: str, recalled: bool = False) -> dict[str, Any]:
    """A chat body as the SDK's agent sends its first turn: `ask`, and what a keyword in it
    recalled after it when `recalled`, in one user message."""
    system = [
        {"type": "text", "text": OPENHANDS_SDK_SYSTEM},
        {"type": "text", "text": REPO_CONTEXT},
    ]
    parts = [{"type": "text", "text": ask}]
    if recalled:
        parts.append({"type": "text", "text": RECALLED_PART})
    messages = [{"role": "system", "content": system}, {"role": "user", "content": parts}]
    return {"model": "auto", "tools": OPENHANDS_SDK_TOOLS, "messages": messages}
