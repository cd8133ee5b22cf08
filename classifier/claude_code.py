"""Claude Code's title request: the session's ask inside a fixed text, and a request that
only names the session.

Beside a session's first turn, Claude Code (2.1.197, recorded in a live review) asks for the
session's title in a request of its own, no tools, with the session's
`X-Claude-Code-Session-Id`: its identity and its title prompt (`TITLE_SYSTEMS`, "Generate a
concise, sentence-case title (3-7 words)...") as system texts, then one user message,
the ask in `<session>` tags and "Write the title in the language the user wrote in..."
(`TITLE_TAILS`); on Messages an `output_config.format` asks for a JSON `title`, which a
gateway (claude-code-router) drops. 2.1.337 (Agent SDK 0.2.190, recorded in a later review)
reworded both: "You are naming a coding session so the user can pick it out of a long list
of sessions..." and "Write the title in the predominant language of the session — ...".
Known only by its old words, its title request was read whole again and could pin its
session: both wordings are known. Read whole, the fixed words weighed in ("Translate 'good
morning' into French" was writing 0.39, and went to the cloud): the ask inside is read, as
crush's and OpenHands' title calls' are (`classifier.crush`, `classifier.openhands`), and
only in Claude Code's title request. Its title pins nothing of the session
(`classifier.side_request`): it finished before the first turn and pinned every coding turn
to the cloud (found in the same review).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text, part_text

# The title prompt's opening, by version: 2.1.197's, 2.1.337's
TITLE_SYSTEMS = (
    "Generate a concise, sentence-case title (3-7 words) that captures the main topic",
    "You are naming a coding session so the user can pick it out of a long list of sessions.",
)
SESSION_OPENING = "<session>\n"
SESSION_END = "\n</session>\n\n"
# The tail's opening after the session, by version: 2.1.197's, 2.1.337's
TITLE_TAILS = (
    "Write the title in the language the user wrote in",
    "Write the title in the predominant language of the session",
)
# Where the title prompt stands: after the identity sentence in one text (Messages' system
# blocks joined: "You are a Claude agent, built on Anthropic's Claude Agent SDK.\n" or
# "You are Claude Code, Anthropic's official CLI for Claude.\n"), or a part of its own after
# the attribution block and the identity (chat, through a gateway)
TITLE_WITHIN = 160
TITLE_PARTS = 4
# How long the tail after the session's end may be: its sentence, one line, no more (2.1.337's
# is 178 characters)
TAIL_WITHIN = 200


def title_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The ask inside Claude Code's title text when `message` is its title request's user
    message (`titles`); else the content as sent (the very object). `system`: the system
    prompt of `messages`."""
    sent = message.get("content") if isinstance(message, dict) else None
    if len(messages) != 2 or messages[1] is not message:
        return sent
    text = one_text(message)
    ask = _inside(text) if text is not None else None
    return sent if ask is None or not _title_prompt(system) else ask


def titles(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are Claude Code's title request: its title prompt as the system
    message (`system`), then one user message of its title text around the session's ask."""
    if len(messages) != 2 or not isinstance(messages[1], dict):
        return False
    text = one_text(messages[1]) if messages[1].get("role") == "user" else None
    return text is not None and _inside(text) is not None and _title_prompt(system)


def _inside(text: str) -> str | None:
    """The ask between `SESSION_OPENING` and the last `SESSION_END`, when one of
    `TITLE_TAILS` and its sentence's rest alone follow, one line; None for any other text
    (words a user added after it are theirs)."""
    if not text.startswith(SESSION_OPENING):
        return None
    end = text.rfind(SESSION_END, max(0, len(text) - TAIL_WITHIN - len(SESSION_END)))
    if end < len(SESSION_OPENING):  # none near the end (-1), or inside the opening
        return None
    tail = end + len(SESSION_END)
    if not text.startswith(TITLE_TAILS, tail) or "\n" in text[tail:]:
        return None
    return text[len(SESSION_OPENING) : end]


def _title_prompt(system: System) -> bool:
    """Whether the system prompt `system` holds Claude Code's title prompt where it stands:
    near the head of one text, or as one of its first parts."""
    content = system.content
    if isinstance(content, str):
        return any(content.find(t, 0, TITLE_WITHIN + len(t)) >= 0 for t in TITLE_SYSTEMS)
    if not isinstance(content, list):
        return False
    return any((part_text(p) or "").startswith(TITLE_SYSTEMS) for p in content[:TITLE_PARTS])
