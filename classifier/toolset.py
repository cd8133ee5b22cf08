"""The tools a request offers, as the classifier reads them: its own, past an agent's built-ins.

An agent offers its built-in tools (`classifier.harness_tools`) on every turn, first, whatever
the task; a request's own come after them (Claude Code's MCP tools). The classifier reads the
names of a bounded number of the request's own (`scanned_tools`), which an ask must name to ask
for a tool (`classifier.rules.asks_for_tools`), and whether the tools are a coding agent's
harness (`classifier.rules.agent_session`); `classifier.request` reads the rest of its view.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

from classifier import kimi
from classifier.harness_tools import (
    AGENT_IDENTITIES,
    GENERAL_HARNESS_SIGN,
    GENERAL_HARNESS_TOOLS,
    HARNESS_SEEN,
    HARNESS_TOOLS,
    PLAIN_NAMES,
)
from classifier.message import System

TOOL_CHARS = 600
SCAN_TOOLS = 16
# How many tools are looked at, at most, for `SCAN_TOOLS` of the request's own: an agent's
# built-in tools (`classifier.harness_tools.HARNESS_TOOLS`) are not counted. Claude Code offers
# some twenty of its own before its MCP tools, so the first 16 tools held none of those,
# and "create an issue" could never name `mcp__github__create_issue` (found in review).
SCAN_TOOLS_READ = 64
_NONE: frozenset[str] = frozenset()
# The coding agents' built-in tools that a general harness does not offer as its own
_CODING_ONLY = HARNESS_TOOLS - GENERAL_HARNESS_TOOLS
_IDENTITIES = (*AGENT_IDENTITIES, kimi.IDENTITY)


def tool_names(tools: list[Any], identified: bool = False) -> tuple[str, bool]:
    """The names of the offered tools a request can name, space-separated, to `TOOL_CHARS`:
    what it must name to ask for them (`rules.asks_for_tools`). Not their descriptions: an
    agent's tools are described in everyday words (Claude Code's Bash "executes a given bash
    command", Codex's update_plan "a list of plan items"), and two of them shared with an ask
    made "Make the export command write a CSV file" tool_calling (found in review). Nor an
    agent's built-in tools (`HARNESS_TOOLS`), when at least `HARNESS_SEEN` of them among the
    tools read, not all of them names any app may give its own (`PLAIN_NAMES`) unless the
    request is `identified` as a coding agent's (`agent_identified`), say the tools are an
    agent's harness, nor a general harness's
    (`GENERAL_HARNESS_TOOLS`, when all of `GENERAL_HARNESS_SIGN` are read), which count
    for no coding agent's. The tools read are `scanned_tools`', with the names it looked up
    (`_scanned`): each is looked up once. Also whether they are a coding agent's harness."""
    names = [name for _, name in _scanned(tools) if isinstance(name, str)]
    general = GENERAL_HARNESS_SIGN.issubset(names)
    own = _CODING_ONLY if general else HARNESS_TOOLS
    counted = [name for name in names if name in own]
    agent = len(counted) >= HARNESS_SEEN and (identified or not PLAIN_NAMES.issuperset(counted))
    built_in = HARNESS_TOOLS if agent else _NONE
    if general:
        built_in = built_in | GENERAL_HARNESS_TOOLS
    if built_in:
        names = [name for name in names if name not in built_in]
    return " ".join(name[:200] for name in names)[:TOOL_CHARS], agent


def agent_identified(system: System) -> bool:
    """Whether the request's system prompt (`system`) opens with a coding agent's identity
    (`AGENT_IDENTITIES`, Kimi CLI's): its first text (`System.opening`), of which no more is
    read than the identities' length (`startswith`). Beside it, an agent's plain tool names
    are its harness: a Claude Code subagent may be given only Read, Write and Edit (found in
    review)."""
    text = system.opening
    return text is not None and text.startswith(_IDENTITIES)


def scanned_tools(tools: list[Any]) -> Iterator[Any]:
    """The tools read for their names: the first `SCAN_TOOLS` that are not an agent's
    built-ins (`HARNESS_TOOLS`), and the built-ins before and among them, from the first
    `SCAN_TOOLS_READ` tools. What the router's view of other APIs keeps of a request's
    tools, too (`router.translate.view`)."""
    return (tool for tool, _ in _scanned(tools))


def _scanned(tools: list[Any]) -> Iterator[tuple[Any, object]]:
    """`scanned_tools`, each with its name (`tool_name`)."""
    own = 0
    for tool in islice(tools, SCAN_TOOLS_READ):
        if own == SCAN_TOOLS:
            return
        name = tool_name(tool)
        if not (isinstance(name, str) and name in HARNESS_TOOLS):
            own += 1
        yield tool, name


def tool_name(tool: object) -> object:
    """A tool's name, or whatever a body holds in its place: a chat tool keeps its name under
    `function`, or under `custom` (a freeform tool); other APIs' at the top."""
    if not isinstance(tool, dict):
        return None
    inner = tool.get("function") or tool.get("custom")
    return (inner if isinstance(inner, dict) else tool).get("name")
