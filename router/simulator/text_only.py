"""Whether a request's latest instructions forbid tool calls: then the answer is text, tools
offered or not.

Claude Code compacts a conversation by sending it again, its tools still offered and
`tool_choice` left to the model, with a last user message that opens "CRITICAL: Respond
with TEXT ONLY. Do NOT call any tools." and ends "REMINDER: Do NOT call any tools.". The
simulator called `Read` twice, Claude Code rejected each call and gave up compacting, and
sent the whole history on (a live review of demo mode, Claude Code 2.1.332). A model told
so answers in text; where `tool_choice` forces a call, the server's constraint wins
(`Prompt.forces_call`).

The same prompt asks for "an <analysis> block followed by a <summary> block": answered with
a code snippet (its words read as coding), no `<summary>` in it, Claude Code 2.1.337 asked
again, a paragraph appended ("… with the summary inside <summary></summary> tags."), on
every `/compact` (a live review of demo mode). Text-only instructions that name those blocks
get them (`summary_blocks`).

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
# a block a summary's instructions name: "an <analysis> block", "inside <summary></summary>
# tags", "in <analysis> tags"; written in this order, each where named
_BLOCKS = ("analysis", "summary")
_NAMED_BLOCK = re.compile(r"<(analysis|summary)>(?:\s*</\1>)?\s+(?:block|tags)\b", re.I)


def forbids_tools(prompt: Prompt) -> bool:
    """Whether the last user message or the system prompt's tail says to call no tool ("Do
    NOT call any tools", "Respond with TEXT ONLY", "do not use any tools")."""
    return bool(
        _FORBIDS.search(ends(prompt.user)) or _FORBIDS.search(prompt.system[-_SYSTEM_TAIL:])
    )


def summary_blocks(prompt: Prompt) -> tuple[str, ...]:
    """The blocks a summary is asked in (`_BLOCKS`: `analysis`, `summary`), each where the
    last user message names it as a block or tags (`_NAMED_BLOCK`), in that order; none
    unless those instructions forbid tool calls too (`forbids_tools`): a compaction request
    (Claude Code's), not an ask about the tags."""
    named = {found.lower() for found in _NAMED_BLOCK.findall(ends(prompt.user))}
    if not named or not forbids_tools(prompt):
        return ()
    return tuple(block for block in _BLOCKS if block in named)
