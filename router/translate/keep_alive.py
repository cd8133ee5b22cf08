"""When a translated stream sends the empty delta that says a held tool call still grows.

A tool call's input that the translator holds until its call closes (a Messages tool_use,
a Responses custom tool call) would leave the client without an event for as long as the
model writes it: a client's stream watchdog gives up (Claude Code's aborts after minutes
without an event), the stream is not committed (`router.commit` waits for a first output)
and the time to first token is taken only at its end. The call's first piece sends an
empty delta at once, then one per `KEEP_ALIVE_S` at most: one per piece was 100,031 events
(13 MB) for a 100 KB input streamed a character at a time. A Messages stream paces the
`ping`s it sends while the model reasons unseen (`router.translate.anthropic_reply`) so too.
"""

from __future__ import annotations

import time
from collections.abc import Callable

KEEP_ALIVE_S = 1.0  # the least time between two empty deltas of a held tool call's input


class KeepAlive:
    """`due` per held piece: True when it sends its empty delta (the open call's first piece,
    or `KEEP_ALIVE_S` after the last one sent). `reset` as a call opens. (Per reasoning piece
    likewise, for a ping.)"""

    __slots__ = ("_at", "_clock")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._at: float | None = None  # the open call's last empty delta, if one went

    def reset(self) -> None:
        self._at = None

    def due(self) -> bool:
        now = self._clock()
        if self._at is not None and now - self._at < KEEP_ALIVE_S:
            return False
        self._at = now
        return True
