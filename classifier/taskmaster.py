"""Taskmaster's requests: its planning prompts, whose reply is a task record of a software
project whatever the user asked, and its research prompt, read by the query inside.

Taskmaster (npm `task-master-ai` 0.43.1, MIT with Commons Clause: its prompt templates are
objects in `dist/dependency-manager-*.js`, its one call in `dist/ai-services-unified-*.js`)
sends every command as one system message, its template's system text with
`" \\n\\n Always respond in {language}."` appended and trimmed, and one user message, over
the chat or the Responses API. Read as written, its templates and the project's task list
decided: add-task's "Add rate limiting to the Flask redirect endpoint ..." was writing 0.461
(cloud); once the project held a task, every add-task was coding 0.83-0.99, "Draft a blog
post announcing the launch" too; parse-prd coding 0.809, expand instruction 0.548,
update-task instruction 0.711 (found running Taskmaster against the router).

Its planning commands (parse-prd, expand in its three forms, add-task, update-task and its
append mode, update for several tasks, update-subtask, analyze-complexity, scope up or down
and their subtask regeneration) ask for one thing whatever the ask: a task record in the
form Taskmaster gives (JSON with its keys, or the text it appends to a task's details).
That is a given form over given data, as the labelling policy names instruction, not code
written, so they are read by one rule (`classifier.fixed.TASK_RECORD`): instruction, local,
as Marvin's and n8n's fixed forms are.

Its research command asks a question about the project: its query, between
"# Research Query" and the project's context (or its instructions when it gathered none),
is read alone (`query_ask`), as gpt-researcher's task in its sub-query prompt
(`classifier.gpt_researcher`): a math or prose question may go to the cloud, a coding one
stays local.

Only Taskmaster's texts whole, where it sends them: its system text opening as one of its
templates' and ending with its language line, after which one user message comes. A chat
that quotes a template's words is read as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import System, part_text

# The line Taskmaster appends to every system prompt (`ai-services-unified`:
# `${systemPrompt} \n\n Always respond in ${language}.`, trimmed): the language is the user's
# setting, a name of a few words
LANGUAGE_LINE = re.compile(r" \n\n Always respond in [^\n]{1,64}\.\Z")
# How far from the end of a system prompt `LANGUAGE_LINE` is looked for
_LINE_SPAN = 96
# Each planning template's system text up to its first slot or its first line's end, exactly
# as Taskmaster writes it (the whole text for the scope prompts, which have no more)
PARSE_PRD = (
    "You are an AI assistant specialized in analyzing Product Requirements Documents (PRDs)"
    " and generating a structured, logically ordered, dependency-aware and sequenced list of"
    " development tasks in JSON format."
)
EXPAND = (
    "You are an AI assistant helping with task breakdown for software development. Break down"
    " high-level tasks into specific, actionable subtasks that can be implemented"
    " sequentially.\n"
)
EXPAND_RESEARCH = (
    "You are an AI assistant with research capabilities analyzing and breaking down software"
    " development tasks.\n"
)
ADD_TASK = (
    "You are a helpful assistant that creates well-structured tasks for a software development"
    " project. Generate a single new task based on the user's description, adhering strictly"
    " to the provided JSON schema.\n"
)
UPDATE_TASK = (
    "You are an AI assistant helping to update a software development task based on new context."
)
UPDATE_APPEND = (
    "You are an AI assistant helping to append additional information to a software"
    " development task. You will be provided with the task's existing details, context, and a"
    " user request string.\n"
)
UPDATE_TASKS = (
    "You are an AI assistant helping to update software development tasks based on new context.\n"
)
UPDATE_SUBTASK = (
    "You are an AI assistant helping to update a subtask. You will be provided with the"
    " subtask's existing details, context about its parent and sibling tasks, and a user"
    " request string."
)
COMPLEXITY = (
    "You are an expert software architect and project manager analyzing task complexity. Your"
    " analysis should consider implementation effort, technical challenges, dependencies, and"
    " testing requirements.\n"
)
SCOPE = (
    "You are an expert software project manager who helps adjust task complexity while"
    " maintaining clarity and actionability."
)
SUBTASK_REGENERATION = (
    "You are an expert project manager who creates task breakdowns that match complexity levels."
)
PLANNING_OPENINGS = (
    PARSE_PRD,
    EXPAND,
    EXPAND_RESEARCH,
    ADD_TASK,
    UPDATE_TASK,
    UPDATE_APPEND,
    UPDATE_TASKS,
    UPDATE_SUBTASK,
    COMPLEXITY,
)
# The system texts that are the whole prompt before `LANGUAGE_LINE`
PLANNING_WHOLE = (SCOPE, SUBTASK_REGENERATION)
# expand's prompt after a complexity report, its count of subtasks in its first sentence
EXPAND_REPORT = re.compile(
    r"You are an AI assistant helping with task breakdown\. Generate (?:exactly \d{1,4}|an"
    r" appropriate number of) subtasks based on the provided prompt and context\.\n",
    re.ASCII,
)
RESEARCH = (
    "You are an expert AI research assistant helping with a software development project. You"
    " have access to project context including tasks, files, and project structure.\n"
)
# The research prompt's user text: its query after `QUERY_HEAD`, then the project's context
# after `CONTEXT_HEAD` when it gathered any, and `INSTRUCTIONS` at its end
QUERY_HEAD = "# Research Query\n\n"
CONTEXT_HEAD = "\n# Project Context\n\n"
INSTRUCTIONS = re.compile(
    r"\n# Instructions\n\nPlease research and provide a (?:low|medium|high)-detail response to"
    r" the query above\. Consider the project context provided and make your response as"
    r" relevant and actionable as possible for this specific project\.\Z"
)
# How far past `QUERY_HEAD` the query's end is looked for: past it, read as written
WITHIN = 65_536
# How far from the end of a research prompt `INSTRUCTIONS` is looked for (it is 220 characters)
_INSTRUCTIONS_SPAN = 320


def _own_system(system: System) -> str | None:
    """The system prompt `system` without Taskmaster's language line when it ends with one
    (`LANGUAGE_LINE`); None for any other."""
    text = system.prompt
    if text is None:
        return None
    line = LANGUAGE_LINE.search(text, max(0, len(text) - _LINE_SPAN))
    return None if line is None else text[: line.start()]


def _one_user_text(messages: Sequence[Any]) -> str | None:
    """The text of `messages`' second and last message when it is a user message of one
    text (a string, or one text part of either API); None otherwise. Taskmaster sends its
    system message and that one."""
    if len(messages) != 2 or not isinstance(messages[1], dict):
        return None
    message = messages[1]
    if message.get("role") != "user":
        return None
    content = message.get("content")
    if isinstance(content, list):
        content = part_text(content[0]) if len(content) == 1 else None
    return content if isinstance(content, str) else None


def plans(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are a Taskmaster planning request (`classifier.fixed.TASK_RECORD`):
    one of its planning templates' system texts with its language line, then one user
    message. `system`: the system prompt of `messages`."""
    own = _own_system(system)
    if own is None or _one_user_text(messages) is None:
        return False
    return (
        own.startswith(PLANNING_OPENINGS)
        or own in PLANNING_WHOLE
        or EXPAND_REPORT.match(own) is not None
    )


def query_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The content of `message`, the research query inside it when it is the user message of
    Taskmaster's research request (`RESEARCH`, `QUERY_HEAD`, `INSTRUCTIONS`); any other
    content as it is. `system`: the system prompt of `messages`."""
    content = message.get("content") if isinstance(message, dict) else None
    if len(messages) != 2 or messages[1] is not message:
        return content
    own = _own_system(system)
    if own is None or not own.startswith(RESEARCH):
        return content
    text = _one_user_text(messages)
    query = _query(text) if text is not None else None
    return content if query is None else query


def _query(text: str) -> str | None:
    """The query of the research prompt `text`, without the blank lines around it; None when
    `text` is no research prompt or its query is blank."""
    if not text.startswith(QUERY_HEAD):
        return None
    start = len(QUERY_HEAD)
    instructions = INSTRUCTIONS.search(text, max(start, len(text) - _INSTRUCTIONS_SPAN))
    if instructions is None:
        return None
    end = text.find(CONTEXT_HEAD, start, min(instructions.start(), start + WITHIN))
    if end < 0:  # no context gathered: the query runs to the instructions
        end = instructions.start()
        if end - start > WITHIN:
            return None
    query = text[start:end].strip("\n")
    return query or None
