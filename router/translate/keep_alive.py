"""When a translated stream sends the empty delta that says a held tool call still grows.

A tool call's input that the translator holds until its call closes (a Messages tool_use,
a Responses custom tool call) would leave the client without an event for as long as the
model writes it: a client's stream watchdog gives up (Claude Code's aborts after minutes
without an event), the stream is not committed (`router.commit` waits for a first output)
and the time to first token is taken only at its end. The call's first piece sends an
empty delta at once, then one per `KEEP_ALIVE_S` at most: one per piece was 100,031 events
(13 MB) for a 100 KB input streamed a character at a time. A Messages stream paces the
`ping`s it sends while the model reasons unseen (`router.translate.anthropic_reply`) so too,
after a grace (`first_after`): its first ping commits the stream. A Responses stream holds
the reasoning it shows for that same grace (`router.translate.responses_reply`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

KEEP_ALIVE_S = 1.0  # the least time between two empty deltas of a held tool call's input

# How long a model reasons before the translated stream shows it (a Messages `ping`, a
# Responses reasoning item), which commits the stream: long enough that most short
# reasoning, and a backend that fails in its first seconds, still fall back; far inside the
# minutes a client waits for a first byte (Claude Code's ~300 s), a proxy's idle timer (60 s
# and more) and the router's `idle_s`, which bounds the gaps between chunks, not this. Read
# as each stream starts (tests shorten it).
REASONING_GRACE_S = 10.0


class KeepAlive:
    """`due` per held piece: True when it sends its empty delta (the open call's first piece,
    or `KEEP_ALIVE_S` after the last one sent). `reset` as a call opens. (Per reasoning piece
    likewise, for a ping.) With `first_after`, none is due until that long after the first
    piece asked (`due`'s first call since the last `reset`)."""

    __slots__ = ("_at", "_clock", "_first_after", "_since")

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, first_after: float = 0.0
    ) -> None:
        self._clock = clock
        self._first_after = first_after
        self._at: float | None = None  # the open call's last empty delta, if one went
        self._since: float | None = None  # when the first piece asked

    def reset(self) -> None:
        self._at = self._since = None

    def due(self) -> bool:
        now = self._clock()
        self._since = now if self._since is None else self._since
        if now - self._since < self._first_after:
            return False
        if self._at is not None and now - self._at < KEEP_ALIVE_S:
            return False
        self._at = now
        return True
