"""BeeAI Framework's requests: its agents' forced `final_answer` call read as their reply
channel, and the user's ask read out of the words its agents wrap it in.

BeeAI Framework (pypi `beeai-framework` 0.1.85, on litellm: `agents/requirement/prompts.py`,
`agents/requirement/utils/_tool.py`, `agents/tool_calling/`, `agents/react/runners/default/
prompts.py`) sends each step of an agent as a chat request:

- Its RequirementAgent (the agent BeeAI recommends) and ToolCallingAgent answer the user by
  calling `final_answer` (`REPLY_TOOL`, "Sends the final answer to the user",
  `REPLY_DESCRIPTION`), whose call the RequirementAgent forces on every turn offering no other
  tool (`tool_choice` naming it). Read by the forcing (`classifier.rules.rule_intent`), every
  ask was tool_calling 0.97 and local: "What were the main causes of World War I?", a proof
  that the square root of 2 is irrational and a haiku alike, which sent plainly go to the
  cloud (found in a live review). Under BeeAI's system prompt (`framed`: its opening,
  `REQUIREMENT_OPENING` or `TOOL_CALLING_OPENING`, with `REPLY_LINE` near it) a forced
  `final_answer` is its reply channel (`replies_by_tool`), as Letta's `send_message` and
  Marvin's end-turn tool are (`classifier.letta`, `classifier.marvin`), and the request is
  read by its ask. `final_answer` is no tool of the task's (`own_tools`): with it alone
  offered no tool is; a tool the user gave the agent beside it is offered, and an ask for it
  is tool use as anywhere (`classifier.rules.asks_for_tools`).
- Both wrap the user's message as "Your task: <ask>" (`TASK_PREFIX`, the ToolCallingAgent's
  with a line break after it), every turn of a conversation kept so: read as sent, its words
  are the ask's (`task_ask` reads the ask after them).
- Its ReActAgent (deprecated, still shipped) sends a text protocol of its own (no `tools`:
  its system prompt opens `REACT_OPENING` and holds `REACT_PROTOCOL`), the latest user message
  as "Message: <ask>\\n\\nThis message was created at <ISO time>" (`REACT_PREFIX`,
  `REACT_CREATED`): the time changed the ask's reading, and the ask is read without either.

Told by BeeAI's exact texts: its system prompts' openings and the line on `final_answer`, the
tool's name and description, the wrappers. "Your task: " or "Message: " in another app's
request is the user's. Not covered: a task given `context` or `expected_output` (its text
opens with them, the ask after them is read as sent), and a RequirementAgent given a system
prompt template of its own. BeeAI is no coding agent: its texts do not make a request an
agent's session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any

from classifier.message import System, opening_text, per_text
from classifier.tool_choice import named_function

REQUIREMENT_OPENING = "# Role\nAssume the role of "
TOOL_CALLING_OPENING = "Assume the role of "
REPLY_LINE = (
    "When the user sends a message, figure out a solution and provide a final answer to the"
    " user by calling the 'final_answer' tool.\n"
)
# How far into the system prompt `REPLY_LINE` is looked for: after the role and the agent's
# instructions, both the user's
LINE_WITHIN = 65_536
REPLY_TOOL = "final_answer"
REPLY_DESCRIPTION = "Sends the final answer to the user"
SCAN_TOOLS = 64  # of a request's tools, read for `REPLY_TOOL`
TASK_PREFIX = "Your task: "
REACT_OPENING = "# Available functions\n"
REACT_PROTOCOL = (
    "# Communication structure\nYou communicate only in instruction lines. The format is:"
    ' "Instruction: expected output".'
)
REACT_PREFIX = "Message: "
# `formatCreatedAt`: the message's time, `isoformat()` without microseconds
REACT_CREATED = re.compile(
    r"\n\nThis message was created at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[+-]\d\d:\d\d)?\Z"
)
CREATED_TAIL = 64  # of a message's text, read for `REACT_CREATED`


def framed(system: System) -> bool:
    """Whether a request of the system prompt `system` is a BeeAI RequirementAgent's or
    ToolCallingAgent's (`_agents`)."""
    return system.prompt is not None and _agents(system.prompt)


@per_text
def _agents(text: str) -> bool:
    """Whether a system prompt's text is BeeAI's: an opening of its agents' and `REPLY_LINE`
    within `LINE_WITHIN`; kept for it (`per_text`)."""
    if not text.startswith((REQUIREMENT_OPENING, TOOL_CALLING_OPENING)):
        return False
    return text.find(REPLY_LINE, 0, LINE_WITHIN) >= 0


def react(system: System) -> bool:
    """Whether a request of the system prompt `system` is a BeeAI ReActAgent's: its opening
    (`REACT_OPENING`) and its protocol (`REACT_PROTOCOL`) within `LINE_WITHIN`."""
    text = system.prompt
    return (
        text is not None
        and text.startswith(REACT_OPENING)
        and text.find(REACT_PROTOCOL, 0, LINE_WITHIN) >= 0
    )


def replies_by_tool(system: System, tools: Sequence[Any], tool_choice: object) -> bool:
    """Whether a forced `tool_choice` is BeeAI's reply channel: its agent's request (`framed`
    of its system prompt, `system`) with `final_answer` among its first `SCAN_TOOLS` tools,
    forcing "required" (or Anthropic's "any") or a call of `final_answer` itself. A choice
    naming another tool is not."""
    if tool_choice not in ("required", "any") and named_function(tool_choice) != REPLY_TOOL:
        return False
    return framed(system) and any(map(_reply_tool, islice(tools, SCAN_TOOLS)))


def own_tools(system: System, tools: list[Any]) -> list[Any]:
    """The tools a request offers for its task: `tools` without `final_answer` among their
    first `SCAN_TOOLS` in BeeAI's requests (`framed` of `system`), its reply channel and no
    tool; all of them elsewhere (the very list)."""
    if not tools or not any(map(_reply_tool, islice(tools, SCAN_TOOLS))) or not framed(system):
        return tools
    return [tool for tool in tools[:SCAN_TOOLS] if not _reply_tool(tool)] + tools[SCAN_TOOLS:]


def _reply_tool(tool: object) -> bool:
    """Whether a chat tool is BeeAI's `final_answer` (its name and description)."""
    function = tool.get("function") if isinstance(tool, dict) else None
    return (
        isinstance(function, dict)
        and function.get("name") == REPLY_TOOL
        and function.get("description") == REPLY_DESCRIPTION
    )


def task_ask(message: object, system: System) -> object:
    """The user's words of the ask `message` in a BeeAI agent's request: after
    `TASK_PREFIX` (`framed` of `system`, its system prompt), or between `REACT_PREFIX` and
    `REACT_CREATED` (`react`); any other content as it is (the very object)."""
    content = message.get("content") if isinstance(message, dict) else None
    text = opening_text(message) if isinstance(content, (str, list)) else None
    if text is None:
        return content
    if text.startswith(TASK_PREFIX) and framed(system):
        ask = text[len(TASK_PREFIX) :]
        return ask.removesuffix("\n") or content
    if text.startswith(REACT_PREFIX) and react(system):
        created = REACT_CREATED.search(text, max(0, len(text) - CREATED_TAIL))
        ask = text[len(REACT_PREFIX) : None if created is None else created.start()]
        return ask or content
    return content
