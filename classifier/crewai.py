"""crewAI's own texts around a task: the frame it puts the task in, and its nudge after a tool.

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
crewAI sends `POST_TOOL` as a user message after each tool's result: it is passed over, and
the task before it is read.

Only in crewAI's requests: the first message (the system prompt, or the user message that
holds the task) opens with its role-playing slice. A user who types "Current Task:" in
another request is read as written. crewAI is no coding agent: its texts, cut or passed
over, do not make the request an agent's session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

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
# How far each of crewAI's fixed sentences is looked for past the last (a backstory, the tools'
# list, a description, an expected output): past it, the text is read as written
WITHIN = 65_536


def task_ask(message: object, messages: Sequence[Any]) -> object:
    """The content of `message`, the task's description and expected output inside crewAI's
    frame when `messages` are a crewAI request's; any other content as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        return content
    start = _task_start(content, messages)
    criteria = content.find(CRITERIA, start, start + WITHIN) if start >= 0 else -1
    if criteria < 0:
        return content
    after = criteria + len(CRITERIA)
    end = content.find(CRITERIA_END, after, after + WITHIN)
    if end < 0:
        return content
    words = (content[start:criteria].strip(), content[after:end].strip())
    return "\n".join(word for word in words if word)


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is crewAI's `POST_TOOL`, in its request."""
    return one_text(messages[index]) == POST_TOOL and _crews(messages)


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
