"""What Goose sends: its tools (`<extension>__<tool>`) and its note of the time, the working
directory, the tokens used and the todo list (`<info-msg>`, `collect_moim` in its
`extension_manager.rs`), which `inject_moim` (`agents/moim.rs`) puts in the user message
before the last assistant message: before the ask on a first turn.

The system prompt is shortened; the note is as Goose writes it.
"""

from __future__ import annotations

from typing import Any

from tests.agent_shapes.tools import COMMAND, function_tools

GOOSE_SYSTEM = (
    "You are a general-purpose AI agent called goose, created by Block, the parent company of "
    "Square, CashApp, and Tidal. goose is being developed as an open-source software project."
)
GOOSE_NOTE = (
    "<info-msg>\nIt is currently 2026-11-20 09:14:00\nWorking directory: /home/dev/dsync\n"
    "Token usage: 18234 / 128000 (14%)\n\nCurrent tasks and notes:\n- [x] add --verbose flag\n"
    "- [ ] make tests pass\n</info-msg>"
)
GOOSE_TOOLS = function_tools(
    (
        ("developer__shell", "Execute a command in the shell."),
        ("developer__text_editor", "Perform text editing operations on files."),
        ("todo__todo_write", "Overwrite the entire TODO content."),
    ),
    COMMAND,
)


def goose_body(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A chat body as Goose sends it, with `messages` after its system prompt."""
    system = {"role": "system", "content": GOOSE_SYSTEM}
    return {"model": "auto", "tools": GOOSE_TOOLS, "messages": [system, *messages]}
