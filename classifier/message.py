"""A chat message's one text: what an agent's fixed messages are matched against; and the
request's first user message, which some of them come only after.

Agents' fixed user and assistant messages (Aider's pairs and examples, opencode's and Qwen
Code's own: `classifier.aider`, `classifier.opencode`, `classifier.qwen`) are one text each,
sent as a string or as one text part (an SDK may send it so, Qwen Code does, and Aider
when it marks a message for Anthropic's prompt cache). Each module read it with a helper
of its own, two of them alike but for what they gave back for no text; one reads it now.

Some fixed user messages are a framework's only after its task, the request's first user
message (ADK's relays and fillers, mini-swe-agent's answer to a reply it could not run):
`after_first_user` tells whether a message comes after that one and that one is none of
them, looking for it within the bound the first ask is looked for in (`SCAN_MESSAGES`,
`classifier.asks.first_ask`). Each module had that loop of its own, alike but for what it
asked of the message (found in review).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import islice
from typing import Any, TypeVar

T = TypeVar("T")

# How many of a request's first messages are read for its first user message, and for its
# first ask (`classifier.asks.first_ask`): bounded, however long the conversation.
SCAN_MESSAGES = 64


def one_text(message: object) -> str | None:
    """A message's content when it is one text: a string, or the text of its one text
    part; None otherwise (no content, several parts, a part of no text)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        content = content[0].get("text") if content[0].get("type") == "text" else None
    return content if isinstance(content, str) else None


def system_prompt(messages: Sequence[Any]) -> str | None:
    """The text of a request's system prompt, its first message when that is a system (or
    developer) message of one text (`one_text`); None otherwise. What an agent's or a
    framework's reader looks for its identity in (ADK's, Kimi CLI's, Open Interpreter's,
    gptme's, instructor's), before it passes any of its texts over."""
    first = _system_message(messages)
    return one_text(first) if first is not None else None


def system_opening(messages: Sequence[Any]) -> str | None:
    """The first text of a request's system prompt: its first message's content when that
    is a system (or developer) message, a string or its first part's text; None otherwise.
    What an agent's reader looks for its identity at the start of when the prompt may come
    in several parts (opencode's in two, OpenHands' with the repository's context, Claude
    Code's blocks kept apart through a gateway), where `system_prompt` reads only one
    text."""
    first = _system_message(messages)
    content = first.get("content") if first is not None else None
    if isinstance(content, list) and content and isinstance(content[0], dict):
        content = content[0].get("text")
    return content if isinstance(content, str) else None


def _system_message(messages: Sequence[Any]) -> dict[str, Any] | None:
    """A request's first message when it is its system prompt, a system or a developer
    message (OpenAI's APIs take either); None otherwise. One reading for `system_prompt`
    and `system_opening`: the one took a developer message and the other did not, so an
    identity was found in a developer prompt by one reader and missed by the next (found
    in review)."""
    first = messages[0] if messages else None
    if not isinstance(first, dict) or first.get("role") not in ("system", "developer"):
        return None
    return first


def per_text(read: Callable[[str], T]) -> Callable[[str], T]:
    """`read`, its last answer kept for the very text it was given (by identity: a string
    never changes, and the one kept is held, so its id is never another's). A framework's
    reader tells its requests by their first message, and is asked so for each message
    scanned (`classifier.asks`): read anew each time, one request of a few hundred
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


def after_first_user(messages: Sequence[Any], index: int, own: Callable[[object], bool]) -> bool:
    """Whether `messages[index]` comes after the request's first user message (looked for
    among the first `SCAN_MESSAGES`), and that message is not `own` (one of the framework's
    fixed messages): a framework that sends its task first, always, sends its own texts only
    after it, so one with no task before it is a user's paste, read as written."""
    for message in islice(messages, min(index, SCAN_MESSAGES)):
        if isinstance(message, dict) and message.get("role") == "user":
            return not own(message)
    return False
