"""smolagents' own texts around a run's task, and which of its agents asks for code.

smolagents (1.26.0: `prompts/code_agent.yaml`, `toolcalling_agent.yaml`,
`structured_code_agent.yaml`; `agents.py`, `memory.py`) sends each step of a run as a request
of its own, each of a kind that frames the run's task in another way:

- the initial plan (with `planning_interval`): one user message, `PLAN_OPENING`... the agent's
  tools, then `PLAN_TASK`, the task, `PLAN_END`;
- an action step: the agent's system prompt (`CODE_SYSTEM` for a CodeAgent, `TOOLS_SYSTEM`
  for a ToolCallingAgent), then the run's memory: `TASK` and the task as a user message, then
  its plans, replies, and its observations and errors as user messages (`OWN`);
- a plan update: `UPDATE_OPENING`, the task, `UPDATE_REST` as the system prompt, then the
  memory without replies (the task's message and the next user texts merged into one), and
  its update prompt (`UPDATE_POST`... the tools...) ending the last user message;
- the final answer after the last step: `FINAL_SYSTEM`, the memory, and "Based on the
  above, ..." with the task ending the last user message.

Read as sent, the first ask and the system prompt before it changed from one kind to the next:
a CodeAgent run with planning was four conversations, its plans pinned to one backend, its
steps to another, and its final answer, keyed by the task alone, shared unrelated runs' pins
(found in a review of agent frameworks). So in smolagents' requests (told by their first
message, `framed`) the first ask is the task, each kind read where it holds it (`task_ask`);
its own user messages after it are passed over (`passed_over`); and the conversation key
leaves its system prompts out (`router.conversation.conversation_key`). Its texts are an agent
framework's, no coding agent's (`classifier.rules.agent_session`): a ToolCallingAgent's steps
are tool_calling by their `tool_choice`, or by their system prompt where no `tool_choice` is
sent (`calls_tools`). But a CodeAgent's are code (`answers_in_code`): it
parses a code block from every step's reply and fails the step without one, and the Python
interpreter, not the model, does the task's arithmetic, so its steps are coding work whatever
the task (`classifier.rules.rule_intent`). "How many prime numbers are there below 100?" was
math 0.99, every code step of it sent to the cloud.

A managed agent (one in another's `managed_agents`, called by it as a tool) runs the task its
manager wrote inside its `managed_agent.task` template (`MANAGED_OPENING`, its name,
`MANAGED_TASK`, the task, `MANAGED_END`; then, with `additional_args`, `ARGUMENTS` and their
values): each kind of its requests holds that whole text where it holds a task, and the task
inside it is what is read (`managed_task`) and keys the run, the arguments' values not. Read
whole, the template, the same for every task, was the ask: a managed agent's plan for "Find
the current weather in Paris, France" was tool_calling 0.30, and 0.98 by the task (found
running smolagents).
A ToolCallingAgent lists its tools in its system prompt's text too (`TOOLS_LIST`), and on a
model of its own that sends no `tools` field that list is all the request says of them:
txtai's `Agent` (9.14.0, `txtai/agent/model.py:37` `PipelineModel.generate`) is one, its
model parsing the reply's `Action: {json}` itself. Read as sent, "What is 1234 * 5678? Use
the multiply tool." was math 0.81 on the cloud, no tool seen, where smolagents' own model
sends its tools and forces a call (`tool_choice: "required"`, `smolagents/models.py:510`), and
its step is tool_calling (found in a live review of txtai 9.14.0). Its prompt forces the call
in words ("1. ALWAYS provide a tool call, else you will fail.",
`prompts/toolcalling_agent.yaml:114`): so its listed tools are offered (`text_tools`,
`classifier.frameworks.offered_tools`) and its step is a tool call whatever the task
(`calls_tools`, `classifier.fixed.TOOL_CALL_STEP`), as a forced call is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text, per_text

# The system prompts' openings: a CodeAgent's (and its structured-output variant's), a
# ToolCallingAgent's
CODE_SYSTEM = (
    "You are an expert assistant who can solve any task using code blobs. You will be given a"
    " task to solve as best you can.\n"
)
TOOLS_SYSTEM = (
    "You are an expert assistant who can solve any task using tool calls. You will be given a"
    " task to solve as best you can.\n"
)
# `final_answer.pre_messages`, the whole system prompt of the final answer
FINAL_SYSTEM = (
    "An agent tried to answer a user query but it got stuck and failed to do so. You are"
    " tasked with providing an answer instead. Here is the agent's memory:"
)
# `planning.update_plan_pre_messages`, the plan update's system prompt: before and after the task
UPDATE_OPENING = (
    "You are a world expert at analyzing a situation, and plan accordingly towards solving a"
    " task.\nYou have been given the following task:\n```\n"
)
UPDATE_REST = (
    "\n```\n\nBelow you will find a history of attempts made to solve this task.\nYou will first"
    " have to produce a survey of known and unknown facts, then propose a step-by-step"
    " high-level plan to solve the task.\nIf the previous tries so far have met some success,"
    " your updated plan can build on these results.\nIf you are stalled, you can make a"
    " completely new plan starting from scratch.\n\nFind the task and history below:"
)
# `planning.initial_plan`: its opening, what comes before the task and what ends it
PLAN_OPENING = (
    "You are a world expert at analyzing a situation to derive facts, and plan accordingly"
    " towards solving a task.\nBelow I will present you a task."
)
PLAN_TASK = "\n---\nNow begin! Here is your task:\n```\n"
PLAN_END = "\n```\nFirst in part 1, write the facts survey, then in part 2, write your plan."
# A CodeAgent's planning prompts list its tools as Python functions, after ~1,800 characters
# of fixed text (a ToolCallingAgent's say "You can leverage these tools:")
CODE_TOOLS = "\nYou can leverage these tools, behaving like regular python functions:\n```python\n"
PLAN_HEAD = 4096
# `planning.update_plan_post_messages`: its opening, and a CodeAgent's last sentence
UPDATE_POST = "Now write your updated facts below, taking into account the above history:\n"
CODE_UPDATE_END = "\n\nNow write your updated facts survey below, then your new plan."
# `TaskStep.to_messages`: the task's user message
TASK = "New task:\n"
SCAN_PARTS = 16  # of a message's parts, the images of a task or an observation among them
# `managed_agent.task` (alike in the three prompts' files): the opening, the agent's name (a
# Python identifier), what comes before the task and what follows it
MANAGED_OPENING = "You're a helpful agent named '"
MANAGED_TASK = "'.\nYou have been submitted this task by your manager.\n---\nTask:\n"
_MANAGED = re.compile(re.escape(MANAGED_OPENING) + r"\w{1,256}" + re.escape(MANAGED_TASK))
MANAGED_END = (
    "\n---\nYou're helping your manager solve a wider task: so make sure to not provide a"
    " one-line answer, but give as much information as possible to give them a clear"
    " understanding of the answer.\n\nYour final_answer WILL HAVE to contain these parts:\n"
    "### 1. Task outcome (short version):\n### 2. Task outcome (extremely detailed version):\n"
    "### 3. Additional context (if relevant):\n\nPut all these in your final_answer tool,"
    " everything that you do not pass as an argument to final_answer will be lost.\nAnd even if"
    " your task resolution is not successful, please return as much context as possible, so"
    " that your manager can act upon this feedback."
)
# `MultiStepAgent.run` with `additional_args`: after the task, before their values
ARGUMENTS = (
    "\nYou have been provided with these additional arguments, that you can access directly"
    " using the keys as variables:\n"
)
# `toolcalling_agent.yaml` `system_prompt` (line 92): the line before its tools, each "- "
# and `Tool.to_tool_calling_prompt()` ("name: description\n    Takes inputs: ...",
# `tools.py:289`), its team members alike, then its rules after its custom instructions
TOOLS_LIST = " You only have access to these tools:\n"
TOOLS_RULES = "\n\nHere are the rules you should always follow to solve your task:\n"
_TOOL_ENTRY = re.compile(r"^- ([A-Za-z_]\w{0,127}): ", re.MULTILINE)
LIST_HEAD = 8192  # where the list opens, at most (after ~2,700 characters of fixed text)
LIST_CHARS = 262_144  # of the list, at most: a longer one is read as none
MAX_TOOLS = 64  # of the tools listed, as many as are read of a request's `tools`
# How smolagents' other user messages start (`memory.py`, `agents.py`): an observation, an
# error (after a tool call, its id first), the turn after a plan, the plan update's prompt,
# the final answer's (`final_answer.post_messages`)
OWN = (
    "Observation:\n",
    "Error:\n",
    "Call id: ",
    "Now proceed and carry out this plan.",
    UPDATE_POST,
    "Based on the above, please provide an answer to the following user task:\n",
)


def framed(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` (of the system prompt `system`,
    `classifier.message.read_system`) are one of smolagents' requests: the system prompt is
    one of its own, or the first message is its initial plan."""
    return _system_kind(system) is not None or _plan_task(messages) is not None


def task_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The content of `message`, the run's task when `messages` (of the system prompt
    `system`) are smolagents' and it holds the task (`TASK` and the task, or the initial
    plan); any other content as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    if messages and message is messages[0]:  # the initial plan, the one message holding it
        plan = _plan_task(messages)
        return content if plan is None else managed_task(plan)
    text = _lead(message) if _system_kind(system) is not None else None
    if text is None or not text.startswith(TASK):
        return content
    # A plan update merges the task's message with smolagents' user texts after it: the task
    # is its system prompt's (a run after another, `reset=False`, names its own there)
    update = _update_task(system)
    asked = text[len(TASK) :]
    if update is not None and (asked == update or asked.startswith(update + "\n")):
        return managed_task(update)
    return managed_task(asked)


def managed_task(task: str) -> str:
    """The task inside a managed agent's template when `task` is one (its `additional_args`
    after it left out); any other task as it is."""
    opening = _MANAGED.match(task)
    end = task.find(MANAGED_END, opening.end()) if opening else -1
    if opening is None or end < 0:
        return task
    rest = end + len(MANAGED_END)
    if rest < len(task) and not task.startswith(ARGUMENTS, rest):
        return task
    return task[opening.end() : end]


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is one of smolagents' own (`OWN`), in its
    request (`system`: its system prompt): an observation, an error, a planning or
    final-answer prompt."""
    text = _lead(messages[index])
    return text is not None and text.startswith(OWN) and _system_kind(system) is not None


def answers_in_code(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` (of the system prompt `system`) are a CodeAgent's request: an
    action step (its system prompt), its initial plan or a plan update (its tools listed as
    Python functions)."""
    kind = _system_kind(system)
    if kind == CODE_SYSTEM:
        return True
    if kind == UPDATE_OPENING:
        last = _texts(messages[-1])
        return bool(last) and last[-1].endswith(CODE_UPDATE_END)
    if kind is None and _plan_task(messages) is not None:
        return (one_text(messages[0]) or "").find(CODE_TOOLS, len(PLAN_OPENING), PLAN_HEAD) >= 0
    return False


def calls_tools(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` (of the system prompt `system`) are a ToolCallingAgent's action
    step: its system prompt, whose rules force a tool call (`classifier.fixed.TOOL_CALL_STEP`);
    its plans and final answer have prompts of their own."""
    return _system_kind(system) == TOOLS_SYSTEM


def text_tools(system: System) -> list[dict[str, Any]]:
    """The tools a ToolCallingAgent's system prompt `system` lists (`TOOLS_LIST`, up to
    `TOOLS_RULES`), in the shape of a request's `tools`, by name (`final_answer` too, as its
    `tools` send it); none for any other system prompt."""
    text = system.prompt if _system_kind(system) == TOOLS_SYSTEM else None
    return (
        []
        if text is None
        else [{"type": "function", "function": {"name": name}} for name in _listed(text)]
    )


@per_text
def _listed(text: str) -> tuple[str, ...]:
    """`text_tools` of a ToolCallingAgent's system prompt's text `text`."""
    start = text.find(TOOLS_LIST, len(TOOLS_SYSTEM), LIST_HEAD)
    end = -1 if start < 0 else text.find(TOOLS_RULES, start, start + LIST_CHARS)
    if end < 0:
        return ()
    names = (m.group(1) for m in _TOOL_ENTRY.finditer(text, start + len(TOOLS_LIST), end))
    return tuple(dict.fromkeys(names))[:MAX_TOOLS]


def _system_kind(system: System) -> str | None:
    """Which of smolagents' system prompts `system` is (its opening), or None: a system or a
    developer message (`classifier.message.read_system`; read as "system" only, a CodeAgent's
    step sent as a developer message was tool_calling 0.52, not coding 0.97, found in
    review)."""
    text = system.prompt
    if text is None:
        return None
    if text.startswith(UPDATE_OPENING) and text.endswith(UPDATE_REST):
        return UPDATE_OPENING
    if text == FINAL_SYSTEM:
        return FINAL_SYSTEM
    return next((kind for kind in (CODE_SYSTEM, TOOLS_SYSTEM) if text.startswith(kind)), None)


def _update_task(system: System) -> str | None:
    """The task in the plan update's system prompt `system`, when it is one."""
    text = system.prompt if _system_kind(system) == UPDATE_OPENING else None
    return None if text is None else text[len(UPDATE_OPENING) : -len(UPDATE_REST)]


def _plan_task(messages: Sequence[Any]) -> str | None:
    """The task in smolagents' initial plan, when it is the first of `messages` (a user
    message); None otherwise. The task follows the first `PLAN_TASK` after the tools."""
    first = messages[0] if messages else None
    if not isinstance(first, dict) or first.get("role") != "user":
        return None
    text = one_text(first)
    if text is None or not text.startswith(PLAN_OPENING) or not text.endswith(PLAN_END):
        return None
    at = text.find(PLAN_TASK, len(PLAN_OPENING), len(text) - len(PLAN_END))
    return None if at < 0 else text[at + len(PLAN_TASK) : -len(PLAN_END)]


def _lead(message: object) -> str | None:
    """A user message's leading text: its content as a string, or its first text part (a
    task's images follow its text; an observation's images come before its text)."""
    texts = _texts(message)
    return texts[0] if texts else None


def _texts(message: object) -> list[str]:
    """A message's texts: its content as a string, or its text parts' (of the first
    `SCAN_PARTS`); smolagents merges a user message into the one before it, each text into
    the text part before it, an image as a part of its own."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    parts = (p for p in content[:SCAN_PARTS] if isinstance(p, dict) and p.get("type") == "text")
    return [text for part in parts if isinstance(text := part.get("text"), str)]
