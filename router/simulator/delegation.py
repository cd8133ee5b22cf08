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

The prompt the simulator writes for a subagent is the ask less the names of such tools
(`handed`): it wrote the ask's first words, "Use the Agent tool to have", and the subagent,
asked for `Agent` by them, started one again, and each of those, to Claude Code's depth
limit (a live review of demo mode, Claude Code 2.1.337). A model hands a subagent the task,
not its own instruction to delegate it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from router.simulator.asked_tool import words

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
    """`ask` as a subagent's task: each mention of one of the tools `names` (those that
    start a subagent) left out, its words in any case, written together or apart ("Agent",
    "agent", "delegate_task", "delegate task"), not inside a longer word ("subagent"); the
    spaces left run together."""
    for name in names:
        parts = words(name)
        if not parts:
            continue
        joined = r"[\s_-]*".join(map(re.escape, parts))
        ask = re.sub(rf"(?<![A-Za-z0-9]){joined}(?![A-Za-z0-9])", " ", ask, flags=re.I)
    return " ".join(ask.split())
