"""agency-swarm's requests: an ask that has one of its agency's agents do the work is a call
of its `send_message` tool.

agency-swarm (pypi `agency-swarm` 1.x, on the OpenAI Agents SDK: `tools/send_message.py`)
gives an agent that may talk to others a `send_message` tool (`SendMessage`), whose
`recipient_agent` parameter enumerates the agents it may send to, by their names. Its
description opens `DESCRIPTION_OPENING` and lists the recipients; the parameter is described
`RECIPIENT_DESCRIPTION`. The CEO's turn that delegates emits one call of it and nothing else:
the recipient does the work in a request of its own, classified by its own ask.

Read by its content, a delegating ask went where its words went: with `send_message` offered
to the CEO and "Developer" its one recipient, "Have the Developer check the build for branch
release-2.1, then summarize." was writing 0.50, "Tell the Developer to draft a short status
report on the API migration." writing 0.89, "Have the Developer write a haiku about our
release." prose 0.97, each to the cloud, and the conversation's pin then kept the CEO's later
delegations there too (found in a live review of agency-swarm 1.11.0). Only "Send a message
to the Developer ..." was tool use, by the asking phrase (`classifier.rules.asks_for_tools`).

An ask that names one of the recipients as the one to do it (`named_recipient`) asks for the
tool: a delegating verb ("have", "tell", "ask", "get" ... the agent; "delegate to", "check
with", "coordinate with" the agent; `_DELEGATING`), then the name as a word, any case, "the",
"our" or "your" before it or not; or the name opening the ask as its addressee
("Developer, check the build"). Not the name anywhere: "What does a developer do all day?"
asks the CEO itself, and keeps the model's reading; nor an ask that names no recipient.

Told by agency-swarm's exact texts: the tool's description's opening and its recipient
parameter's description (`recipients`), whatever the tool is named (a `SendMessage` subclass
may name it otherwise). Not covered: a subclass with a docstring of its own (its description
is that docstring), and agency-swarm 0.x, which sends its agents through the Assistants API
the router does not serve. The recipient's own request (the Developer's, offering its own
tools) is read as any other: its ask is the CEO's message, and its tools are its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import islice
from typing import Any

DESCRIPTION_OPENING = (
    "Use this tool to facilitate direct, synchronous communication between specialized agents"
    " within your agency."
)
RECIPIENT_FIELD = "recipient_agent"
RECIPIENT_DESCRIPTION = "The name of the agent to send the message to."
SCAN_TOOLS = 64  # of a request's tools, read for `send_message`
SCAN_NAMES = 32  # of a `send_message`'s recipients
NAME_CHARS = 64  # the longest recipient's name read; a longer one is no agent's name
# How much of a tool's description is read for its opening: the docstring's line break and
# indent before it
_OPENING_WITHIN = 256
# The verbs that have an agent do the work, before its name: "have the Developer check",
# "tell the Developer to", "check with the Developer", "delegate this to the Developer"
_THIS = r"(?:\s+(?:it|this|that|them))?"
_DELEGATING = (
    r"\b(?:have|get|tell|ask|let|make|instruct|direct|remind|ping|contact|message"
    r"|(?:delegate|assign|send|pass|forward|hand)" + _THIS + r"(?:\s+(?:off|over))?\s+to"
    r"|(?:check|coordinate|consult|confirm|follow\s+up|work)\s+with"
    r"|(?:talk|speak|reach\s+out)\s+(?:to|with))"
)
_ARTICLE = r"(?:\s+(?:the|our|your))?"


def recipients(tools: Sequence[Any]) -> tuple[str, ...]:
    """The agents an agency-swarm `send_message` among the first `SCAN_TOOLS` of `tools`
    (chat tools) may send to, its `recipient_agent` enumeration's names (the first
    `SCAN_NAMES` of each); none when no tool is its (`_recipient_enum`)."""
    names: list[str] = []
    for tool in islice(tools, SCAN_TOOLS):
        for name in islice(_recipient_enum(tool), SCAN_NAMES):
            if isinstance(name, str) and 0 < len(name.strip()) <= NAME_CHARS:
                names.append(name.strip())
    return tuple(dict.fromkeys(names))


def _recipient_enum(tool: object) -> list[Any]:
    """The `recipient_agent` enumeration of a chat tool that is agency-swarm's `send_message`:
    its description opening `DESCRIPTION_OPENING` (after the docstring's line break and
    indent) and the parameter described `RECIPIENT_DESCRIPTION`; empty for any other tool."""
    function = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(function, dict):
        return []
    description = function.get("description")
    if not isinstance(description, str):
        return []
    if not description[:_OPENING_WITHIN].lstrip().startswith(DESCRIPTION_OPENING):
        return []
    parameters = function.get("parameters")
    fields = parameters.get("properties") if isinstance(parameters, dict) else None
    field = fields.get(RECIPIENT_FIELD) if isinstance(fields, dict) else None
    if not isinstance(field, dict) or field.get("description") != RECIPIENT_DESCRIPTION:
        return []
    enum = field.get("enum")
    return enum if isinstance(enum, list) else []


@lru_cache(maxsize=256)
def _asking(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """The phrase that has one of the agents `names` do the work (`named_recipient`), any
    case; None when there are none. Cached: an agent sends the same tool on every turn."""
    if not names:
        return None
    spelled = (r"\s+".join(map(re.escape, name.split())) for name in names)
    name = "|".join(sorted(spelled, key=len, reverse=True))
    return re.compile(
        rf"{_DELEGATING}{_ARTICLE}\s+(?P<name>{name})(?!\w)"
        rf"|^\s*(?P<addressed>{name})\s*[,:]",
        re.IGNORECASE,
    )


def named_recipient(names: tuple[str, ...], text: str) -> str | None:
    """The recipient of `names` that the ask `text` has do the work, as the tool names it;
    None when it names none so (`_asking`)."""
    phrase = _asking(names)
    found = phrase.search(text) if phrase is not None else None
    if found is None:
        return None
    said = " ".join((found["name"] or found["addressed"]).split()).lower()
    return next((n for n in names if " ".join(n.split()).lower() == said), said)
