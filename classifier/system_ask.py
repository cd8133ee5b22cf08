"""A request of system messages alone: its system prompt is its ask.

Some apps send the whole prompt as one system message, no user message at all: BAML's
default (a prompt without `{{ _.role("user") }}` is rendered as ONE system message, found in
a live review of baml-py 0.226.3), promptfoo's closed-QA grader (`classifier.promptfoo`).
Read by user messages alone, such a request asked nothing: "Write a short essay on the
history of the printing press." as a lone system message took the default route
(`unknown`, local), where sent as a user message it was writing 0.99. So when a request
holds no user message (its messages are system or developer messages only), its system
messages are its asks (`system_asks`): the first and the latest that hold words, read as a
user's would be (`classifier.asks.user_messages`), and keying the conversation as the first
ask (`classifier.asks.first_ask`).

A system prompt that only says who the model is ("You are a helpful assistant.") is no ask
(`persona_only`): alone, the model read "You are helpful" as tool_calling 0.73 by its
length bucket, and such a request is read as asking nothing, the default route, as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from classifier.message import SCAN_MESSAGES, scanned_texts

# The roles of a system prompt's messages (`classifier.asks.Asks.in_system` tells the asks by it)
ROLES = ("system", "developer")
# Longer than this, a system prompt says more than who the model is: it is read
_PERSONA_CHARS = 400
# A sentence saying who the model is or how it behaves, and nothing of a task: "You are a
# helpful assistant", "You're an expert", "Act as a tutor", "Your name is Ada", "Be concise"
_PERSONA = re.compile(
    r"(?:(?:you\s+are|you['’]re)(?!\s+(?:given|asked|tasked|provided|shown|to|going)\b)"
    r"|act\s+as|acting\s+as|your\s+(?:name|role)\s+is"
    r"|(?:always\s+|please\s+)?be\s+(?:concise|brief|helpful|friendly|polite|accurate|honest"
    r"|precise|clear|kind|succinct|respectful))\b",
    re.I,
)
_SENTENCES = re.compile(r"[.!?;\n]+")


class SystemAsks(NamedTuple):
    """The first and the latest system message of a request of system messages alone that
    hold words (the same object when it holds one)."""

    first: dict[str, Any]
    latest: dict[str, Any]


def system_asks(messages: Sequence[Any]) -> SystemAsks | None:
    """The system (or developer) messages that are the asks of `messages` when it holds
    nothing else (at most `SCAN_MESSAGES` of them, none a user's, assistant's or tool's), the
    first and the latest with words; None for any other request, and for one whose system
    prompt only says who the model is (`persona_only`)."""
    if not messages or len(messages) > SCAN_MESSAGES:
        return None
    if any(not isinstance(m, dict) or m.get("role") not in ROLES for m in messages):
        return None
    texts = [(m, _text(m)) for m in messages]  # each read once, for words and for a persona
    worded = [(m, text) for m, text in texts if text and not text.isspace()]
    if not worded or all(persona_only(text) for _, text in worded):
        return None
    return SystemAsks(worded[0][0], worded[-1][0])


def _text(message: dict[str, Any]) -> str:
    """A system message's text: its string, or its scanned parts' texts a line apart."""
    content = message.get("content")
    return content if isinstance(content, str) else "\n".join(scanned_texts(content))


def persona_only(text: str) -> bool:
    """Whether `text` only says who the model is or how it behaves (`_PERSONA`, each of its
    sentences, and short): no task to read."""
    if len(text) > _PERSONA_CHARS:
        return False
    sentences = [s.strip() for s in _SENTENCES.split(text) if s.strip()]
    return bool(sentences) and all(_PERSONA.match(s) for s in sentences)
