"""An offered tool that hands the task to a subagent, which the simulator calls only when asked.

Claude Code offers `Agent` first (its subagents too): called by default, as the first tool,
with the ask as its prompt, each subagent called it again, four levels deep, a dozen
requests for one ask (a live review of demo mode through claude-code-router). A model calls
such a tool when the task calls for a helper, not for any ask; the simulated one calls it
where the ask names it (`asked_tool.asked_index`), and otherwise answers as for no tool.
Told by its schema's `subagent_type` field, which Claude Code's and Kimi CLI's `Agent`, Qwen
Code's and nanocoder's `agent`, opencode's, OpenHands' and deepagents' `task` all take (their
recorded requests in tests/fixtures): a name alone says too little (Claude Code's
`TaskCreate` keeps a to-do list).

The prompt the simulator writes for a subagent is the ask with its instruction to delegate
left out (`handed`): it wrote the ask's first words, "Use the Agent tool to have", and the
subagent, asked for `Agent` by them, started one again, and each of those, to Claude Code's
depth limit (a live review of demo mode, Claude Code 2.1.337). A model hands a subagent the
task, not its own instruction to delegate it: "Use the Agent tool to have a subagent look
through calc.py and summarize it" hands "look through calc.py and summarize it".
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from typing import Any

from router.simulator.asked_tool import named_spans, words

_SUBAGENT_FIELD = "subagent_type"


def delegates(schema: dict[str, Any]) -> bool:
    """Whether a tool of this JSON schema starts a subagent (its `subagent_type` field)."""
    properties = schema.get("properties")
    return isinstance(properties, dict) and _SUBAGENT_FIELD in properties


def first_index(schemas: Sequence[dict[str, Any]]) -> int:
    """Which offered tool (of these schemas) a call goes to by default, where the ask names
    none: the first that starts no subagent, else the first."""
    return next((index for index, schema in enumerate(schemas) if not delegates(schema)), 0)


def handed(ask: str, names: Iterable[str]) -> str:
    """`ask` as a subagent's task: where it names one of the tools `names` (those that start
    a subagent), as `asked_tool.asked_index` reads a name (`asked_tool.named_spans`), the
    instruction to use it left out. A mention opening its sentence, after words that only
    say to use it ("Use the", "Have an", "Please spin up a"), goes with that opening and the
    words after it up to the task ("tool", ":", "to have a subagent"); elsewhere the mention
    alone goes, with its "the"/"an" and "tool". The rest is kept as written: a file's name,
    a path or an identifier holding the tool's name ("agent.py", "User-Agent",
    "task_runner.py") names no tool and stays, and only the gap a removal leaves is
    squeezed, the ask's lines and indents kept.

    What it returns names none of `names` (`asked_index` finds none): a removal that brings
    words together into a name again is read again, a few rounds (`_ROUNDS`), and the ask
    left empty if one still stands (the field then gets its placeholder, `scalars.string`)."""
    names = list(names)
    task = ask
    for _ in range(_ROUNDS):
        spans = named_spans(names, task)
        if not spans:
            return task
        breaks = [found.end() for found in _BREAK.finditer(task)]
        for start, end in reversed(spans):
            task = _cut(task, start, end, breaks)
    return "" if named_spans(names, task) else task


_ROUNDS = 4
# where a sentence or line ends: what a delegating opening ("Use the Agent tool to") follows
_BREAK = re.compile(r"[.!?](?=\s)|\n")
# the words that only say to use a tool, before it in its sentence: "Use the", "Have an",
# "I want you to use the", "Please spin up a"
_INSTRUCTING = frozenset(
    {
        *("please", "use", "using", "call", "invoke", "run", "with", "via", "through", "by"),
        *("have", "get", "let", "ask", "tell", "spin", "up", "start", "launch", "delegate"),
        *("hand", "send", "give", "the", "a", "an", "one", "to", "it", "this", "me", "us"),
        *("can", "could", "would", "will", "you", "i", "want", "need", "now", "then", "and"),
        *("first", "of"),
    }
)
# what follows a delegating opening's mention up to the task: "'s", " tool", ":", " to have
# a subagent"
_LEAD = re.compile(
    r"(?:'s)?(?:\s+tools?\b)?\s*[:,]?\s*(?:to\s+)?(?:(?:have|get|let|make|ask|tell)\s+)?"
    r"(?:(?:a|an|the|one)\s+)?(?:(?:sub-?agents?|helpers?|agents?)\s+)?(?:to\s+)?",
    re.I,
)
# a mention's "the", "an" or "a" before it, and "'s" and "tool" after it
_ARTICLE = re.compile(r"\b(?:the|an|a)[ \t]+$", re.I)
_TOOL_WORD = re.compile(r"(?:'s)?(?:[ \t]+tools?\b)?", re.I)


def _cut(task: str, start: int, end: int, breaks: list[int]) -> str:
    """`task` less the mention at `start:end`: with its sentence's opening and lead (`_LEAD`)
    where the opening only says to use it (`_INSTRUCTING`) and a task follows, else with
    its article and "tool" alone."""
    opening = breaks[bisect.bisect_right(breaks, start) - 1] if breaks and breaks[0] <= start else 0
    lead = _LEAD.match(task, end)
    after = lead.end() if lead else end
    if set(words(task[opening:start])) <= _INSTRUCTING and words(task[after:]):
        return _joined(task[:opening], task[after:])
    article = _ARTICLE.search(task, 0, start)
    tool = _TOOL_WORD.match(task, end)
    return _joined(
        task[: article.start() if article else start], task[tool.end() if tool else end :]
    )


def _joined(left: str, right: str) -> str:
    """`left` and `right` with the gap a removal left between them one space, or none at a
    line's edge or before punctuation; the rest of the text's spacing kept."""
    left, right = left.rstrip(" \t"), right.lstrip(" \t")
    if not left or not right or left.endswith("\n") or right[0] in "\n.,;:!?)":
        return left + right
    return f"{left} {right}"
