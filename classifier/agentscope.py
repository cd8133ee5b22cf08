"""AgentScope's runtime-state reminder: a user message of its own, passed over.

AgentScope 2.0.11 (pip `agentscope`) appends, at the start of each `Agent.reply` and again
when the state changes mid-reply, a hint of its runtime state (`Agent._inject_runtime_state`:
the time, the timezone, unfinished tasks, the context's length, a tool that keeps failing),
which its OpenAI formatter sends as a user message of its own after the ask. Its default
template (`agentscope/agent/_config.py`, `InjectionConfig.template`) opens with Claude Code's
tag, `<system-reminder>`, which the classifier cuts as a coding agent's text
(`classifier.harness`), and the cut made the request an agent's session
(`classifier.rules.agent_session`): "Explain why the sky is blue in two sentences."
(reasoning 0.82 alone) was coding 0.79, and one ask changed route from turn to turn as the
reminder came and went (found in a live review of Python frameworks). AgentScope is a
general agent framework, no coding agent.

So the reminder is passed over (`passed_over`) as a framework's own message: told by the
whole message, one text, `OPENING` (the template's exact words before its `{runtime_state}`),
then its fields, each `<name>value</name>` on a line of its own (`"\n".join` of them), then
`CLOSING`, of `_LONGEST` characters at most. A reminder of other words (Claude Code's), a
custom template, a field over several lines or the reminder beside the user's words in one
text are read as before: cut, and a sign of a coding agent's session.

Its RAG middleware (`agentscope/middleware/_rag.py`, `_DEFAULT_HINT_TEMPLATE`) sends what it
retrieved for the ask alike, a user message of its own after it in the same tag: "Explain
why the sky is blue in two sentences." with a retrieved passage was coding 0.778, reasoning
0.833 alone (found in a review). Its hint is passed over too (`rag_hint`): one text,
`RAG_OPENING`, the retrieved content, `RAG_CLOSING`, of `_RAG_LONGEST` characters at most.
The retrieved content is no ask of the user's; a hint of other words (a custom
`hint_template`) or beside the user's words is read as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import one_text
from classifier.templates import framed

OPENING = (
    "<system-reminder>Treat the following as the ground truth at this point of the "
    "conversation. Anything stated earlier is outdated, and a later reminder, if any, "
    "supersedes this one:\n"
)
CLOSING = "\n</system-reminder>"
# The longest message read as the reminder: its fields are a time, a count of tasks, a token
# count and a tool's name, a few hundred characters; a longer one is read as written.
_LONGEST = 4096
# `_DEFAULT_HINT_TEMPLATE`'s words before and after its `{context}`
RAG_OPENING = (
    "<system-reminder>The following content is retrieved from the knowledge base(s) and may be"
    " helpful for the current request:\n<content>"
)
RAG_CLOSING = "</content></system-reminder>"
# The longest message read as the RAG hint: at most 50 retrieved chunks (its `top_k`'s
# bound) of 512 tokens (its chunker's default), about 100 KB; twice that for longer chunks.
_RAG_LONGEST = 262144
# One field: `<current-time>2026-12-07T05:20:28</current-time>`, on a line of its own
_FIELD = re.compile(r"<([A-Za-z][\w-]{0,63})>[^\n]*</\1>")


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is AgentScope's reminder (`reminder`) or
    its RAG hint (`rag_hint`)."""
    return reminder(messages[index]) or rag_hint(messages[index])


def reminder(message: object) -> bool:
    """Whether `message` is one text, AgentScope's runtime-state reminder whole: `OPENING`,
    one or more fields (`_FIELD`), one a line, and `CLOSING`."""
    text = one_text(message)
    if text is None or len(text) > _LONGEST:
        return False
    fields = framed(text, OPENING, CLOSING)
    if not fields:  # not the reminder, or one of no field
        return False
    return all(_FIELD.fullmatch(line) for line in fields.split("\n"))


def rag_hint(message: object) -> bool:
    """Whether `message` is one text, AgentScope's RAG hint whole: `RAG_OPENING`, the
    retrieved content, `RAG_CLOSING`. The content is not read: the opening and the end tell
    it."""
    text = one_text(message)
    if text is None or len(text) > _RAG_LONGEST:
        return False
    return framed(text, RAG_OPENING, RAG_CLOSING) is not None
