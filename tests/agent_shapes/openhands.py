"""What OpenHands sends: after the first ask, the workspace's context as a user message of its
own (`additional_info.j2`: `<REPOSITORY_INFO>`, `<REPOSITORY_INSTRUCTIONS>`,
`<RUNTIME_INFORMATION>`), and what a keyword in an ask recalls, another after it
(`microagent_info.j2`, `<EXTRA_INFO>`), each a text part.

The system prompt and the texts are shortened but keep their tags, as OpenHands sends them.
"""

from __future__ import annotations

from typing import Any

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
OPENHANDS_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
    for name, description in (
        ("execute_bash", "Execute a bash command in the terminal within a persistent shell."),
        ("str_replace_editor", "Custom editing tool for viewing, creating and editing files."),
        ("finish", "Signals the completion of the current task or conversation."),
    )
]
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
