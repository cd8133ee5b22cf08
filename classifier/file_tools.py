"""Whether a request's tools can read files or run commands: a shell or a file tool offered.

An ask that names a source file is coding with such a tool offered outside a coding agent's
session (`classifier.rules.offered_file_intent`): open-codex offers one `shell`, which names no
known agent. Any tool is not enough: with a chat app's `web_search` or `fetch_url` offered,
"Summarize the article at bbc.co.uk/news/world-europe-123.html" and "write a haiku about my
script deploy.sh" became coding 0.90 (found in review): no tool of the app's can open the file.

A tool reaches files or a shell by its name's words (`_NAME_WORDS`: "shell", "bash",
"terminal", "exec", "command", "file", "dir"…, in snake_case, camelCase or PascalCase:
open-codex's `shell`, Codex's `exec_command`, `read_file` of the MCP filesystem server, Kimi
CLI's `ReadFile`, `run_terminal_cmd`) or by a parameter's name (`_PARAMETERS`: a command or
its argv, a path, a file name, a working directory: OpenHands' `str_replace_editor`, a
deepagents `execute`). Not "execute" alone (an `execute_sql` reads a database), nor a URL or a
query (the web's). Bounded: the tools `classifier.toolset.scanned_tools` reads, and the first
`_PROPERTIES` parameters of each, looked up as written: 6 µs for three tools, 30 µs for 80
of 40 parameters each (2026-12-07, best of 5 on the shared 2-core build machine).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import islice
from typing import Any

from classifier.toolset import scanned_tools, tool_name

_SHELL_WORDS = "shell bash zsh powershell terminal exec command commands cmd"
SHELL_WORDS = frozenset(_SHELL_WORDS.split())
"""A shell tool's name's words (lower case): the tool runs what it is given as a command.
The simulator fills such a tool's free strings with a harmless command, never the ask's
words (`router.simulator.scalars`)."""
_FILE_WORDS = "file files filesystem fs dir directory ls glob grep"
_COMMAND_OR_PATH = (
    "command commands cmd argv path paths file files filename file_name fileName filepath "
    "file_path filePath file_paths filePaths dir directory workdir cwd"
)
_NAME_WORDS = SHELL_WORDS | frozenset(_FILE_WORDS.split())
_PARAMETERS = frozenset(_COMMAND_OR_PATH.split())
_PROPERTIES = 32  # parameters read of each tool
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")  # "ReadFile", "LS", "run_terminal_cmd"
# Any of the words inside a name in lower case: a name without one is split into none (one
# search in C, where most of an app's tools have none)
_ANY_WORD = re.compile("|".join(sorted(_NAME_WORDS, key=len, reverse=True)))


def reaches_files(tools: list[Any]) -> bool:
    """Whether any of `tools` (as a request sends them, `classifier.toolset.scanned_tools`)
    can read files or run commands: a shell or a file tool, by its name's words or its
    parameters' names."""
    return any(_reaches(tool) for tool in scanned_tools(tools))


def _reaches(tool: object) -> bool:
    """Whether `tool` is a shell or a file tool, by its name's words or its parameters'
    names, as written (a set's lookup in C: "file_path", "filePath")."""
    name = tool_name(tool)
    if (
        isinstance(name, str)
        and _ANY_WORD.search(name[:200].lower())
        and any(word.lower() in _NAME_WORDS for word in _WORD.findall(name[:200]))
    ):
        return True
    properties = _parameters(tool).get("properties")
    return isinstance(properties, Mapping) and not _PARAMETERS.isdisjoint(
        islice(properties, _PROPERTIES)
    )


def _parameters(tool: object) -> Mapping[str, Any]:
    """A tool's parameters' schema, where a chat tool keeps it (under `function`) or other
    APIs' (at the top, `parameters` or Anthropic's `input_schema`); {} for none."""
    if not isinstance(tool, dict):
        return {}
    inner = tool.get("function")
    holder = inner if isinstance(inner, dict) else tool
    schema = holder.get("parameters") or holder.get("input_schema")
    return schema if isinstance(schema, Mapping) else {}
