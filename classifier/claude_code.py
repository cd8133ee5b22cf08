"""Claude Code's side requests: its title request, the session's ask inside a fixed text,
and its security monitor's, the session's transcript after its instructions. Neither is a
turn of the session.

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

In auto mode (2.1.332's default permission mode), through a gateway without Anthropic's
server-side action check, Claude Code asks its security monitor about each checked action:
two requests of their own, no tools, not streamed, with the session's id (stage 1,
`max_tokens` 2112 and `stop_sequences` `</block>`; stage 2, `max_tokens` 10240), the monitor's
instructions as the system prompt ("You are a security monitor for autonomous AI coding
agents.", `MONITOR_SYSTEM`, 141k characters), then one user message: the session's
transcript, a JSON object a line (`{"user": ...}` for an ask, `{"Bash": ...}` for a tool's
input) in `<transcript>` tags, and the stage's instructions. Read whole, the instructions
were read (stage 1 instruction, stage 2 writing on the cloud), and a monitor's request that
finished before the session's turn pinned it to the cloud (found in a live review of
2.1.332). So it is a side request, read by the latest ask in the transcript (`monitor_ask`),
as the title request is by its own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text, part_text, role

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
# The security monitor's system prompt's opening (2.1.332), and its transcript's tags and ask
# entries in the user message
MONITOR_SYSTEM = "You are a security monitor for autonomous AI coding agents."
TRANSCRIPT_OPENING = "<transcript>\n"
TRANSCRIPT_END = "</transcript>"
USER_ENTRY = '{"user":'


def title_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The ask inside Claude Code's title text when `message` is its title request's user
    message (`titles`); else the content as sent (the very object). `system`: the system
    prompt of `messages`."""
    sent = message.get("content") if isinstance(message, dict) else None
    if len(messages) != 2 or messages[1] is not message:
        return sent
    text = one_text(message)
    ask = _inside(text) if text is not None else None
    return sent if ask is None or not _has_prompt(system, TITLE_SYSTEMS) else ask


def side_requests(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` (of system prompt `system`) are Claude Code's title request or its
    security monitor's (`classifier.side_request`)."""
    return titles(messages, system) or monitors(messages, system)


def titles(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are Claude Code's title request: its title prompt as the system
    message (`system`), then one user message of its title text around the session's ask."""
    if len(messages) != 2 or not isinstance(messages[1], dict):
        return False
    text = one_text(messages[1]) if messages[1].get("role") == "user" else None
    return text is not None and _inside(text) is not None and _has_prompt(system, TITLE_SYSTEMS)


def monitors(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are a request of Claude Code's security monitor: its instructions
    as the system prompt (`system`), then one user message holding the session's transcript."""
    return len(messages) == 2 and _transcript(messages[1], system) is not None


def monitor_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The latest ask in the transcript when `message` is the security monitor's user message
    (`monitors`); else the content as sent (the very object). `system`: the system prompt of
    `messages`."""
    sent = message.get("content") if isinstance(message, dict) else None
    if len(messages) != 2 or messages[1] is not message:
        return sent
    transcript = _transcript(message, system)
    ask = _latest_ask(transcript) if transcript is not None else None
    return sent if ask is None else ask


def _transcript(message: object, system: System) -> str | None:
    """The text inside `message`'s `<transcript>` tags when it is the user message after the
    security monitor's instructions (`system`), its text parts joined as sent (Claude Code
    sends each entry as a part of its own); None otherwise."""
    if role(message) != "user" or not _has_prompt(system, (MONITOR_SYSTEM,)):
        return None
    content = message.get("content") if isinstance(message, dict) else None
    parts = content if isinstance(content, list) else [content]
    texts = [part_text(p) for p in parts]
    text = "".join(t for t in texts if t is not None)
    if None in texts or not text:  # an image or a tool result: no monitor's
        return None
    start = text.find(TRANSCRIPT_OPENING)
    end = text.rfind(TRANSCRIPT_END)
    if start < 0 or end < start:
        return None
    return text[start + len(TRANSCRIPT_OPENING) : end]


def _latest_ask(transcript: str) -> str | None:
    """The latest user entry's text in a monitor's `transcript` (`{"user": ASK}`, one line);
    None when it holds none."""
    for line in reversed(transcript.splitlines()):
        if not line.startswith(USER_ENTRY):
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):  # a line of a thousand "[": too deep for Python
            continue
        ask = entry.get("user") if isinstance(entry, dict) else None
        if isinstance(ask, str) and ask.strip():
            return ask
    return None


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


def _has_prompt(system: System, openings: tuple[str, ...]) -> bool:
    """Whether the system prompt `system` holds one of Claude Code's prompts `openings` where
    it stands: near the head of one text (after the identity or the attribution block), or as
    one of its first parts."""
    content = system.content
    if isinstance(content, str):
        return any(content.find(t, 0, TITLE_WITHIN + len(t)) >= 0 for t in openings)
    if not isinstance(content, list):
        return False
    return any((part_text(p) or "").startswith(openings) for p in content[:TITLE_PARTS])
