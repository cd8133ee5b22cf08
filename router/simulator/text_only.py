"""Whether a request's latest instructions forbid tool calls: then the answer is text, tools
offered or not.

Claude Code compacts a conversation by sending it again, its tools still offered and
`tool_choice` left to the model, with a last user message that opens "CRITICAL: Respond
with TEXT ONLY. Do NOT call any tools." and ends "REMINDER: Do NOT call any tools.". The
simulator called `Read` twice, Claude Code rejected each call and gave up compacting, and
sent the whole history on (a live review of demo mode, Claude Code 2.1.332). A model told
so answers in text; where `tool_choice` forces a call, the server's constraint wins
(`Prompt.forces_call`).

Bounded: the last user message's head and tail (`prompt.ends`) and the system prompt's
tail (`_SYSTEM_TAIL`), where an agent writes its latest instructions.
"""

from __future__ import annotations

import re

from router.simulator.prompt import Prompt, ends

_SYSTEM_TAIL = 2000  # characters of the system prompt read, from its end
_FORBIDS = re.compile(
    r"\b(?:do\s+not|don't|never)\s+(?:call|use)\s+any\s+tools?\b|\brespond\s+with\s+text\s+only\b",
    re.I,
)


def forbids_tools(prompt: Prompt) -> bool:
    """Whether the last user message or the system prompt's tail says to call no tool ("Do
    NOT call any tools", "Respond with TEXT ONLY", "do not use any tools")."""
    return bool(
        _FORBIDS.search(ends(prompt.user)) or _FORBIDS.search(prompt.system[-_SYSTEM_TAIL:])
    )
