"""Marvin's requests: each task read by its instructions, whatever call it forces for its
answer; `say()`'s task passed over for the user's message before it; its extract, classify
and cast tasks a given form over the data they are given.

Marvin (pypi `marvin` 3.2.7, on pydantic-ai 1.94.0: `marvin/templates/system.jinja`,
`agent.jinja`, `task.jinja`, `engine/end_turn.py`, `fns/`) sends each turn of a task as a chat
request: its system prompt (`SYSTEM_OPENING`, then the agent's block, `AGENT_OPENING`, with its
name, id and instructions, and `SYSTEM_END`), the thread's messages, and the task as a user
message in Marvin's frame (`<task>`, its `<id>`, a `<name>` for its functions' tasks,
`<instructions>` indented eight spaces, a `<context>` of tags, `<result-type>`,
`<assigned-actor-id>`: `TASK`), its attachments (`Task.get_prompt`: images, files) as parts
after it. Its answer is a call: the task's end-turn tool, `MarkTaskSuccessful_<task id>`
("Ends the current turn.. Mark a task successful and provide a result.",
`REPLY_DESCRIPTION`), with `tool_choice: "required"` on every request; a task that may fail,
skip or plan has more than one end-turn tool, and Marvin offers one `EndTurn` ("Ends the
current turn.") for them all (`END_TURN_TOOLS`, found running it).

- Read by the forcing (`classifier.rules.rule_intent`), every request was tool_calling 0.97
  and local: "What is the integral of x^2 * e^x dx? Show the steps." (math 0.998 asked alone)
  and a haiku (prose 0.999) alike (found in a live review). The forcing says only that the
  answer comes as a call: under Marvin's system prompt, with its end-turn tool offered, it is
  its reply channel (`replies_by_tool`, as Letta's `send_message` is: `classifier.letta`),
  and the request is read by its ask. Its end-turn tool is no tool of the task's: with it
  alone offered, no tool is (`own_tools`; counted, the tools' prior doubled the odds of
  tool_calling for every ask, and "Thanks, what's the time complexity?" read tool_calling
  0.59, not reasoning 0.56); a tool the user gave the agent beside it is offered, and an ask
  for it is tool use as anywhere (`classifier.rules.asks_for_tools`).
- Read whole, the frame was the ask: its `</...>` tags read as code, and `<task>` is the tag
  Cline wraps its first ask in (`classifier.harness.HARNESS_WRAPPERS`), so with
  `tool_choice: "auto"` a haiku's request was an agent's session, coding 0.89. The task's
  instructions are its ask (`task_ask`), out of the frame and its indentation: of long
  ones, only their ends (`READ_CHARS`, the ask's head and tail, `classifier.clip`).
- `say()` puts the user's message in the thread as a user message of its own and then a task
  whose instructions are "Respond to the user" (`SAY`, read coding 0.595): that task is
  passed over (`passed_over`), and the user's message before it is the ask.
- `extract()`, `classify()` and `cast()` put a fixed text of their own in the instructions
  ("You are an expert entity extractor ...", `FIXED_TASKS`) and the user's data in the
  context (`<Data to extract>`, `<Data to classify>`, `<Data to transform>`): whatever the
  data, they ask for entities copied out of it, one of given labels, or it reshaped to a
  given type. The labelling policy names those instruction work ("transformations such as
  sort, extract, reformat, classify into given labels", `classifier/data/audit/POLICY.md`), as
  n8n's Information Extractor and Text Classifier are read (`classifier.n8n`): instruction by
  rule (`fixed_form`), the data read as the ask.

Told by Marvin's exact texts: its system prompt's opening, its agent block's and its end, the
task's frame, the end-turn tool's name and description, its functions' task names and
openings. A forced call under another system prompt is a tool call, and a `<task>` in
another app's request is Cline's; a function given a prompt of the user's (`prompt=`) is read
by it. Not covered: a team's system prompt (`<team>` in place of the agent's block), and
Marvin's other functions (`summarize`, `generate`, `fn`, `plan`), read by their fixed
instructions. A thread's conversation key hashes its first task as sent, its id with it
(`router.conversation.conversation_key`). Marvin is no coding agent: its texts do not make a
request an agent's session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any, NamedTuple

from classifier.clip import HEAD_BYTES, TAIL_BYTES
from classifier.message import SCAN_ROLES, System, opening_text, per_text
from classifier.tool_choice import named_function

# `system.jinja` with an agent's `agent.jinja` (indented four spaces) inside
SYSTEM_OPENING = (
    "<system>\n    Complete tasks to the best of your ability by using the appropriate tool."
    " Follow all instructions carefully.\n\n    "
)
AGENT_OPENING = (
    "<agent>\n\n        You are an AI agent. This is your information. Do not impersonate"
    " other agents.\n\n        <name>"
)
SYSTEM_END = "</system>"
# `task.jinja`: its opening up to the instructions, which it indents eight spaces, and the
# line that ends them (indented four: no line of the instructions is indented less than eight)
TASK = re.compile(
    r"<task>\n    <id>[\w-]{1,64}</id>\n(?:    <name>(?P<name>[^\n]{1,256})</name>\n)?"
    r"    <instructions>\n"
)
INSTRUCTIONS_END = "\n    </instructions>\n"
TASK_END = "</task>"
_INDENT = re.compile(r"^ {8}", re.MULTILINE)
# How much of each end of a task's instructions is taken out of its indentation: the ask is
# read to a head and a tail (`classifier.clip`), and eight spaces a line leave at least a
# ninth of a text of lines (its line breaks). Dedented whole, 5.6 MB of instructions took 214
# ms to classify (1.6 ms the same text under another system prompt), read three times for
# the view and once more for the conversation key (found in review).
READ_CHARS = 9 * (HEAD_BYTES + TAIL_BYTES)
# `say()`'s task (`fns/say.py`)
SAY = "Respond to the user"
# Each function's task name, its fixed instructions' opening (`DEFAULT_PROMPT`), and the
# context tag its data goes in
FIXED_TASKS = {
    "Extraction Task": (
        "You are an expert entity extractor that always maintains as much semantic\n"
        "meaning as possible.",
        "Data to extract",
    ),
    "Classification Task": (
        "You are an expert classifier that always maintains as much semantic meaning\n"
        "as possible when labeling text.",
        "Data to classify",
    ),
    "Cast Task": (
        "You are an expert data converter that always maintains as much semantic\n"
        "meaning as possible.",
        "Data to transform",
    ),
}
# The task's end-turn tool (`engine/end_turn.py`, `create_mark_task_successful`), as
# pydantic-ai 1.94.0 offers it: Marvin's description of its output tool, then the class's
REPLY_NAME = re.compile(r"MarkTaskSuccessful_[\w-]{1,64}")
REPLY_DESCRIPTION = "Ends the current turn.. Mark a task successful and provide a result."
# Each of Marvin's end-turn tools (`Task.get_end_turn_tools`) by its exact name and
# description: a task's failure, skip and plan tools as each alone is offered, and the one
# tool offered for several (`EndTurn`: `allow_fail`, `allow_skip` or `plan` set, its
# `MarkTaskSuccessful_<id>` not offered). Read as the user's, one of them made "Thanks,
# what's the time complexity?" tool_calling 0.61, not reasoning 0.54 (found in review).
END_TURN_TOOLS = (
    (REPLY_NAME, REPLY_DESCRIPTION),
    (
        re.compile(r"MarkTaskFailed_[\w-]{1,64}"),
        "Ends the current turn.. Mark a task failed and provide a message.",
    ),
    (re.compile(r"MarkTaskSkipped_[\w-]{1,64}"), "Ends the current turn.. Mark a task skipped."),
    (
        re.compile(r"plan_subtasks_[\w-]{1,64}"),
        "Ends the current turn.. _PlanSubtasks(*, instructions: str)",
    ),
    (re.compile(r"EndTurn"), "Ends the current turn."),
)
SCAN_TOOLS = 64  # of a request's tools, read for its end-turn tool


class Task(NamedTuple):
    """A Marvin task (`task_of`): its name ("" for none), its instructions out of the frame
    and their indentation, its whole text, and where its instructions' end line ends."""

    name: str
    instructions: str
    text: str
    after: int


def framed(system: System) -> bool:
    """Whether a request of the system prompt `system` is a Marvin agent's: the prompt is
    Marvin's, with an agent's block (`_marvins`)."""
    return system.prompt is not None and _marvins(system.prompt)


@per_text
def _marvins(text: str) -> bool:
    """Whether a system prompt's text is Marvin's with an agent's block, kept for it
    (`per_text`): asked for each of a request's user messages that may be a task."""
    return (
        text.startswith(SYSTEM_OPENING)
        and text.startswith(AGENT_OPENING, len(SYSTEM_OPENING))
        and text.endswith(SYSTEM_END)
    )


def task_of(message: object) -> Task | None:
    """The Marvin task the user message `message` opens with (`TASK`, up to its
    instructions' end line, and `TASK_END` ending it): its content, or its first part, the
    task's attachments (images, files) after it; None for any other message."""
    text = opening_text(message)
    return None if text is None else _task_in(text)


@per_text
def _task_in(text: str) -> Task | None:
    """`task_of` a message of the text `text`, kept for it (`per_text`): the view reads a
    task for its ask, whether it was read in part and whether it is an extract's, and the
    conversation key for its ask again."""
    if not text.endswith(TASK_END):
        return None
    opened = TASK.match(text)
    if opened is None:
        return None
    end = text.find(INSTRUCTIONS_END, opened.end())
    if end < 0:
        return None
    instructions = _dedented(text, opened.end(), end)
    return Task(opened["name"] or "", instructions, text, end + len(INSTRUCTIONS_END))


def _dedented(text: str, start: int, end: int) -> str:
    """The instructions `text[start:end]` out of their indentation (`_INDENT`) and the white
    space around them. Of longer ones than `READ_CHARS` at each end, only those ends, joined
    by a line of "…": the ask's head and tail are read of them alike (`classifier.clip`), its
    middle never; the work is what is read, however long the instructions."""
    if end - start <= 2 * READ_CHARS:
        return _INDENT.sub("", text[start:end]).strip()
    head = _INDENT.sub("", text[start : start + READ_CHARS]).lstrip()
    tail = _INDENT.sub("", text[end - READ_CHARS : end]).rstrip()
    return f"{head}\n…\n{tail}"


def task_ask(message: object, system: System) -> object:
    """The user's words of the ask `message` when it is a task (`task_of`) in a Marvin
    request (`framed` of its system prompt, `system`): the data of an extract, classify or
    cast task (`_fixed_data`), else its instructions; any other content as it is (the very
    object)."""
    content = message.get("content") if isinstance(message, dict) else None
    task = task_of(message) if _may_be_task(content) and framed(system) else None
    if task is None:
        return content
    data = _fixed_data(task)
    return task.instructions if data is None else data


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is `say()`'s task in a Marvin request
    (`framed` of `system`, the system prompt of `messages`): its instructions are `SAY`,
    and the user's message before it is the ask."""
    message = messages[index]
    if not _may_be_task(message.get("content") if isinstance(message, dict) else None):
        return False
    if not framed(system):
        return False
    task = task_of(message)
    return task is not None and task.instructions == SAY


def fixed_form(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are Marvin's (`framed` of `system`, their system prompt) and their
    latest user message is an extract, classify or cast task of its own (`_fixed_data`): a
    given form over the data it holds."""
    if not framed(system):
        return False
    for message in islice(reversed(messages), SCAN_ROLES):
        if isinstance(message, dict) and message.get("role") == "user":
            task = task_of(message)
            return task is not None and _fixed_data(task) is not None
    return False


def _fixed_data(task: Task) -> str | None:
    """The data of an extract, classify or cast task with its function's own instructions
    (`FIXED_TASKS`: its name, their opening, its data's tag in the context after them);
    None for any other task, one given a prompt of the user's too."""
    fixed = FIXED_TASKS.get(task.name)
    if fixed is None or not task.instructions.startswith(fixed[0]):
        return None
    opening, closing = f"<{fixed[1]}>", f"</{fixed[1]}>"
    context = "    <context>\n"
    if not task.text.startswith(context, task.after):
        return None
    start = task.text.find(opening, task.after + len(context))
    end = task.text.find(closing, start) if start >= 0 else -1
    return None if end < 0 else task.text[start + len(opening) : end]


def replies_by_tool(system: System, tools: Sequence[Any], tool_choice: object) -> bool:
    """Whether a forced `tool_choice` is Marvin's reply channel: Marvin's request (`framed`
    of its system prompt, `system`) with an end-turn tool of its (`_reply_tool`) among its
    first `SCAN_TOOLS` tools, forcing "required" (or Anthropic's "any") or a call of an
    end-turn tool itself. A choice naming another tool is not."""
    named = named_function(tool_choice)
    if tool_choice not in ("required", "any") and not (
        isinstance(named, str) and any(pattern.fullmatch(named) for pattern, _ in END_TURN_TOOLS)
    ):
        return False
    return framed(system) and any(map(_reply_tool, islice(tools, SCAN_TOOLS)))


def own_tools(system: System, tools: list[Any]) -> list[Any]:
    """The tools a request offers for its task: `tools` without Marvin's end-turn tools
    among their first `SCAN_TOOLS` in its requests (`framed` of `system`), its reply channel
    and no tool; all of them elsewhere (the very list)."""
    if not tools or not framed(system) or not any(map(_reply_tool, islice(tools, SCAN_TOOLS))):
        return tools
    return [tool for tool in tools[:SCAN_TOOLS] if not _reply_tool(tool)] + tools[SCAN_TOOLS:]


def _reply_tool(tool: object) -> bool:
    """Whether a chat tool is one of Marvin's end-turn tools (`END_TURN_TOOLS`)."""
    function = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(function, dict):
        return False
    name, description = function.get("name"), function.get("description")
    return isinstance(name, str) and any(
        description == described and pattern.fullmatch(name) is not None
        for pattern, described in END_TURN_TOOLS
    )


def _may_be_task(content: object) -> bool:
    """Whether a message's content may be a Marvin task (`TASK`): a text that opens
    "<task>", a string or its first part (a cheap look before `task_of` reads it whole).
    `Task.get_prompt` sends the rendered task and then its attachments: read by one text
    part alone, `marvin.run(["Describe this", ImageUrl(...)])` was Cline's `<task>`, coding
    0.914 (found in review)."""
    if isinstance(content, list) and content and isinstance(content[0], dict):
        content = content[0].get("text") if content[0].get("type") == "text" else None
    return isinstance(content, str) and content.startswith("<task>\n")
