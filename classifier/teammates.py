"""Claude Code's messages between the sessions of an agent team: their words are an ask, the
banner a lead gets them under and the note after them are not.

A teammate's own session gets every task from its lead in `<teammate-message>` tags, and a
lead every report of its teammates, each a user message of its own (`HARNESS_WRAPPERS` in
`classifier.harness` unwraps the first). Claude Code delivers a session's unread messages
at once: its `teammate_mailbox` attachment renders them all in one text
(`formatTeammateMessages`: each `<teammate-message teammate_id="..." color="..."
summary="...">\\n{text}\\n</teammate-message>`, joined by a blank line; the same in Claude
Code's bundle, in reimplementations of it and in transcripts quoted in public repositories,
where a lead's turn holds two or three). None of them has been answered, and each may ask
something of its own (one teammate's finding, another's request), so the latest ask is the
words of all of them, in their order, as the messages a user typed while a reply ran are
(`classifier.queued`); only the first was unwrapped, and the tags of the others were read
as the first one's words.
"""

from __future__ import annotations

import re

from classifier.replies import HARNESS_CHARS, HARNESS_EACH_END

ATTRIBUTES_CHARS = 1_000  # an opening's attributes (a teammate's summary) end within
CLOSING = "</teammate-message>"
_NEXT = re.compile(r"\s{0,64}<teammate-message\b")
# An opening's attributes to its ">": quoted values whole (a ">" in them is theirs), each
# other character but a quote
_ATTRIBUTES = re.compile(r"""(?:[^>"']|"[^"]*"|'[^']*')*>""")
# Claude Code's line before a teammate's message to the lead of an agent team, the same as a
# peer session's (a teammate's own session gets its tasks so, or bare): the message is read as
# a bare one is (`HARNESS_WRAPPERS`), and the note after its closing, as a peer's, is not
BANNER = re.compile(
    r"\s{0,64}Another Claude session sent a message(?: while you were working)?:"
    r"(?=\s{0,64}<teammate-message\b)"
)
PEER_NOTE = re.compile(
    r"\s{0,64}(?:This came from another Claude session|That \"other Claude session\" is an agent)"
)


def inside(text: str, at: int, end: int) -> int:
    """Where the words of a wrapper whose opening with attributes ends its known start at
    `at` begin: past the ">" that ends its attributes, within `ATTRIBUTES_CHARS`; -1 when
    there is none before `end`. A ">" in a quoted value is the value's: the first ">" ended
    the opening at `summary="rename foo -> bar"`, and `bar">` was read as the words. With a
    quote left open (a summary's own `"` unescaped) the first ">" ends it, as it did."""
    limit = min(end, at + ATTRIBUTES_CHARS)
    if opening := _ATTRIBUTES.match(text, at, limit):
        return opening.end()
    close = text.find(">", at, limit)
    return close + 1 if close >= 0 else -1


def more_messages(text: str, pos: int, end: int) -> tuple[list[str], int]:
    """The words of the teammate messages that follow one whose closing ends at `pos`, each
    after at most 64 white spaces and closed before `end` (within `HARNESS_CHARS`), at most
    `HARNESS_EACH_END`; and where the last of them ends (`pos` when none follows). One not
    closed ends the run: it and what follows are read as written."""
    words: list[str] = []
    for _ in range(HARNESS_EACH_END):
        opened = _NEXT.match(text, pos, end)
        if opened is None or (start := inside(text, opened.end(), end)) < 0:
            break
        close = text.find(CLOSING, start, min(end, start + HARNESS_CHARS))
        if close < 0:
            break
        words.append(text[start:close].strip())
        pos = close + len(CLOSING)
    return words, pos
