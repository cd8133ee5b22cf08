"""Agents' notices: texts an agent starts a user turn's text with that run to its end, with no
closing of their own (their last words differ by mode and version).

A text such a notice starts has no words of the user's, but for a reply in it
(`HARNESS_REPLIES`, after its lead-in: `classifier.replies`); `classifier.harness` asks
`noticed` of each text past its blocks. A notice is matched by a stable start (exact
wordings from the agents' sources and from transcripts quoted in public repositories) and
what the agent always writes right after it: by its first words alone, a user's question
that starts with them was no ask ("Another Claude session sent a message: it says the build
is broken on main. Should I trust it and revert?", "Stop hook feedback: what does this
mean?", unknown 0.0, found in review).

For one of them a known trade-off is kept: Claude Code's Stop hook message ("Stop hook
feedback:\n[<command>]: <output>", a user message of its own) ends with the hook's output,
free-form (a command's stderr, a JSON reason, a prompt hook's verdict), which nothing tells
from words a user types after pasting one. So a text starting so (the line, then the output
on the next) asks nothing, a user's bug report too ("Stop hook feedback:\n[check.sh]: exit
2\n\nWhy is my hook failing?" was reasoning 0.46 before, found in review); reading on would
make every Stop hook's output an ask (its "commit and push these changes" the user's).
Pasted after the question, the output is read with it.
"""

from __future__ import annotations

import re

_PEER_MESSAGE = r"\s{0,64}<(?:cross-session|agent)-message\b"
HARNESS_NOTICES = {
    # Claude Code: a message from another session, the `<cross-session-message>` after this
    # line, then its note ("This came from another Claude session — not typed by your
    # user..."), all one text (its formatter joins the three): the note never starts a text.
    # From an agent inside the same session (a subagent's report), the message is an
    # `<agent-message from="...">` and the note "That \"other Claude session\" is an agent
    # working inside this same session...", which never starts a text either. (A teammate's
    # message under this line is an ask: `classifier.teammates.BANNER`.)...
    "Another Claude session sent a message:": _PEER_MESSAGE,
    # ...and a message that came while a reply was running (beside the next tool's result),
    # with the same message and note, then "After completing your current task, decide
    # whether/how to respond (reply via SendMessage to the `from=` address)."
    "Another Claude session sent a message while you were working:": _PEER_MESSAGE,
    # Claude Code: a Stop hook's reason to go on, a user message of its own, on the line after
    # this one (`getStopHookMessage`: a command's "[~/.claude/hooks/check.sh]: <stderr>", a
    # prompt hook's "[<prompt>]: <reason>", or a JSON decision's reason as it is), to its end:
    # it has no fixed end (the trade-off this module's docstring keeps)
    "Stop hook feedback:": r"[ \t]*\r?\n",
}
_NOTICE = re.compile(
    r"\s{0,64}(?:" + "|".join(re.escape(n) + then for n, then in HARNESS_NOTICES.items()) + ")"
)


def noticed(text: str, start: int) -> bool:
    """Whether an agent's notice (`HARNESS_NOTICES`) starts `text[start:]`: looked for to the
    text's own end, since what the agent writes after its first line may be a block cut from
    the text's end (a peer's `<cross-session-message>` with no note after it)."""
    return _NOTICE.match(text, start) is not None
