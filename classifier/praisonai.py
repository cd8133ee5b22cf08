"""PraisonAI's frame around a task: the sentences it puts before and after a task's
description and expected output.

PraisonAI (praisonaiagents 1.7.17, `praisonaiagents/agents/agents.py` `_prepare_task_prompt`)
runs each task of a `PraisonAIAgents` workflow as one user message under its agent's system
prompt ("{backstory}\\n\\nYour Role: {role}\\n\\nYour Goal: {goal}"), in one of two frames.
A task with no context: `OPENING`, the description, ".", `EXPECTED`, the expected output,
"."; a task given earlier tasks' outputs (`Task(context=[...])`): `CONTEXT_OPENING`, those
outputs, `TASK`, the description, `EXPECTED`, the expected output, then `IMPORTANT`. Either
may be followed by its memory's bullets ("\\n\\n• ..." lines, with `Task(memory=...)`), and
each ends with `ENDING`. Read whole, the frame was the ask: in the frame with context an
essay task (writing 0.99 alone) read instruction 0.52, a math task (math 1.00) instruction
0.70, a proof (math 0.98) instruction 0.48, all local (found in a live review of PraisonAI
against the router).

So the task's description and its expected output are read, a line apart, as crewAI's are
(`classifier.crewai`): both are the user's words, and the expected output says what the
answer must be as "in three sentences" would in an ask. PraisonAI's sentences, the earlier
tasks' outputs (read by no one, as a tool's result is not) and the memories are not read.
Only a text that is the frame exactly, opening and ending as PraisonAI's, is read so: a
user who types "Expected Output:" in a chat is read as written. The single agent's
`Agent.start(prompt)` sends the prompt as it is, and is read as written. PraisonAI is no
coding agent: what it cuts does not make a request an agent's session.
"""

from __future__ import annotations

from classifier.message import lead_text

OPENING = "\nYou need to do the following task: "
CONTEXT_OPENING = "\nUser Input/Topic: "
TASK = "\n\nTask: "
EXPECTED = "\nExpected Output: "
# After the expected output in the frame with context
IMPORTANT = (
    "\n\nIMPORTANT: Your response must be about the user's input/topic above. Incorporate it"
    " into your task."
)
# Every task prompt's last sentence, after the memories when there are any
ENDING = (
    "\nPlease provide only the final result of your work. Do not add any conversation or extra"
    " explanation."
)
# Where a task's memories start: `Memory.build_context_for_task` writes each as a bullet
MEMORIES = "\n\n• "


def task_ask(message: object) -> object:
    """The content of `message`, its task's description and expected output when it is a
    PraisonAI task prompt (`task_words`); any other content as it is, the very object."""
    content = message.get("content") if isinstance(message, dict) else None
    text = lead_text(content)
    words = task_words(text) if text is not None else None
    return content if words is None else words


def task_words(text: str) -> str | None:
    """The description and the expected output, a line apart, of the PraisonAI task prompt
    `text` (either frame); None when `text` is no task prompt of PraisonAI's."""
    if not text.endswith(ENDING):
        return None
    body = text[: -len(ENDING)]
    if body.startswith(OPENING):
        return _plain(body[len(OPENING) :])
    if body.startswith(CONTEXT_OPENING):
        return _with_context(body)
    return None


def _plain(body: str) -> str | None:
    """The words of a task with no context: `body` is "{description}.", `EXPECTED`,
    "{expected output}." and its memories, if any."""
    at = body.find("." + EXPECTED)
    if at < 0:
        return None
    expected = body[at + 1 + len(EXPECTED) :]
    memories = expected.find("." + MEMORIES)
    expected = expected[:memories] if memories >= 0 else expected.removesuffix(".")
    return _joined(body[:at], expected)


def _with_context(body: str) -> str | None:
    """The words of a task given earlier outputs: the description after the last `TASK`
    before the expected output (the outputs before it may hold the words too), the expected
    output up to `IMPORTANT`."""
    important = body.rfind(IMPORTANT)
    if important < 0:
        return None
    expected = body.rfind(EXPECTED, 0, important)
    task = body.rfind(TASK, len(CONTEXT_OPENING), expected) if expected >= 0 else -1
    if task < 0:
        return None
    return _joined(body[task + len(TASK) : expected], body[expected + len(EXPECTED) : important])


def _joined(description: str, expected: str) -> str | None:
    """The description and the expected output, stripped, a line apart (either left out
    when empty); None when both are."""
    words = "\n".join(word for word in (description.strip(), expected.strip()) if word)
    return words or None
