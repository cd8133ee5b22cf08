"""Claude Code's turn boundary: "Tool loaded.", a text of its own at the end of a user turn
that carries a tool search's result.

When a tool result holds a `tool_reference` (the tools its ToolSearch loaded), Claude Code
appends a text block "Tool loaded." to the user message, after its other texts, as it
prepares the request (`TOOL_REFERENCE_TURN_BOUNDARY` in its messages.ts, quoted in analyses
of its source and kept by proxies that convert its requests; the model, seeing it, has
taken it for the user's words: "The user said 'Tool loaded.'", in a transcript quoted in a
public repository). Not the user's words, yet the router's view read it as the latest ask
(a bike chain's question before it, reasoning 0.82, became "Tool loaded.", tool_calling
0.59). It is cut where it ends a text on a line of its own (or is all of it), as the other
notes of Claude Code's with no closing are (`HARNESS_BLOCKS` in `classifier.harness`), but
not where it starts one: Claude Code writes nothing after it. A user's message of only these
two words is no ask either, a kept trade-off: it says nothing the ask before it did not.
Its other system notes in user turns (the date that changed, "The date has changed. Today's
date is now <date>. DO NOT mention this to the user explicitly because they are already
aware.", among them) come in a `<system-reminder>`, cut whole.
"""

from __future__ import annotations

TOOL_LOADED = "Tool loaded."


def before_boundary(text: str, start: int, end: int) -> int:
    """Where `text[start:end]` ends before the turn boundary (`TOOL_LOADED`) that ends it,
    past at most 64 white spaces, when the boundary starts a line of it (after at most 64
    spaces or tabs) or the text itself; `end` when it does not end so."""
    base = max(start, end - 100)
    stop = base + len(text[base:end].rstrip())
    if end - stop > 64 or not text.endswith(TOOL_LOADED, base, stop):
        return end
    at = stop - len(TOOL_LOADED)
    # 64 spaces and the line's break before them: 64 after a break were not seen to follow one
    lead = text[max(start, at - 65) : at].rstrip(" \t")
    return at if lead.endswith("\n") or (not lead and at - 64 <= start) else end
