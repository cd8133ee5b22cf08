"""The user's words that Claude Code sends mid-turn: a message typed while a reply runs.

Claude Code does not stop a reply for a message typed while it works: it queues the message
and hands it to the model after the next tool's result, in the same turn, between a header
and a footer of its own (its `queued_command` attachment). Older versions put it in a
`<system-reminder>` text beside the result; newer ones send it as a system message of the
conversation's own (a Messages `role: "system"` turn, which the router reads as a user turn).
The message is the user's newest ask; the header, the footer and the tags are not theirs.
`classifier.harness` reads a text's own words; this module finds such messages in it.
"""

from __future__ import annotations

from typing import NamedTuple

from classifier.replies import HARNESS_CHARS, HARNESS_EACH_END

# The header Claude Code puts before the user's message, and the footers it ends with: newer
# versions explain the message to the model (in the system turn, recorded of 2.1.223 and
# 2.1.261, and in a reminder before it), older ones tell it to answer after its current task.
# Wordings from request bodies and transcripts recorded in public repositories (proxies that
# convert or keep the message, transcript readers, reimplementations of Claude Code's
# attachment renderer), each from more than one. Matched whole, the footer through its fixed
# end: a user's own text that only quotes the header is read as written.
HARNESS_QUEUED = {
    "The user sent a new message while you were working:": (
        "This is how Claude Code surfaces messages the user sends mid-turn — within the "
        "running turn, often alongside the next tool result, rather than as a separate "
        "conversation turn. Address the message above as you continue this turn.",
        "IMPORTANT: After completing your current task, you MUST address the user's message "
        "above. Do not ignore it.",
    ),
}
# The reminder older versions wrap the message in (elsewhere a block cut whole)
REMINDER = ("<system-reminder>", "</system-reminder>")


class Queued(NamedTuple):
    """A queued message in a text: where its text starts (the reminder's opening, or the
    header) and ends (past the footer and the reminder's closing), and the user's words."""

    start: int
    end: int
    words: str
    wrapped: bool  # in a reminder: the agent's by its tags, wherever it is


def queued_after(text: str, pos: int, end: int) -> Queued | None:
    """The first queued message that starts a line of `text[pos:end]` (past at most 64 white
    spaces, or a reminder's opening there), its header within `HARNESS_CHARS` of `pos` and
    its footer within `HARNESS_CHARS` of the header, and, when a reminder's opening comes
    before the header, that reminder's closing after the footer; None if none. Bounded:
    at most `HARNESS_EACH_END` places are tried for each header."""
    found: Queued | None = None
    stop = min(end, pos + HARNESS_CHARS)
    for header, footers in HARNESS_QUEUED.items():
        at = pos
        for _ in range(HARNESS_EACH_END):
            at = text.find(header, at, stop)
            if at < 0 or (found is not None and at >= found.start):
                break
            queued = _queued_at(text, pos, at, header, footers, end)
            if queued is not None:
                found = queued
                break
            at += len(header)
    return found


def _queued_at(
    text: str, pos: int, at: int, header: str, footers: tuple[str, ...], end: int
) -> Queued | None:
    """The queued message whose header is at `at`, if it starts a line (or a reminder that
    starts one) and ends with one of `footers`."""
    lead = text[max(pos, at - 100) : at]
    opening, closing = REMINDER
    wrapped = lead.rstrip().endswith(opening)
    start = at - len(lead) + len(lead.rstrip()) - len(opening) if wrapped else at
    head = text[max(0, start - 64) : start].rstrip(" \t")
    if not (head.endswith("\n") or (not head and start <= 64)):
        return None  # mid-line (quoted), or past 64 spaces after the line's start
    inside = at + len(header)
    bound = min(end, inside + HARNESS_CHARS)
    close = min((c for f in footers if (c := text.find(f, inside, bound)) >= 0), default=-1)
    if close < 0:
        return None
    footer = next(f for f in footers if text.startswith(f, close))
    past = close + len(footer)
    if wrapped:
        spaces = text[past : past + 64]
        after = past + len(spaces) - len(spaces.lstrip())
        if not text.startswith(closing, after):
            return None
        past = after + len(closing)
    return Queued(start, past, text[inside:close].strip(), wrapped)
