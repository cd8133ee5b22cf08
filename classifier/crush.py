"""crush's title call: the ask inside a fixed user text of its own.

After a session's first ask, crush (charmbracelet/crush `internal/agent/agent.go`,
`generateTitle`) asks for a title in a request of its own, no tools, its title prompt as the
system message with "\\n /no_think" appended, and one user message: `TITLE_OPENING`, the
ask, then `TITLE_TAIL`. Read whole, the fixed words were read as the ask ("Generate a
concise title ... <think>"): 4 of 7 coding asks went to the cloud (found in review). So
the ask inside is read, and only in crush's title call: a user who types the same words
elsewhere is asking them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

TITLE_OPENING = "Generate a concise title for the following content:\n\n"
TITLE_TAIL = "\n <think>\n\n</think>"
# What crush appends to its title prompt (`WithSystemPrompt(string(p)+"\n /no_think")`)
TITLE_SYSTEM_END = "\n /no_think"


def title_ask(message: object, messages: Sequence[Any]) -> object:
    """The content of `message`, the ask inside crush's title text when the request is
    crush's title call (a system message before it ends with `TITLE_SYSTEM_END`; crush may
    put a provider's prefix first, as a system message of its own); any other as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str) or not content.startswith(TITLE_OPENING):
        return content
    if not content.endswith(TITLE_TAIL) or not _titles(messages, message):
        return content
    return content[len(TITLE_OPENING) : -len(TITLE_TAIL)]


def titles(messages: Sequence[Any]) -> bool:
    """Whether `messages` are crush's title call: its title text as the last message, after
    its title prompt (`classifier.side_request`)."""
    last = messages[-1] if messages else None
    return isinstance(last, dict) and title_ask(last, messages) is not last.get("content")


def _titles(messages: Sequence[Any], message: object) -> bool:
    """Whether a system message before `message`, among the first two, is crush's title
    prompt."""
    for earlier in messages[:2]:
        if earlier is message or not isinstance(earlier, dict):
            return False
        text = earlier.get("content")
        if earlier.get("role") == "system" and str(text).endswith(TITLE_SYSTEM_END):
            return True
    return False
