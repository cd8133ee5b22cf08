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

An ask that has one of the recipients do the work (`named_recipient`) asks for the tool:
- a delegating verb opening the ask or a clause of it (at its start, after ".!?;:" or a line
  break, or after "please", "then", "can you", "could you" ...; `_OPENING`), then the name,
  "the", "our" or "your" before it or not, any case, then a task (`_tasked`): "have / let /
  make the Developer <verb>", "tell / ask / get / remind ... the Developer to <verb>" or "...
  whether / what / how / about ...", or whatever follows "delegate / hand this to", "check /
  coordinate with", "talk to", "ping / message" the agent, whose verb is the task (`_VERB`);
  never the name's possessive ("make the Designer's mockup into HTML");
- or the name opening the ask as its addressee, then a comma and an imperative ("Developer,
  check the build"); a colon only with the name spelled as the tool spells it ("Developer:
  check the build"), since "Summary: the meeting went well." is a heading.
Not the name anywhere, nor in any grammatical role: "What does a developer do all day?",
"What questions should I ask the developer in a job interview?", "Write a story where we
have the developer fall in love.", "Let the writer in you shine: ..." (with "Writer" an
agent) ask the CEO itself and keep the model's reading (found in review); nor an ask that
names no recipient. Agents are often named by roles, everyday words.

The names are looked up, not compiled into a pattern: a tool list of 64 tools of 32 names
each, compiled into one alternation per list, took 1.3 s of the event loop and about 10 MB
per cached pattern (found in review). One fixed pattern finds the verbs; the words after one
are looked up in the names' words (`_Names`), at most `NAMES` names of at most `NAME_WORDS`
words.

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
from itertools import chain, islice
from typing import Any

DESCRIPTION_OPENING = (
    "Use this tool to facilitate direct, synchronous communication between specialized agents"
    " within your agency."
)
RECIPIENT_FIELD = "recipient_agent"
RECIPIENT_DESCRIPTION = "The name of the agent to send the message to."
SCAN_TOOLS = 64  # of a request's tools, read for `send_message`
# Entries of their `recipient_agent` enumerations read, over all of them: a body of millions
# of entries costs no more, and entries no agent may have before the names hide none of them
SCAN_ENTRIES = 1024
NAMES = 64  # distinct recipients kept, of those entries: an agency of more is none seen
NAME_CHARS = 64  # the longest recipient's name read; a longer one is no agent's name
NAME_WORDS = 8  # the most words (and marks: "Q&A") of a recipient's name read, alike
# How much of a tool's description is read for its opening: the docstring's line break and
# indent before it
_OPENING_WITHIN = 256
# A name's words and marks, as looked up: "virtual  assistant" is "Virtual Assistant"
_WORD = re.compile(r"\w+|[^\w\s]")
# Where a delegating verb may stand: opening the ask or a clause of it, or asked for ("please",
# "can you"), or a step after another ("check the logs, then have the Developer fix it")
_OPENING = (
    r"(?:^\s*|(?<=[.!?;:\n])\s*|\bplease,?\s+|\bthen,?\s+"
    r"|\b(?:can|could|would|will)\s+you\s+(?:please\s+)?)"
)
_THIS = r"(?:\s+(?:it|this|that|them))?"
# The verbs that have an agent do the work, before its name: "have the Developer check"
# (`causing`: a bare verb follows the name), "tell the Developer to" (`telling`: "to" and a
# verb, or what to ask, follows), "check with the Developer", "delegate this to the
# Developer" (`messaging`: the verb says the task)
_VERB = re.compile(
    _OPENING + r"(?:(?P<causing>have|let|make)"
    r"|(?P<telling>get|tell|ask|instruct|direct|remind)"
    r"|(?P<messaging>ping|contact|message"
    r"|(?:delegate|assign|send|pass|forward|hand)" + _THIS + r"(?:\s+(?:off|over))?\s+to"
    r"|(?:check|coordinate|consult|confirm|follow\s+up|work)\s+with"
    r"|(?:talk|speak|reach\s+out)\s+(?:to|with)))(?=\s)",
    re.IGNORECASE,
)
_ARTICLES = frozenset({"the", "our", "your"})
# A word after the name, bare or after "to", that starts the agent's task: any but these
# ("let the writer in you shine", "ask the developer in a job interview")
_NOT_TASK_TEXT = """
a an the this that these those some any every each no not
i me my you your he him his she her it its we us our they them their one
in on at of for with about from by into onto over under after before during through
to up down out off around as like than via per
and or but nor so yet if because while
is are was were been being am does did has had will would shall should can could may might must
who whom whose which what where when why how whether
"""
_NOT_TASK = frozenset(_NOT_TASK_TEXT.split())
# What to ask or tell may follow a telling verb's name: "ask the Developer whether ..."
_TOLD = frozenset(
    {"whether", "if", "what", "where", "when", "why", "how", "which", "who", "that", "about", "for"}
)
_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)\b")
# The name opening the ask as its addressee: a comma or a colon, then an imperative
_ADDRESSED = re.compile(r"\s*([,:])\s*(?:please,?\s+)?([^\W\d_]+)\b", re.IGNORECASE)


def recipients(tools: Sequence[Any]) -> tuple[str, ...]:
    """The agents an agency-swarm `send_message` among the first `SCAN_TOOLS` of `tools`
    (chat tools) may send to: of the first `SCAN_ENTRIES` entries of their `recipient_agent`
    enumerations, over all of them, the names an agent may have (`_readable`), each once, the
    first `NAMES` of them; none when no tool is its (`_recipient_enum`). Read and deduplicated
    before they are counted: counted first, 64 entries that are no names or the same name
    hid the agents after them (found in review)."""
    enums = (_recipient_enum(tool) for tool in islice(tools, SCAN_TOOLS))
    entries = islice(chain.from_iterable(enums), SCAN_ENTRIES)
    names = dict.fromkeys(name.strip() for name in entries if _readable(name))
    return tuple(islice(names, NAMES))


def _readable(name: object) -> bool:
    """Whether `name` may be an agent's: a string, not blank, of at most `NAME_CHARS`
    characters and `NAME_WORDS` words."""
    if not isinstance(name, str) or not 0 < len(name.strip()) <= NAME_CHARS:
        return False
    return len(_WORD.findall(name)) <= NAME_WORDS


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


class _Names:
    """The recipients by their words, casefolded as the ask's are ("STRASSE" is "Straße"),
    looked up where a name may stand: a dict, not a pattern compiled per tool list (see the
    module's docstring)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.by_words: dict[tuple[str, ...], str] = {}
        for name in names:
            self.by_words.setdefault(tuple(w.casefold() for w in _WORD.findall(name)), name)
        self.longest = max(map(len, self.by_words), default=0)

    def at(self, text: str, pos: int) -> tuple[str, int] | None:
        """The recipient named at `pos` of `text` (after "the", "our" or "your", or not)
        and where its name ends; its longest name there, or None."""
        found = list(islice(_WORD.finditer(text, pos), self.longest + 1))
        words = [m[0].casefold() for m in found]
        starts = (1, 0) if words and words[0] in _ARTICLES else (0,)
        for start in starts:
            for end in range(min(len(words), start + self.longest), start, -1):
                name = self.by_words.get(tuple(words[start:end]))
                if name is not None:
                    return name, found[end - 1].end()
        return None


def _tasked(verb: re.Match[str], text: str, pos: int) -> bool:
    """Whether a task for the agent follows its name, ending at `pos`, after the delegating
    `verb`: a bare verb after "have / let / make" (or "to" and one), "to" and a verb or what
    to ask after "tell / ask / get ...", anything but the name's possessive after the verbs
    that say the task themselves ("check with the Developer", "delegate this to it")."""
    if verb["messaging"]:
        return text[pos : pos + 1] not in ("'", "\u2019")
    word = _NEXT_WORD.match(text, pos)
    said = word[1].lower() if word else ""
    if verb["telling"] and said in _TOLD:
        return True
    if said == "to" and word is not None:
        after = _NEXT_WORD.match(text, word.end())
        return after is not None and after[1].lower() not in _NOT_TASK
    return bool(verb["causing"]) and bool(said) and said not in _NOT_TASK


def _addressed(names: _Names, text: str) -> str | None:
    """The recipient the ask opens addressing, then a comma and an imperative ("Developer,
    check the build"), or a colon with the name spelled as the tool spells it."""
    start = len(text) - len(text.lstrip())
    named = names.at(text, start)
    if named is None:
        return None
    name, end = named
    then = _ADDRESSED.match(text, end)
    if then is None or then[2].lower() in _NOT_TASK:
        return None
    if then[1] == ":" and " ".join(text[start:end].split()) != " ".join(name.split()):
        return None
    return name


def named_recipient(names: tuple[str, ...], text: str) -> str | None:
    """The recipient of `names` that the ask `text` has do the work, as the tool names it;
    None when it names none so (see the module's docstring)."""
    if not names:
        return None
    table = _Names(names)
    for verb in _VERB.finditer(text):
        named = table.at(text, verb.end())
        if named is not None and _tasked(verb, text, named[1]):
            return named[0]
    return _addressed(table, text)
