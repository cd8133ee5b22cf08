"""What open-codex 0.1.31 sends: its one tool, `shell` (`agent-loop.ts`), which names no known
coding agent (`classifier.harness_tools.PLAIN_NAMES`), its `command` an argv."""

from __future__ import annotations

from typing import Any

SHELL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "shell",
        "description": "Runs a shell command, and returns its output.",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "array", "items": {"type": "string"}},
                "workdir": {"type": "string", "description": "The working directory."},
                "timeout": {"type": "number", "description": "The maximum time to wait."},
            },
            "required": ["command"],
            "additionalProperties": False,
        },
    },
}
