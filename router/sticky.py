"""Sticky conversations: a conversation keeps the backend that served it, for a while.

Tool loops should not switch models mid-task, and a warm prefix cache is worth keeping.
The table is bounded (least recently used entries go first) and forgets a backend a reload
changes or removes; an open circuit leaves its pins (`Resilience._circuit_changed`). Keys are
the gateway's hashed conversation keys, never text.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class Table(Generic[V]):
    """key → (value, expiry), with a sliding TTL and a size bound (the stored Responses keep
    more than a backend's name: `router.stored_responses.Turn`)."""

    def __init__(self, ttl_s: float, max_entries: int, clock: Callable[[], float]) -> None:
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[str, tuple[V, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, conversation: str) -> V | None:
        entry = self._entries.get(conversation)
        if entry is None:
            return None
        backend, expires = entry
        if self.clock() >= expires:
            del self._entries[conversation]
            self._left(backend)
            return None
        return backend

    def remember(self, conversation: str, backend: V) -> None:
        """The conversation was just served by `backend`: keep it there (TTL restarts)."""
        if self.ttl_s <= 0 or not conversation:
            return
        self._entries[conversation] = (backend, self.clock() + self.ttl_s)
        self._entries.move_to_end(conversation)
        self._trim()

    def kept_again(self, key: str) -> V | None:
        """What `key` holds, its TTL restarted and kept as the newest, as `remember` of the
        same value does; none, no entry is made. A pin whose conversation goes on elsewhere,
        a detour (`Resilience.record_finished`), lives on; a read of a stored conversation
        (`router.stored_items`: `related`, `history`) keeps each of its turns and answers
        again, thousands of entries for an agent's tool loop, without taking them out and
        counting their bytes (`SizedTable`) out and in again."""
        value = self.get(key)
        if value is not None:
            self._entries[key] = (value, self.clock() + self.ttl_s)
            self._entries.move_to_end(key)
        return value

    def resize(self, ttl_s: float, max_entries: int) -> None:
        """New settings from a reload: a TTL of 0 forgets everything, a smaller table its
        oldest entries, and every entry's expiry moves with the TTL, which counts from the
        conversation's last turn (kept as it was, 1800 s to 60 s still pinned one idle for
        ten minutes)."""
        shift = ttl_s - self.ttl_s
        self.ttl_s, self.max_entries = ttl_s, max_entries
        if ttl_s <= 0:
            while self._entries:
                self._left(self._entries.popitem()[1][0])
        elif shift:
            for key, (backend, expires) in self._entries.items():
                self._entries[key] = (backend, expires + shift)
        self._trim()

    def expire(self) -> int:
        """Drop expired entries (called periodically so memory follows live conversations)."""
        now = self.clock()
        doomed = [k for k, (_, expires) in self._entries.items() if now >= expires]
        for key in doomed:
            self._left(self._entries.pop(key)[0])
        return len(doomed)

    def _trim(self) -> None:
        """The oldest entries out, while there are more than `max_entries`."""
        while len(self._entries) > self.max_entries:
            self._left(self._entries.popitem(last=False)[1][0])

    def _left(self, value: V) -> None:
        """`value` left the table (expired, forgotten or pushed out): a table that counts
        what it holds (`router.stored_items.SizedTable`) counts it out."""


class StickyTable(Table[str]):
    """conversation key → (backend, expiry)."""

    def forget_backend(self, backend: str) -> int:
        """Drop every conversation held by `backend` (a reload changed or removed it);
        returns how many."""
        doomed = [k for k, (b, _) in self._entries.items() if b == backend]
        for key in doomed:
            del self._entries[key]
        return len(doomed)
