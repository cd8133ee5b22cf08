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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

_SUBAGENT_FIELD = "subagent_type"


def delegates(schema: dict[str, Any]) -> bool:
    """Whether a tool of this JSON schema starts a subagent (its `subagent_type` field)."""
    properties = schema.get("properties")
    return isinstance(properties, dict) and _SUBAGENT_FIELD in properties


def first_index(schemas: Sequence[dict[str, Any]]) -> int:
    """Which offered tool (of these schemas) a call goes to by default, where the ask names
    none: the first that starts no subagent, else the first."""
    return next((index for index, schema in enumerate(schemas) if not delegates(schema)), 0)
