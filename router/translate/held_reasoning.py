"""The reasoning a Responses stream translated from chat holds through its grace.

A chat backend's reasoning becomes a `reasoning` item (`router.translate.responses_reply`),
and the item's first delta commits the stream (`router.commit`). So, while nothing else
went out, it is held for `keep_alive.REASONING_GRACE_S` from its first piece: a backend that
fails meanwhile still falls back. Its pieces are kept as `so_far.Text` keeps a part's deltas,
joined every 256: one `str` per piece cost 15 times the text (2 MB of 4-character deltas held
30 MB, found in review). A running count of their characters tells the ledger's estimate
what was generated and never sent, when the request ends before they go out.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from router.translate import keep_alive
from router.translate.keep_alive import KeepAlive
from router.translate.so_far import Text


class HeldReasoning:
    """`hold` each piece while `holding`; `release` once, when the grace is over or anything
    else is to be shown, ends the holding. The grace is read as the stream starts (tests
    shorten it)."""

    __slots__ = ("_chars", "_grace", "_text", "holding")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._grace = KeepAlive(clock, first_after=keep_alive.REASONING_GRACE_S)
        self._text = Text()
        self._chars = 0
        self.holding = True  # nothing shown yet: the reasoning waits out the grace

    @property
    def chars(self) -> int:
        """Characters held: generated, not yet sent."""
        return self._chars

    def hold(self, thought: str) -> bool:
        """Keep a piece; True once the grace (from the first piece) is over: time to show."""
        self._text.add(thought)
        self._chars += len(thought)
        return self._grace.due()

    def release(self) -> str:
        """The reasoning held, joined, and the holding over: "" when none came, or after the
        first release (later pieces are shown as they come)."""
        if not self.holding:
            return ""
        self.holding = False
        held = str(self._text)
        self._text, self._chars = Text(), 0
        return held
