"""vLLM's admission model: at most `max_num_seqs` sequences run, the rest wait in FIFO order.

With `max_queued` set, a request that finds that many already waiting is refused at once
(the caller answers 503, in vLLM's words on the vllm profile) instead of waiting. vLLM
0.32's `--max-num-queued-reqs` counts running requests too: `max_num_seqs + max_queued`
is its equivalent.
"""

from __future__ import annotations

import asyncio
from collections import deque


class QueueFull(Exception):
    """The waiting queue is at `max_queued`: refuse instead of queueing."""


class Capacity:
    """Counts running and waiting requests and the KV-cache tokens the running ones hold."""

    def __init__(self, max_num_seqs: int, max_queued: int | None, kv_cache_tokens: int) -> None:
        self.max_num_seqs = max_num_seqs
        self.max_queued = max_queued
        self.kv_cache_tokens = kv_cache_tokens
        self.running = 0
        self.kv_tokens = 0
        self._waiting: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @property
    def kv_usage(self) -> float:
        return min(1.0, self.kv_tokens / self.kv_cache_tokens) if self.kv_cache_tokens else 0.0

    async def acquire(self, tokens: int) -> None:
        """Take a running slot, waiting in line if all are busy; raises QueueFull."""
        if self.running < self.max_num_seqs and not self._waiting:
            self.running += 1
        else:
            if self.max_queued is not None and len(self._waiting) >= self.max_queued:
                raise QueueFull
            slot: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.append(slot)
            try:
                await slot
            except asyncio.CancelledError:
                if slot.done() and not slot.cancelled():
                    self._hand_over()  # we were given a slot but are leaving: pass it on
                elif slot in self._waiting:  # a release since may have dropped it (cancelled)
                    self._waiting.remove(slot)
                raise
        self.kv_tokens += tokens

    def release(self, tokens: int) -> None:
        self.kv_tokens -= tokens
        self._hand_over()

    def _hand_over(self) -> None:
        while self._waiting:
            slot = self._waiting.popleft()
            if not slot.done():
                slot.set_result(None)  # the running count moves to the waiter unchanged
                return
        self.running -= 1
