"""browser-use's requests: each read by the task or query it carries, not by its page dump.

browser-use (0.13.14, pypi `browser-use`: `agent/prompts.py`, `agent/service.py`,
`agent/message_manager/service.py`, `agent/judge.py`, `tools/service.py`) drives a browser
with a chat model, `ChatOpenAI(base_url=..., model=...)` over chat completions, in requests
of four kinds:

- an agent step: its system prompt (`AGENT_SYSTEM` opens each of the five templates an
  OpenAI-compatible model gets), then ONE user message it rebuilds every step: the task in
  `<user_request>` (`REQUEST_OPENING`, the task, `REQUEST_END`), then `<agent_history>`,
  `<agent_state>`, `<browser_state>` (the page's interactive elements, tens of KB) and
  `<step_info>`; with vision, as the first text part, then "Current screenshot:" and the
  screenshot. After it, the step's own user messages: its nudges ("BUDGET WARNING: You have
  used 3/4 steps ...", "You reached max_steps - this is your last step. ...", "You forgot to
  return an action. ...", "You failed 5 times. Therefore we terminate the agent. ...",
  "REPLAN SUGGESTED: ...", "PLANNING NUDGE: ...", its loop detector's "Heads up: ..."). The
  user's words are only ever the task: browser-use sends nothing else of theirs, a follow-up
  task (`Agent.add_new_task`) rewriting the task as `<initial_user_request>` and
  `<follow_up_user_request>` blocks (`FOLLOW_UP`) inside `<user_request>`;
- its judge (`JUDGE_SYSTEM`; the task in `<task>`, then the trajectory and the result);
- its page extraction (`EXTRACT_SYSTEMS`; the query the agent wrote in `<query>`, then the
  page's markdown);
- its history compaction (`COMPACTION_SYSTEM`; the agent's history, no task).

Read as sent, the page decided: "find the cheapest item" was tool_calling 0.57 on a shop's
page and writing 0.39 (cloud) on an article's, tool_calling 0.98 alone; the nudges were the
latest ask; and the first user message, rebuilt every step, made a 5-step run 9 ledger
conversations (found in a live review). So an agent step and the judge are read by the task
(`run_asks`: the first request as the first ask, the latest follow-up as the latest), its
"Expected output format:" and schema (`OUTPUT_FORMAT`, browser-use's, appended when the run
has an output model) left out; the nudges never are; and the conversation key hashes that
first ask without the system prompts (`framed`, `router.conversation.conversation_key`): a
run and its judge are one conversation. An extraction is read by its query (`task_ask`); the
compaction asks nothing (`passed_over`).

An agent step's reply is always its JSON action (`response_format` `agent_output`: the
browser tools it calls next, `done` among them), whatever the task: the step's work is
driving the browser's tools, tool_calling (`picks_actions`, `classifier.rules.rule_intent`),
as a DSPy ReAct step's is. Its compaction summarizes that work, and is read as it
(`compacts`). browser-use is an agent framework, no coding agent
(`classifier.rules.agent_session`). Each kind is told by its system prompt's opening and its
user message's, and only in the messages browser-use sends: a user's text holding
`<user_request>` in another chat is read as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any

from classifier.message import AskPair, System, ask_pair, opening_text

AGENT_SYSTEM = (
    "You are an AI agent designed to operate in an iterative loop to automate browser tasks."
    " Your ultimate goal is accomplishing the task provided in <user_request>."
)
REQUEST_OPENING = "<user_request>\n"
REQUEST_END = "\n</user_request>\n\n<agent_history>\n"
JUDGE_SYSTEM = "You are an expert judge evaluating browser automation agent performance.\n"
JUDGE_OPENING = "\n<task>\n"
JUDGE_END = re.compile(r"\n</task>\n\n<(?:ground_truth|agent_trajectory)>\n")
# The free-text extraction's, the structured one's (`tools/service.py`, `actor/page.py`), and
# a rerun's AI step's (`agent/prompts.py`)
EXTRACT_SYSTEMS = (
    "You are an expert at extracting data from the markdown of a webpage.\n",
    "You are an expert at extracting structured data from the markdown of a webpage.\n",
    "You are an expert at extracting data from webpages.\n",
)
QUERY_OPENING = "<query>\n"
QUERY_END = re.compile(r"\n</query>\n\n<(?:content_stats|output_schema|webpage_content)>\n")
COMPACTION_SYSTEM = "You are summarizing an agent run for prompt compaction.\n"
COMPACTION_OPENINGS = ("<previous_compacted_memory>\n", "<agent_history>\n")
INITIAL = ("<initial_user_request>", "</initial_user_request>")
FOLLOW_UP = ("<follow_up_user_request> ", " </follow_up_user_request>")
# `Agent._enhance_task_with_schema`: after the task, the output model's name and its schema
OUTPUT_FORMAT = "\nExpected output format: "
_SCHEMA = re.compile(r"\w{1,256}\n\{.*\}\Z", re.DOTALL)
# How far a task's end is looked for: past it, the request is read as sent
WITHIN = 65_536
# An agent step's nudges after its state message, at most (it sends a few a step)
NUDGES = 16


def run_asks(messages: Sequence[Any], system: System) -> AskPair | None:
    """The run's first and latest ask when `messages` (of the system prompt `system`) are an
    agent step or the judge (`framed`); None for any other request. One object for both when
    the task has no follow-up (`ask_pair`)."""
    task = _run_task(messages, system)
    return None if task is None else ask_pair(*_task_asks(task))


def framed(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` (of the system prompt `system`) are an agent step or the judge,
    keyed by the run's task."""
    return _run_task(messages, system) is not None


def task_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The content of `message`, the query when it is an extraction's user message, the
    latest task when it is an agent step's or the judge's (what the ledger keeps as the
    prompt); any other content as it is. `system`: the system prompt of `messages`."""
    content = message.get("content") if isinstance(message, dict) else None
    if len(messages) < 2 or messages[1] is not message:
        return content
    task = _run_task(messages, system)
    if task is not None:
        return _task_asks(task)[1]
    text = opening_text(message)
    if text is None or not _system_opens(system, EXTRACT_SYSTEMS) or len(messages) != 2:
        return content
    end = QUERY_END.search(text, 0, WITHIN) if text.startswith(QUERY_OPENING) else None
    return content if end is None else text[len(QUERY_OPENING) : end.start()]


def picks_actions(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` (of the system prompt `system`) are an agent step: its reply is its
    next browser actions."""
    return _state_task(messages, system) is not None


def compacts(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` (of the system prompt `system`) are its history compaction: its
    prompt and the agent's history."""
    if len(messages) != 2 or not _system_opens(system, (COMPACTION_SYSTEM,)):
        return False
    text = opening_text(messages[1])
    return text is not None and text.startswith(COMPACTION_OPENINGS) and _user(messages[1])


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is the compaction's history: no ask.
    `system`: the system prompt of `messages`."""
    return index == 1 and compacts(messages, system)


def _run_task(messages: Sequence[Any], system: System) -> str | None:
    """The run's task (as browser-use wrote it, follow-ups and all) when `messages` (of the
    system prompt `system`) are an agent step or the judge; else None."""
    task = _state_task(messages, system)
    if task is not None or len(messages) != 2 or not _system_opens(system, (JUDGE_SYSTEM,)):
        return task
    text = opening_text(messages[1])
    if text is None or not text.startswith(JUDGE_OPENING) or not _user(messages[1]):
        return None
    end = JUDGE_END.search(text, 0, WITHIN)
    return None if end is None else text[len(JUDGE_OPENING) : end.start()]


def _state_task(messages: Sequence[Any], system: System) -> str | None:
    """The task in an agent step's state message (the second of `messages`, after its
    system prompt, `system`, its nudges alone after it); else None."""
    if not 2 <= len(messages) <= 2 + NUDGES or not _system_opens(system, (AGENT_SYSTEM,)):
        return None
    if not all(map(_user, islice(messages, 1, None))):
        return None
    text = opening_text(messages[1])
    if text is None or not text.startswith(REQUEST_OPENING):
        return None
    end = text.find(REQUEST_END, len(REQUEST_OPENING), WITHIN)
    return None if end < 0 else text[len(REQUEST_OPENING) : end]


def _task_asks(task: str) -> tuple[str, str]:
    """The first and the latest ask of a run's task: the initial request and the last
    follow-up when it has some (`FOLLOW_UP`), else the task, twice; its output format left
    out (`_without_format`)."""
    opening, closing = INITIAL
    end = task.find(closing) if task.startswith(opening) else -1
    if end < 0:
        first = _without_format(task)
        return first, first
    first = _without_format(task[len(opening) : end])
    start = task.rfind("\n" + FOLLOW_UP[0], end)
    if start < 0 or not task.endswith(FOLLOW_UP[1]):
        return first, first
    return first, task[start + 1 + len(FOLLOW_UP[0]) : -len(FOLLOW_UP[1])]


def _without_format(task: str) -> str:
    """`task` without the output format browser-use appends to it (`OUTPUT_FORMAT`, a model's
    name, its JSON schema to the end)."""
    at = task.rfind(OUTPUT_FORMAT)
    if at < 0 or _SCHEMA.match(task, at + len(OUTPUT_FORMAT)) is None:
        return task
    return task[:at]


def _system_opens(system: System, openings: tuple[str, ...]) -> bool:
    """Whether the system prompt `system` opens with one of `openings`."""
    opening = system.opening
    return opening is not None and opening.startswith(openings)


def _user(message: object) -> bool:
    return isinstance(message, dict) and message.get("role") == "user"
