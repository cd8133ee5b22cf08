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
- Where the model's API does not take the forced choice (BeeAI's OpenAI adapter with a base
  URL of its own), both send no `tools` but ask for a call of one in `response_format`, a
  JSON schema of the tools' calls (`TOOL_CALL_FORMAT`): its user tools are read as offered
  (`format_tools`, `classifier.frameworks.offered_tools`), `final_answer` not. The
  ToolCallingAgent's nudge after a repeated call (`NUDGE`) is its own, passed over
  (`passed_over`).
- Both wrap the user's message as "Your task: <ask>" (`TASK_PREFIX`, the ToolCallingAgent's
  with a line break after it), every turn of a conversation kept so: read as sent, its words
  are the ask's (`task_ask` reads the ask after them).
- Its ReActAgent (deprecated, still shipped) sends a text protocol of its own (no `tools`:
  its system prompt opens `REACT_OPENING` and holds `REACT_PROTOCOL`), the latest user message
  as "Message: <ask>\\n\\nThis message was created at <ISO time>" (`REACT_PREFIX`,
  `REACT_CREATED`): the time changed the ask's reading, and the ask is read without either.
  A later turn's history holds the ask unwrapped, its part as sent: a conversation's key
  reads either by its opening text, out of the wrapper (`react_words`).

Told by BeeAI's exact texts: its system prompts' openings and the line on `final_answer`, the
tool's name and description, the wrappers, the schema's name and its calls' fields, the nudge.
"Your task: " or "Message: " in another app's request is the user's. Not covered: a task given
`context` or `expected_output` (its text opens with them, the ask after them is read as sent),
a RequirementAgent given a system prompt template of its own, and a call of one user tool
forced through `response_format` (read as offered, not forced). BeeAI is no coding agent: its
texts do not make a request an agent's session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import islice
from typing import Any

from classifier.message import System, lead_text, one_text, opening_text, per_text
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
# `backend/utils.py` `generate_tool_union_schema`: the tools' calls as a JSON schema, the name
# of its `json_schema`, the wrapper's field (`WrappedRootModel`, OpenAI's adapter), each call's
# name field's description
TOOL_CALL_FORMAT = "ToolCall"
CALL_WRAPPER = "item"
CALL_NAME = "Tool Name"
# `agents/tool_calling/prompts.py` `ToolCallingAgentCycleDetectionPrompt`, its reply tool named
NUDGE = "I can't see your answer. You must use the 'final_answer' tool to send me a message."


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


def format_tools(body: Mapping[str, Any], system: System) -> list[dict[str, Any]]:
    """The user's tools a BeeAI agent's request (`framed` of `system`) offers in its
    `response_format` instead of `tools`, in the shape of a request's `tools`; none for any
    other request.

    Where the model's API does not take the `tool_choice` an agent forces ("required"; with a
    base URL of its own, BeeAI's OpenAI adapter assumes it does not), BeeAI sends no `tools`
    and asks for a JSON call of one of them (`ChatModel._force_tool_call_via_response_format`):
    a `json_schema` named `TOOL_CALL_FORMAT` whose schema is an `anyOf` of each tool's call
    (`{"name": {"const": <tool>, "description": CALL_NAME}, "parameters": <its schema>}`),
    wrapped in `CALL_WRAPPER` for OpenAI, a list of them when calls may run in parallel, or one
    tool's call alone (`_calls`). Unread, a tool agent's turn offered no tool: "What is the
    weather in Paris, and what is 17 + 25? Use the tools." read math 0.45 and went to the
    cloud (found in a live review). `final_answer` among them is its reply channel, no tool
    (as in `own_tools`); the first `SCAN_TOOLS` calls are read."""
    answer = body.get("response_format")
    if not isinstance(answer, dict) or answer.get("type") != "json_schema":
        return []
    spec = answer.get("json_schema")
    if not isinstance(spec, dict) or spec.get("name") != TOOL_CALL_FORMAT or not framed(system):
        return []
    calls = (_call_tool(call) for call in islice(_calls(spec.get("schema")), SCAN_TOOLS))
    return [tool for tool in calls if tool is not None]


def _call_tool(call: object) -> dict[str, Any] | None:
    """One tool's call of BeeAI's `TOOL_CALL_FORMAT` schema as a request's tool (its name,
    its parameters' schema); None for `final_answer` or a schema not of a call."""
    fields = call.get("properties") if isinstance(call, dict) else None
    name = fields.get("name") if isinstance(fields, dict) else None
    if not isinstance(fields, dict) or not isinstance(name, dict):
        return None
    tool = name.get("const")
    if name.get("description") != CALL_NAME or not isinstance(tool, str) or not tool:
        return None
    if tool == REPLY_TOOL:
        return None
    function = {"name": tool, "parameters": fields.get("parameters") or {}}
    return {"type": "function", "function": function}


def _calls(schema: object) -> list[Any]:
    """The tools' calls of BeeAI's `TOOL_CALL_FORMAT` schema: under its wrapper's field
    (`CALL_WRAPPER`) or not, in a list's items or not, an `anyOf` of them or one alone."""
    node = schema
    fields = node.get("properties") if isinstance(node, dict) else None
    if isinstance(fields, dict) and CALL_WRAPPER in fields and "name" not in fields:
        node = fields[CALL_WRAPPER]
    if isinstance(node, dict) and isinstance(node.get("items"), dict):
        node = node["items"]
    if not isinstance(node, dict):
        return []
    union = node.get("anyOf")
    return union if isinstance(union, list) else [node]


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is the ToolCallingAgent's nudge (`NUDGE`),
    sent when its model repeats a tool call, in a BeeAI agent's request (`framed` of
    `system`): read as the ask, "I can't see your answer. ..." was tool_calling 0.80 whatever
    the task (found in a live review); passed over, the task's ask before it is read."""
    return one_text(messages[index]) == NUDGE and framed(system)


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


def react_words(words: object, system: System) -> object:
    """The words a BeeAI ReActAgent's first ask keys its conversation by
    (`router.conversation`): its opening text (`lead_text`) without white space at the end,
    whether it came wrapped or not, when `words` (the ask's content as read, `task_ask`) are
    parts of a ReActAgent's request (`react` of `system`); any other words as they are (the
    very object).

    Its turn's ask comes wrapped in one text part (`REACT_PREFIX`), read as the string inside
    the wrapper; a later turn's history holds that ask unwrapped, its one text part as sent:
    keyed as read, the two turns were two conversations in the ledger (found running
    BeeAI Framework 0.1.85). The wrapped ask is read by its opening text alone, and so is the
    unwrapped one. Only its requests: another app's "Message: " text is its own."""
    if not isinstance(words, list) or not react(system):
        return words
    text = lead_text(words)
    return words if text is None else text.rstrip()


# A tool's line in RequirementAgent's system prompt, whether it may be called now, and what a
# conversation's key reads for it (`without_flags`)
_ALLOWED = re.compile(r"^Allowed: (?:True|False)$", re.MULTILINE)
ALLOWED = "Allowed: <now>"
_FLAG_CHARS = len("Allowed: False")  # the longest flag's line


def without_flags(system: str, chars: int) -> str:
    """The first `chars` characters of `system` as they read with each of its tools' flags
    (`_ALLOWED`) read as `ALLOWED`, when it is a RequirementAgent's prompt (it opens
    `REQUIREMENT_OPENING`); any other as it is, whole.

    The agent writes `Allowed: True` or `Allowed: False` after each tool, as its
    requirements allow the tool step by step: keyed as sent, one tool run was a conversation
    per flag (found running BeeAI Framework 0.1.85; `router.conversation`). Only its prompt:
    another app's "Allowed: True" line is its own text, and read over every prompt whole the
    rule made a 190 KB prompt's key three times as slow (found in review). Read no further
    than `_FLAG_CHARS` past `chars`: a flag never shortens its line, so a line read anew
    within the first `chars` lies whole within them, its line's end too; one cut off at that
    end (its line not ended, "Allowed: True" of "Allowed: Truer") starts past `chars`."""
    if not system.startswith(REQUIREMENT_OPENING):
        return system
    return _ALLOWED.sub(ALLOWED, system[: chars + _FLAG_CHARS])[:chars]
