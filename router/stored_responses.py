"""Where each stored Responses reply lives: a turn that continues it goes back there.

A Responses turn with `previous_response_id` carries only its new input; the conversation
so far is stored on the server that answered the turn it names, and on no other. Routed by
its new input (another intent, a local backend full when turn 1 came), it reached a
backend that never saw turn 1 and the client got that backend's 404 (found in review). So
the gateway remembers, for each reply a backend that speaks Responses itself stored, which
backend made it, and the policy sends a turn that names it there only (`response_elsewhere`
skips the others). A pin of correctness, not preference: unlike a sticky conversation it
holds whatever the route, a gate, a saturation or an open circuit says, and stickiness
turned off (`sticky_ttl_s: 0`) does not turn it off. An id it does not know (made before a
restart, or by a backend reached around the router) is routed as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from typing import Any

from router.record import Api
from router.sticky import StickyTable

# How long an id is kept: OpenAI stores a response for 30 days; vLLM until it restarts.
# `sticky_max_entries` bounds the table, least recently made first out.
KEPT_S = 30 * 86400.0


class StoredResponses:
    """response id → the backend that stored it, LRU-bounded, with a TTL."""

    def __init__(self, max_entries: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.table = StickyTable(KEPT_S, max_entries, clock)

    def __len__(self) -> int:
        return len(self.table)

    def home(self, api: Api, body: dict[str, Any], configured: Collection[str]) -> str | None:
        """The backend that stored the response `body` continues, when it is known and still
        configured (one a reload removed leaves the turn routed as before)."""
        previous = body.get("previous_response_id") if api == "responses" else None
        if not isinstance(previous, str) or not previous:
            return None
        backend = self.table.get(previous)
        return backend if backend in configured else None

    def made(self, api: Api, body: dict[str, Any], response_id: str, backend: str) -> None:
        """`backend`, which speaks Responses itself, answered with `response_id`. Not one
        asked not to store it (`store: false`): there is nothing to continue."""
        if api == "responses" and response_id and body.get("store") is not False:
            self.table.remember(response_id, backend)

    def resize(self, max_entries: int) -> None:
        self.table.resize(KEPT_S, max_entries)
