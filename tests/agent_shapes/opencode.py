"""What opencode sends through an OpenAI-compatible provider: its system prompt and the
environment as two system messages, its built-in tools, the user's words as text parts.

Tool names from sst/opencode packages/opencode/src/tool (`Tool.define("bash", ...)` and the
registry's list); the texts are shortened but keep their openings.
"""

from __future__ import annotations

from typing import Any

from tests.agent_shapes.tools import function_tools

OPENCODE_SYSTEM = (
    "You are opencode, an interactive CLI tool that helps users with software engineering "
    "tasks. Use the instructions below and the tools available to you to assist the user.\n\n"
    "IMPORTANT: Refuse to write code or explain code that may be used maliciously.\n"
)
OPENCODE_ENVIRONMENT = (
    "Here is some useful information about the environment you are running in:\n<env>\n"
    "  Working directory: /home/dev/dsync\n  Is directory a git repo: yes\n"
    "  Platform: linux\n  Today's date: Fri Nov 20 2026\n</env>\n"
    "<files>\n  app/\n  app/cli.py\n  app/sync.py\n  tests/\n</files>"
)
_OPENCODE = (
    ("bash", "Executes a given bash command in a persistent shell session."),
    ("edit", "Performs exact string replacements in files."),
    ("write", "Writes a file to the local filesystem."),
    ("read", "Reads a file from the local filesystem."),
    ("grep", "Fast content search tool that works with any codebase size."),
    ("glob", "Fast file pattern matching tool that works with any codebase size."),
    ("list", "Lists files and directories in a given path."),
    ("task", "Launch a new agent to handle complex, multi-step tasks autonomously."),
    ("todowrite", "Use this tool to create and manage a structured task list."),
    ("todoread", "Use this tool to read your todo list."),
    ("webfetch", "Fetches content from a specified URL."),
)
OPENCODE_TOOLS = function_tools(_OPENCODE, {})


def opencode_body(ask: str) -> dict[str, Any]:
    """opencode's first request of a session: `ask` as the user's text part."""
    return {
        "model": "auto",
        "stream": True,
        "tools": OPENCODE_TOOLS,
        "messages": [
            {"role": "system", "content": OPENCODE_SYSTEM},
            {"role": "system", "content": OPENCODE_ENVIRONMENT},
            {"role": "user", "content": [{"type": "text", "text": ask}]},
        ],
    }
