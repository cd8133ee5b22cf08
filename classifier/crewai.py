"""crewAI's own texts around a task: the frame it puts the task in, and its nudges after it.

crewAI (1.15.30: `crewai/translations/en.json` "slices", `crewai/utilities/prompts.py`,
`Task.prompt`) runs each task as a conversation of its own. Its system prompt opens with the
agent's role-playing slice, "You are {role}. {backstory}\\nYour personal goal is: {goal}"
(then, when tools are called in text, its tools and format); its one user message frames the
task: `TASK_OPENING`, the task's description, `CRITERIA`, the task's expected output,
`CRITERIA_END`, then what crewAI adds (a markdown or a schema instruction, "This is the
context you're working with:" and earlier tasks' outputs, memories, knowledge) and the end
its mode writes ("Begin! This is VERY important to you, use the tools available ...
Thought:" with tools in text, "Provide your complete response:" without tools, none with
native tool calls). With `use_system_prompt=False` the role-playing slice and the task are
one user message. Read whole, the frame was the ask: "Compute 17 * 23" went from math 0.97
(cloud) to instruction 0.43 (local), "Explain why the sky is blue" from reasoning 0.97 to
writing 0.58 (found in a review of agent frameworks).

So the task's description and its expected output are read, a line apart: both are the
user's words, and the criteria say what the answer must be as "in three sentences" would in
an ask; crewAI's sentences around them, and all it appends after them, are not read (earlier
tasks' outputs are read by no one, as a tool's result is not). With tools called in text,
crewAI sends `POST_TOOL` as a user message after each tool's result, and when a task reaches
its `max_iter` it asks for the answer with `FORCE_FINAL` (`errors.force_final_answer`, a user
message after the last tool's result, native tool calls or not): each is passed over, and the
task before it is read. Read, `FORCE_FINAL` made "What is the weather in Paris?" instruction
0.52 where its task is tool_calling (found running crewAI). Its other error texts reach no
request: a tool's failure ("I encountered an error while trying to use the tool...", a wrong
tool's name) is the tool's result (in the reply's "Observation:" or a `tool` message), and its
parser's ("Invalid Format: I missed the 'Action:' after 'Thought:'...") never leaves it:
`format_answer` takes a reply it cannot parse as the final answer.

With files (`Task(input_files=...)`, the `crewai-files` package, a model that reads images),
the task's message is a list of parts: the text above as the first (a `text` part, or
`input_text` over the Responses API), the files after it; the description then ends with
crewAI's list of them (`FILES`, "Input files (content already loaded in conversation):" and a
line a file), which is cut as crewAI's too. Read whole, the parts' "Compute 17 * 23" was
instruction 0.39 where its words alone are math 0.99.

Only in crewAI's requests: the first message (the system prompt, or the user message that
holds the task) opens with its role-playing slice. A user who types "Current Task:" in
another request is read as written. crewAI is no coding agent: its texts, cut or passed
over, do not make the request an agent's session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import one_text

ROLE_OPENING = "You are "
GOAL = "\nYour personal goal is: "
# The "task", "task_no_tools" and "native_task" slices' opening, after a line break
TASK_OPENING = "Current Task: "
# The "expected_output" slice, which `Task.prompt` puts after the description on a line of
# its own: its opening and its fixed last sentence
CRITERIA = "\n\nThis is the expected criteria for your final answer: "
CRITERIA_END = "\nyou MUST return the actual complete content as the final answer, not a summary."
# The "post_tool_reasoning" slice: a user message of its own after each tool's result
POST_TOOL = (
    "Analyze the tool result. If requirements are met, provide the Final Answer. Otherwise,"
    " call the next tool. Deliver only the answer without meta-commentary."
)
# The "force_final_answer" error: a user message of its own once a task reaches its `max_iter`
# (`crewai/utilities/agent_utils.py` `handle_max_iterations_exceeded`)
FORCE_FINAL = (
    "Now it's time you MUST give your absolute best final answer. You'll ignore all previous"
    " instructions, stop using any tools, and just return your absolute BEST Final answer."
)
# `Task.prompt`'s list of a task's files, ending its description: "\n\n", then a heading and
# a line a file ('  - "name" (filename)', with the content type for the tool's) for the files
# the model is sent, for those left to crewAI's `read_file` tool, or both
_FILE_LINES = r"(?:\n  - \"[^\"\n]*\" \([^\n]*\))+"
FILES = re.compile(
    r"\n\n(?=Input files|Available input files)"
    rf"(?:Input files \(content already loaded in conversation\):{_FILE_LINES}(?:\n|\Z))?"
    rf"(?:Available input files \(use the name in quotes with read_file tool\):{_FILE_LINES})?\Z"
)
_TEXT_PARTS = ("text", "input_text")
# How far each of crewAI's fixed sentences is looked for past the last (a backstory, the tools'
# list, a description, an expected output): past it, the text is read as written
WITHIN = 65_536


def task_ask(message: object, messages: Sequence[Any]) -> object:
    """The content of `message`, the task's description (without crewAI's list of its files)
    and expected output inside crewAI's frame when `messages` are a crewAI request's, its
    files' parts left out; any other content as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    text = _lead(content)
    start = _task_start(text, messages) if text is not None else -1
    if text is None or start < 0:
        return content
    criteria = text.find(CRITERIA, start, start + WITHIN)
    if criteria < 0:
        return content
    after = criteria + len(CRITERIA)
    end = text.find(CRITERIA_END, after, after + WITHIN)
    if end < 0:
        return content
    description = text[start:criteria]
    files = FILES.search(description)
    words = (description[: files.start() if files else None].strip(), text[after:end].strip())
    return "\n".join(word for word in words if word)


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is crewAI's `POST_TOOL` or `FORCE_FINAL`,
    in its request."""
    return one_text(messages[index]) in (POST_TOOL, FORCE_FINAL) and _crews(messages)


def _lead(content: object) -> str | None:
    """The text that may hold a task: a string content, or the first of a list of parts when
    it is a text part (crewAI puts a task's files after it); None otherwise."""
    if isinstance(content, str):
        return content
    first = content[0] if isinstance(content, list) and content else None
    if isinstance(first, dict) and first.get("type") in _TEXT_PARTS:
        text = first.get("text")
        return text if isinstance(text, str) else None
    return None


def _task_start(text: str, messages: Sequence[Any]) -> int:
    """Where the task's description starts in `text`: past `TASK_OPENING` that opens it (past
    a line break) when the request's system prompt is crewAI's, or that follows the
    role-playing slice `text` opens with; -1 when it is no task of crewAI's."""
    if text.startswith(("\n" + TASK_OPENING, TASK_OPENING)):
        return text.index(TASK_OPENING) + len(TASK_OPENING) if _crews(messages) else -1
    goal = _goal(text)
    at = text.find("\n" + TASK_OPENING, goal, goal + WITHIN) if goal >= 0 else -1
    return at + 1 + len(TASK_OPENING) if at >= 0 else -1


def _crews(messages: Sequence[Any]) -> bool:
    """Whether `messages` are a crewAI request's: the first opens with its role-playing slice."""
    first = one_text(messages[0]) if messages else None
    return first is not None and _goal(first) >= 0


def _goal(text: str) -> int:
    """Where the role-playing slice that `text` opens with says the agent's goal; -1 when it
    opens with none."""
    return text.find(GOAL, 0, WITHIN) if text.startswith(ROLE_OPENING) else -1
