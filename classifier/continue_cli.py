"""The Continue CLI's (`cn`) system prompt: which of its parts a run writes anew.

`cn` builds its system prompt once a run (extensions/cli src/systemMessage.ts), with the
day's date in its `<env>` block and a snapshot of `git status` in a `<context
name="gitStatus">` block. `cn --resume` is a new run of the same session: its prompt differs
from the first run's as soon as a file changed or a day went by, and the conversation key
(`router.conversation.conversation_key`), which hashes the system prompt, made the resumed
session another conversation, split in two in the ledger and without its pin (found in
review). Its built-in tools are `classifier.harness_tools`'.
"""

from __future__ import annotations

# How every `cn` system prompt begins (agent, plan and headless mode alike); another's
# prompt is never cut, however alike its blocks.
OPENING = "You are an agent in the Continue CLI."
# Each part a run writes anew: where it starts and what ends it (the date's line, up to the
# line break before `</env>`; the git status block, through its closing tag).
_SNAPSHOT = (("\nToday's date: ", "\n"), ('<context name="gitStatus">', "</context>"))


def without_snapshot(system: str) -> str:
    """`system` without the date and the git status `cn` wrote into it at the run's start,
    when it is `cn`'s prompt; any other as it is. Found by position, not by a pattern: a
    git status of thousands of files is read once."""
    if not system.startswith(OPENING):
        return system
    for start, end in _SNAPSHOT:
        at = system.find(start)
        stop = system.find(end, at + len(start)) if at >= 0 else -1
        if stop >= 0:
            system = system[:at] + system[stop + len(end) :]
    return system
