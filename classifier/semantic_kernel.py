"""Semantic Kernel's own texts: its Magentic manager's prompts around a run's task, and its
summarization reducer's request.

Semantic Kernel (1.45.0: `semantic_kernel/agents/orchestration/magentic.py` and
`prompts/_magentic_prompts.py`, MagenticOne's prompts) runs a `MagenticOrchestration` with a
manager (`StandardMagenticManager`) that asks the model, in requests of its own:

- for the facts (`FACTS_OPENING`, the task, `FACTS_END`: the one user message), then for a
  plan (`PLAN_OPENING`, the team, `PLAN_END`, after the facts' reply);
- at each round, for its progress (`PROGRESS_OPENING`, the task, `PROGRESS_TEAM`, the team,
  its questions and JSON schema, `PROGRESS_END`, with a `json_schema` `response_format`),
  after its task ledger (an assistant message: `LEDGER_OPENING`, the task, `LEDGER_TEAM`, the
  team, `LEDGER_FACTS`, the facts, the plan) and the rounds so far (its instruction, then
  "Transferred to" and the agent's name as a user message, `TRANSFERRED`, then the agent's
  reply);
- when stalled, for new facts (`UPDATE_OPENING`, the task, `UPDATE_REST`, the old facts) and a
  new plan (`REPLAN_OPENING`, the team), after the rounds; then a new ledger opens the next;
- at the end, for the final answer (`FINAL_OPENING`, the task, `FINAL_END`).

Read as sent, the facts survey was instruction and the progress check coding for a math, a
haiku or a code task alike, only the final answer following the task; and the first user
message, another for each kind, made one run four conversations (found in a review of agent
frameworks). So in the manager's requests (told by their first message, the facts' prompt or
the ledger: `framed`) each prompt that holds the task is read as the task (`task_ask`), the
plan's prompts and "Transferred to" are passed over (`passed_over`), and the run is keyed by
the task its first message holds (`run_task`, `router.conversation.conversation_key`): a
long run's progress check lies past the first ask's bound, behind its rounds. Semantic
Kernel escapes the task (`html.escape`) where its template does not allow unsafe content
(the facts, their update, the final answer) and not in the others: it is read unescaped.

Its `ChatHistorySummarizationReducer` (`contents/history_reducer/
chat_history_summarization_reducer.py`) sends the turns it summarizes with its instructions
(`SUMMARIZATION`) after them as a system message. Read by the last of those turns, the
summary of a math chat was math and went to the cloud: the request asks nothing of a user's,
and its user messages are passed over, as Agno's session summary is (`classifier.agno`): no
ask, the default route. The summary then stands in for the turns before it, as an assistant
message: the first ask, and with it the conversation key, changes at each reduction, and
nothing on the wire tells the summary apart from a reply; `prompt_cache_key` keeps one key
(docs/agents/frameworks.md). Semantic Kernel is no coding agent: its texts do not make the
request an agent's session (`classifier.rules.agent_session`). Only its default prompts are
known: a manager's or a reducer's own prompts are read as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from html import unescape
from typing import Any, NamedTuple

from classifier.clip import clip
from classifier.message import one_text, per_text

# `ORCHESTRATOR_TASK_LEDGER_FACTS_PROMPT`: before and after `{{$task}}`
FACTS_OPENING = (
    "Below I will present you a request.\n\nBefore we begin addressing the request, please"
    " answer the following pre-survey to the best of your ability.\nKeep in mind that you are"
    " Ken Jennings-level with trivia, and Mensa-level with puzzles, so there should be\na deep"
    " well to draw from.\n\nHere is the request:\n\n"
)
FACTS_END = (
    "\n\nHere is the pre-survey:\n\n    1. Please list any specific facts or figures that are"
    " GIVEN in the request itself. It is possible that\n       there are none.\n    2. Please"
    " list any facts that may need to be looked up, and WHERE SPECIFICALLY they might be"
    " found.\n       In some cases, authoritative sources are mentioned in the request"
    " itself.\n    3. Please list any facts that may need to be derived (e.g., via logical"
    " deduction, simulation, or computation)\n    4. Please list any facts that are recalled"
    " from memory, hunches, well-reasoned guesses, etc.\n\nWhen answering this survey, keep in"
    ' mind that "facts" will typically be specific names, dates, statistics, etc.\nYour answer'
    " should use headings:\n\n    1. GIVEN OR VERIFIED FACTS\n    2. FACTS TO LOOK UP\n    3."
    " FACTS TO DERIVE\n    4. EDUCATED GUESSES\n\nDO NOT include any other headings or sections"
    " in your response. DO NOT list next steps or plans until asked to do so.\n"
)
# `ORCHESTRATOR_TASK_LEDGER_FULL_PROMPT`, the ledger: before the task, after it, after the team
LEDGER_OPENING = "\nWe are working to address the following user request:\n\n"
LEDGER_TEAM = "\n\n\nTo answer this request we have assembled the following team:\n\n"
LEDGER_FACTS = "\n\n\nHere is an initial fact sheet to consider:\n\n"
# `ORCHESTRATOR_PROGRESS_LEDGER_PROMPT`: before the task, after it, its schema's last lines
PROGRESS_OPENING = "\nRecall we are working on the following request:\n\n"
PROGRESS_TEAM = "\n\nAnd we have assembled the following team:\n\n"
PROGRESS_END = (
    '    "instruction_or_question": {\n        "reason": string,\n        "answer": string\n'
    "    }\n}\n"
)
# `ORCHESTRATOR_FINAL_ANSWER_PROMPT`: before and after the task
FINAL_OPENING = "\nWe are working on the following task:\n"
FINAL_END = (
    "\n\nWe have completed the task.\n\nThe above messages contain the conversation that took"
    " place to complete the task.\n\nBased on the information gathered, provide the final"
    " answer to the original request.\nThe answer should be phrased as if you were speaking to"
    " the user.\n"
)
# `ORCHESTRATOR_TASK_LEDGER_FACTS_UPDATE_PROMPT`: before the task, after it (then the old facts)
UPDATE_OPENING = "As a reminder, we are working to solve the following task:\n\n"
UPDATE_REST = (
    "\n\nIt's clear we aren't making as much progress as we would like, but we may have"
    " learned something new.\nPlease rewrite the following fact sheet, updating it to include"
    " anything new we have learned that may be helpful.\n\nExample edits can include (but are"
    " not limited to) adding new guesses, moving educated guesses to verified facts\nif"
    " appropriate, etc. Updates may be made to any section of the fact sheet, and more than"
    " one section of the fact\nsheet can be edited. This is an especially good time to update"
    " educated guesses, so please at least add or update\none educated guess or hunch, and"
    " explain your reasoning.\n\nHere is the old fact sheet:\n\n"
)
# `ORCHESTRATOR_TASK_LEDGER_PLAN_PROMPT` and `..._PLAN_UPDATE_PROMPT`: no task, the team in them
PLAN_OPENING = "Fantastic. To address this request we have assembled the following team:\n\n"
PLAN_END = (
    "\n\nBased on the team composition, and known and unknown facts, please devise a short"
    " bullet-point plan for addressing the\noriginal request. Remember, there is no requirement"
    " to involve all team members -- a team member's particular expertise\nmay not be needed"
    " for this task.\n"
)
REPLAN_OPENING = (
    "Please briefly explain what went wrong on this last run (the root\ncause of the failure),"
    " and then come up with a new plan that takes steps and/or includes hints to overcome"
    " prior\nchallenges and especially avoids repeating the same mistakes. As before, the new"
    " plan should be concise, be expressed\nin bullet-point form, and consider the following"
    " team composition (do not involve any other outside people since we\ncannot contact"
    " anyone else):\n\n"
)
# `MagenticManagerActor._handle_response_message`: before an agent's reply (an agent's name
# matches `AGENT_NAME_REGEX`, `^[0-9A-Za-z_-]+$`)
TRANSFERRED = re.compile(r"Transferred to [0-9A-Za-z_-]{1,256}")
# `DEFAULT_SUMMARIZATION_PROMPT`, after the turns it summarizes (`_summarize`: as a system
# message, or a settings' `instruction_role`)
SUMMARIZATION = (
    "\nProvide a concise and complete summarization of the entire dialog that does not exceed"
    " 5 sentences.\n\nThis summary must always:\n- Consider both user and assistant"
    " interactions\n- Maintain continuity for the purpose of further dialog\n- Include details"
    " from any existing summary\n- Focus on the most significant aspects of the dialog\n\nThis"
    " summary must never:\n- Critique, correct, interpret, presume, or assume\n- Identify"
    " faults, mistakes, misunderstanding, or correctness\n- Analyze what has not occurred\n-"
    " Exclude details from any existing summary\n"
)
# How far past the task the text after it is looked for: past it, the text is no prompt of its
WITHIN = 65_536
# Character references ("&amp;") unescaped in a task, at most: Python unescapes each with a
# call of its own, and 32,000 took 16 ms on the build machine; a task holding more is
# unescaped only as far as the classifier reads it, its head and tail (`classifier.clip`)
REFERENCES = 256


class _Prompt(NamedTuple):
    """A manager's prompt that holds the task: its text before the task, the first text after
    it, how it ends, and whether the task is in it escaped."""

    opening: str
    after: str
    end: str
    escaped: bool


# The manager's user messages that hold the task (the ledger, an assistant message, apart)
_ASKS = (
    _Prompt(FACTS_OPENING, FACTS_END, FACTS_END, True),
    _Prompt(PROGRESS_OPENING, PROGRESS_TEAM, PROGRESS_END, False),
    _Prompt(FINAL_OPENING, FINAL_END, FINAL_END, True),
    _Prompt(UPDATE_OPENING, UPDATE_REST, "\n", True),
)
_LEDGER = _Prompt(LEDGER_OPENING, LEDGER_TEAM, "\n", False)
_INSTRUCTION_ROLES = ("system", "developer")  # the roles the reducer's instructions come in


def run_task(messages: Sequence[Any]) -> str | None:
    """The task of the Magentic run whose manager's request `messages` are, as its user wrote
    it: the one the first message holds (the facts' prompt, or the ledger); None for another
    request."""
    first = messages[0] if messages else None
    role = first.get("role") if isinstance(first, dict) else None
    text = one_text(first)
    if text is None:
        return None
    if role == "user" and text.startswith(FACTS_OPENING):
        return _TASKS[_ASKS[0]](text)
    if role == "assistant" and text.startswith(LEDGER_OPENING):
        return _ledger_task(text)
    return None


@per_text
def _ledger_task(text: str) -> str | None:
    """The task in the ledger `text` (which opens with `LEDGER_OPENING`) when it is the
    ledger whole; None otherwise."""
    task = _task(text, _LEDGER)
    if task is None:
        return None
    team = len(LEDGER_OPENING) + len(task) + len(LEDGER_TEAM)
    return task if text.find(LEDGER_FACTS, team, team + WITHIN) >= 0 else None


def framed(messages: Sequence[Any]) -> bool:
    """Whether `messages` are a Magentic manager's request (`run_task`)."""
    return run_task(messages) is not None


def task_ask(message: object, messages: Sequence[Any]) -> object:
    """The content of `message`, the run's task when it is one of the manager's prompts that
    hold it (`_ASKS`) in its request; any other content as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    text = one_text(message)
    if text is None:
        return content
    for prompt in _ASKS:
        if text.startswith(prompt.opening):
            task = _TASKS[prompt](text)
            return task if task is not None and framed(messages) else content
    return content


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is Semantic Kernel's: the plan's or the new
    plan's prompt, or "Transferred to" an agent, in a Magentic manager's request; or any user
    message of its summarization reducer's request (its instructions end it)."""
    if _summarizes(messages):
        return True
    text = one_text(messages[index])
    if text is None:
        return False
    own = text.startswith(PLAN_OPENING) and text.endswith(PLAN_END)
    own = own or text.startswith(REPLAN_OPENING) or TRANSFERRED.fullmatch(text) is not None
    return own and framed(messages)


def _summarizes(messages: Sequence[Any]) -> bool:
    """Whether `messages` end with the summarization reducer's instructions."""
    last = messages[-1] if messages else None
    if not isinstance(last, dict) or last.get("role") not in _INSTRUCTION_ROLES:
        return False
    return one_text(last) == SUMMARIZATION


def _task(text: str, prompt: _Prompt) -> str | None:
    """The task in `text`, one of the manager's prompts (`prompt`, which `text` opens with),
    unescaped where the prompt escapes it; None when `text` is not that prompt whole."""
    start = len(prompt.opening)
    if len(text) < start + len(prompt.end) or not text.endswith(prompt.end):
        return None
    after = text.find(prompt.after, start, start + WITHIN + len(prompt.after))
    if after < 0:
        return None
    task = text[start:after]
    return _unescaped(task) if prompt.escaped else task


def _unescaped(task: str) -> str:
    """`task` unescaped: whole, unless it holds more than `REFERENCES` character references;
    then its head and tail, as the classifier reads it (`classifier.clip`)."""
    return unescape(task if task.count("&") <= REFERENCES else clip(task))


def _reader(prompt: _Prompt) -> Callable[[str], str | None]:
    """`_task` of `prompt`, read once for a text (`classifier.message.per_text`): each user
    message of a request is asked whether it is the manager's (`passed_over`, `framed`), and
    its first message was read anew each time, unescaped each time."""
    return per_text(lambda text: _task(text, prompt))


_TASKS = {prompt: _reader(prompt) for prompt in _ASKS}
