"""A chat message's one text: what an agent's fixed messages are matched against.

Agents' fixed user and assistant messages (Aider's pairs and examples, opencode's and Qwen
Code's own: `classifier.aider`, `classifier.opencode`, `classifier.qwen`) are one text each,
sent as a string or as one text part (an SDK may send it so, Qwen Code does, and Aider
when it marks a message for Anthropic's prompt cache). Each module read it with a helper
of its own, two of them alike but for what they gave back for no text; one reads it now.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def one_text(message: object) -> str | None:
    """A message's content when it is one text: a string, or the text of its one text
    part; None otherwise (no content, several parts, a part of no text)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        content = content[0].get("text") if content[0].get("type") == "text" else None
    return content if isinstance(content, str) else None


def per_text(read: Callable[[str], T]) -> Callable[[str], T]:
    """`read`, its last answer kept for the very text it was given (by identity: a string
    never changes, and the one kept is held, so its id is never another's). A framework's
    reader tells its requests by their first message, and is asked so for each message
    scanned (`classifier.request`): read anew each time, one request of a few hundred
    messages around a 64 KB first message took a second to classify (found in review). Only
    the last text is kept: the texts of one request are read together."""
    last: list[tuple[str, T]] = []

    def cached(text: str) -> T:
        kept = last[0] if last else None
        if kept is not None and kept[0] is text:
            return kept[1]
        answer = read(text)
        last[:] = [(text, answer)]
        return answer

    return cached
