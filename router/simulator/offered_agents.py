"""The agents a prompt offers by name, for a structured answer's field that names one.

fast-agent 0.2.36's router asks which agent should take a query: the query, then "Select
from the following agents to handle the request:" and a JSON list of the agents
(`<fastagent:agents>[{"name": "toolbot", "skills": [...]}, ...]`), with a `RoutingResponse`
schema whose `agent` is a free string. Its orchestrator's plan (`AgentTask.agent`, "Name of
Agent from given list of agents") names agents it shows as `<fastagent:agent name="poet">`.
The simulator filled both with the prompt's first words, and each workflow stopped: "the
agent What is 3 plus 4? Select was not known to the Router", "Agent 'You are tasked with
orchestrating a' not found" (a live review of demo mode). A model writes a name from the
list; so does the simulator now, where a field names an agent (`names_agent`) and the
prompt lists agents (`listing`), and nowhere else.

VoltAgent 2.10.0's supervisor lists its sub-agents as bullets in its system prompt
(`<specialized_agents>\n- writer: Writes short poems\n</specialized_agents>`) and offers
`delegate_task(task, targetAgents: string[])`; the simulator filled `targetAgents` with the
ask ("Write a haiku about the sea."), and VoltAgent answered "No valid target agents found.
Available agents: writer" (a live review of demo mode). Bullets inside an element whose tag
ends in `agents` are a listing too (`_bulleted`).

deepagents 0.7.6 (Deep Agents Code) lists its subagent types in its `task` tool's
description alone ("Available agent types ...:\n- general-purpose: General-purpose agent
...") and takes one as `subagent_type`, "Must be one of the available agent types listed in
the tool description"; the simulator filled it with the ask ("Use the task tool to have"),
and deepagents refused the call: the type "does not exist, the only allowed types are
`general-purpose`" (a live review of demo mode). A field named for an agent's type
(`subagent_type`, `agent_type`) names an agent too, and a tool's description lists them as
"- name: purpose" bullets whose name is one word (`described`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from router.simulator.asked_tool import words
from router.simulator.shown_forms import LONGEST, decoded

_MOST = 64  # names one listing offers at most
_LONGEST_NAME = 128  # characters of a name
_LEAD = 200  # characters before a JSON list read for the word "agent"
# an agent's element: `<agent name="x">`, `<fastagent:agent name="x">`, the name quoted
# either way; every part bounded, so a `<` costs a few hundred steps at most
_TAG = re.compile(
    r"<(?:[A-Za-z][\w.-]{0,31}:)?agent\b[^<>]{0,200}?\bname[ \t]{0,8}=[ \t]{0,8}"
    r"[\"']([^\"'<>\n]{1,128})[\"']",
    re.I,
)
_ARRAY = re.compile(r"(?=\[\s*\{)")  # where a JSON list of objects can begin
# an element of agents by its tag (`<specialized_agents>`, `<agents>`; not `<agents_memory>`),
# read up to its closing tag; bounded, as `_TAG` is
_BLOCK = re.compile(r"<((?:[A-Za-z][\w.-]{0,31}[_:-])?agents)>", re.I)
# a bullet of one: "- writer: Writes short poems", the name before its first colon
_BULLET = re.compile(r"^[ \t]{0,8}[-*][ \t]{1,8}([^:\n]{1,128}?)[ \t]{0,8}(?::|$)", re.M)
# a described agent's bullet: "- general-purpose: purpose", its name one word before a colon
_DESCRIBED = re.compile(r"^[ \t]{0,8}[-*][ \t]{1,8}([A-Za-z][\w.-]{0,63}):", re.M)
_AGENT_WORDS = frozenset({"agent", "agents", "subagent", "subagents"})


@dataclass(frozen=True, slots=True)
class Offered:
    """The agents' names a prompt lists, in order, and the ask that may name one: the user
    text before the listing (fast-agent puts the query first), or all of it where the
    system text lists them."""

    names: tuple[str, ...]
    ask: str


def names_agent(field: str, schema: dict[str, Any]) -> bool:
    """Whether a free string field names an agent: its name ends so (`agent`,
    `next_agent`, `agent_name`, `subagent_type`, `agent_type`; not `user_agent`), or its
    description speaks of an agent's name ("Name of Agent from given list of agents"). A
    field whose `format` or `pattern` holds it to other text never does."""
    if any(key in schema for key in ("format", "pattern", "enum", "const")):
        return False
    said = words(field)
    if said[-2:-1] and said[-2] in _AGENT_WORDS and said[-1] in ("name", "names", "type"):
        said = said[:-1]
    if said and said[-1] in _AGENT_WORDS:
        return said[-2:-1] != ["user"]
    about = schema.get("description")
    told = set(words(about[:_LEAD])) if isinstance(about, str) else set()
    return bool(told & _AGENT_WORDS) and "name" in told


def listing(user: str, system: str) -> Offered | None:
    """The agents the user text lists, else the system text; None where neither does."""
    for text in (user, system):
        found = _listed(text)
        if found is not None:
            names, start = found
            return Offered(names, user[:start] if text is user else user)
    return None


def described(description: str) -> tuple[str, ...]:
    """The agents a tool's description lists as "- name: purpose" bullets (`_DESCRIBED`),
    the first `_MOST`, where the description speaks of agents; none otherwise. Only its
    head is read (`LONGEST`)."""
    head = description[:LONGEST]
    if "agent" not in head.lower():
        return ()
    found = itertools.islice(_DESCRIBED.finditer(head), _MOST)
    return tuple(dict.fromkeys(match.group(1) for match in found))


def _listed(text: str) -> tuple[tuple[str, ...], int] | None:
    """The names of the earliest of the text's three forms of listing (`_tagged`, `_json`,
    `_bulleted`), and where it starts; a text without the word "agent" is passed over by a
    plain search."""
    if len(text) > LONGEST or "agent" not in text.lower():
        return None
    forms = (_tagged(text), _json(text), _bulleted(text))
    found = [form for form in forms if form is not None]
    return min(found, key=lambda form: form[1]) if found else None


def _tagged(text: str) -> tuple[tuple[str, ...], int] | None:
    """The names of the text's agent elements (`_TAG`), the first `_MOST`, and where the
    first starts."""
    names: dict[str, None] = {}
    start = -1
    for match in _TAG.finditer(text):
        start = match.start() if start < 0 else start
        names.setdefault(match.group(1).strip(), None)
        if len(names) >= _MOST:
            break
    names.pop("", None)
    return (tuple(names), start) if names else None


def _bulleted(text: str) -> tuple[tuple[str, ...], int] | None:
    """The names of the bullets (`_BULLET`) of the first element of agents (`_BLOCK`) that
    holds any, the first `_MOST`, and where it starts: VoltAgent's `<specialized_agents>`,
    each bullet "- name: purpose". Only the first `_MOST` openings are read, each closing
    found by one `str.find`: many openings never closed cost no more than that."""
    for block in itertools.islice(_BLOCK.finditer(text), _MOST):
        end = text.find(f"</{block.group(1)}>", block.end())
        bullets = _BULLET.finditer(text, block.end(), end) if end >= 0 else ()
        names = dict.fromkeys(found.group(1).strip() for found in itertools.islice(bullets, _MOST))
        names.pop("", None)
        if names:
            return tuple(names), block.start()
    return None


def _json(text: str) -> tuple[tuple[str, ...], int] | None:
    """The `name`s of the first JSON list of objects, each with one, that text mentioning
    agents leads into (fast-agent's router); names inside the objects (its agents' skills)
    are not agents'."""
    for value, found, _ in decoded(text, _ARRAY):
        start = found.end()
        if "agent" not in text[max(0, start - _LEAD) : start].lower():
            continue
        names = _names(value)
        if names:
            return names, start
    return None


def _names(value: Any) -> tuple[str, ...]:
    """Each item's `name`, where `value` is a list of `_MOST` objects at most, each with a
    name of one line; else none."""
    if not isinstance(value, list) or not 0 < len(value) <= _MOST:
        return ()
    names = [item.get("name") if isinstance(item, dict) else None for item in value]
    if not all(_fit(name) for name in names):
        return ()
    return tuple(dict.fromkeys(str(name).strip() for name in names))


def _fit(name: Any) -> bool:
    return isinstance(name, str) and 0 < len(name.strip()) <= _LONGEST_NAME and "\n" not in name
