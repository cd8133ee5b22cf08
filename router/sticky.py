"""Sticky conversations: a conversation keeps the backend that served it, for a while.

Tool loops should not switch models mid-task, and a warm prefix cache is worth keeping.
The table is bounded (least recently used entries go first) and forgets a backend as soon
as its circuit opens. Keys are the gateway's hashed conversation keys, never text.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable


class StickyTable:
    """conversation key → (backend, expiry, held), with a sliding TTL and a size bound. A
    held entry (a detour's) keeps its own expiry: turns served where it holds them do not
    turn it into a pin for the whole TTL."""

    def __init__(self, ttl_s: float, max_entries: int, clock: Callable[[], float]) -> None:
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[str, tuple[str, float, bool]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, conversation: str) -> str | None:
        entry = self._entries.get(conversation)
        if entry is None:
            return None
        backend, expires, _ = entry
        if self.clock() >= expires:
            del self._entries[conversation]
            return None
        return backend

    def remember(self, conversation: str, backend: str, ttl_s: float | None = None) -> None:
        """The conversation was just served by `backend`: keep it there (TTL restarts), for
        `ttl_s` rather than the table's TTL when given (a detour's shorter hold)."""
        if self.ttl_s <= 0 or not conversation:
            return
        if ttl_s is None and self._held_on(conversation, backend):
            self._entries.move_to_end(conversation)
            return  # served where a detour holds it: the hold ends as it was set
        expires = self.clock() + (self.ttl_s if ttl_s is None else ttl_s)
        self._entries[conversation] = (backend, expires, ttl_s is not None)
        self._entries.move_to_end(conversation)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def _held_on(self, conversation: str, backend: str) -> bool:
        entry = self._entries.get(conversation)
        return entry is not None and entry[0] == backend and entry[2] and self.clock() < entry[1]

    def resize(self, ttl_s: float, max_entries: int) -> None:
        """New settings from a reload: a TTL of 0 forgets everything, a smaller table its
        oldest entries."""
        self.ttl_s, self.max_entries = ttl_s, max_entries
        if ttl_s <= 0:
            self._entries.clear()
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def forget_backend(self, backend: str) -> int:
        """Drop every conversation held by `backend` (it failed); returns how many."""
        doomed = [k for k, (b, _, _) in self._entries.items() if b == backend]
        for key in doomed:
            del self._entries[key]
        return len(doomed)

    def expire(self) -> int:
        """Drop expired entries (called periodically so memory follows live conversations)."""
        now = self.clock()
        doomed = [k for k, (_, expires, _) in self._entries.items() if now >= expires]
        for key in doomed:
            del self._entries[key]
        return len(doomed)
