"""What Continue sends in agent mode: its agent-mode system message, its built-in tools
(`builtin_*`), the user's words.

From continuedev/continue core/llm/defaultSystemMessages.ts (DEFAULT_AGENT_SYSTEM_MESSAGE)
and core/tools/builtIn.ts; the texts are shortened but keep their openings.
"""

from __future__ import annotations

from typing import Any

from tests.agent_shapes.tools import function_tools

CONTINUE_AGENT_SYSTEM = (
    "<important_rules>\n  You are in agent mode.\n\n  If you need to use multiple tools, you "
    "can call multiple read-only tools simultaneously.\n\n  Always include the language and "
    "file name in the info string when you write code blocks.\n  If you are editing "
    "\"src/main.py\" for example, your code block should start with '```python src/main.py'\n"
    "\nHowever, only output codeblocks for suggestion and demonstration purposes, for "
    "example, when enumerating multiple hypothetical options. For implementing changes, use "
    "the edit tools.\n\n</important_rules>"
)
_CONTINUE = (
    ("builtin_read_file", "Use this tool if you need to view the contents of an existing file."),
    ("builtin_edit_existing_file", "Use this tool to edit an existing file."),
    ("builtin_create_new_file", "Create a new file."),
    ("builtin_run_terminal_command", "Run a terminal command in the current directory."),
    ("builtin_grep_search", "Perform a search over the repository using ripgrep."),
    ("builtin_file_glob_search", "Search for files recursively in the project."),
    ("builtin_view_diff", "View the current diff of working changes"),
    ("builtin_read_currently_open_file", "Read the currently open file in the IDE."),
    ("builtin_ls", "List files and folders in a given directory"),
    ("builtin_search_web", "Performs a web search, returning top results."),
)
CONTINUE_TOOLS = function_tools(_CONTINUE, {})


def continue_agent_body(ask: str) -> dict[str, Any]:
    """Continue's request in agent mode: `ask` as the user's message."""
    return {
        "model": "auto",
        "stream": True,
        "tools": CONTINUE_TOOLS,
        "messages": [
            {"role": "system", "content": CONTINUE_AGENT_SYSTEM},
            {"role": "user", "content": ask},
        ],
    }
