"""The silence rule's pure parts: which held events show an engine at work, which evidence
says a backend is busy, and when a backend's own counts say a request may wait in its queue
(`router.silence`, `router.capacity.queued`)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from router.capacity import Load, queued
from router.config import Backend as BackendSettings
from router.silence import Life, shows_work
from router.vllm_metrics import VllmCapacity

ROLE_CHUNK = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}


@pytest.mark.parametrize(
    ("api", "translated", "event", "working"),
    [
        ("chat", False, ROLE_CHUNK, True),  # vLLM sends it with the engine's first output
        ("completions", False, {"choices": [{"index": 0, "text": ""}]}, True),
        ("chat", False, {"choices": [], "prompt_filter_results": []}, False),  # Azure's, first
        ("messages", False, {"type": "message_start", "message": {}}, False),
        ("messages", False, {"type": "content_block_start", "index": 0}, False),
        ("messages", False, {"type": "ping"}, False),
        ("responses", False, {"type": "response.created", "response": {}}, False),
        ("responses", False, {"type": "response.in_progress", "response": {}}, False),
        ("responses", False, {"type": "response.output_item.added", "item": {}}, False),
        ("messages", True, {"type": "message_start", "message": {}}, True),  # from the role
        ("responses", True, {"type": "response.created", "response": {}}, True),  # chunk
    ],
)
def test_what_shows_the_engine_at_work(
    api: Any, translated: bool, event: dict[str, Any], working: bool
) -> None:
    assert shows_work(api, translated, event) is working


class _Backend:
    def __init__(self, name: str) -> None:
        self.settings = BackendSettings(name=name, tier="local", base_url="http://h/v1", model="m")


def test_output_on_any_stream_since_an_attempt_began_or_a_queue_makes_a_backend_busy() -> None:
    """Output heard before the attempt began proves nothing of the attempt's wait; a reload
    that re-points the backend (a new object) starts over; any queue source excuses."""
    life = Life()
    local: Any = _Backend("local")
    before = time.monotonic()
    life.heard(local)
    after = time.monotonic() + 1.0
    assert life.busy(local, before)
    assert not life.busy(local, after)
    assert not life.busy(_Backend("local"), before)
    asked: list[str] = []
    life.queues.append(lambda settings: asked.append(settings.name) or settings.name == "local")
    assert life.busy(local, after)
    assert asked == ["local"]


def _polled(waiting: float, at: float = 0.0) -> Load:
    return Load(inflight=1, polled=VllmCapacity(1.0, waiting, 0.5), polled_at=at)


@pytest.mark.parametrize(
    ("limit", "load", "expected"),
    [
        (1, Load(inflight=1), False),  # the asking attempt alone: a dead backend is judged
        (1, Load(inflight=2), True),  # another fills the one slot
        (2, Load(inflight=1, replays=1), False),
        (2, Load(inflight=2, replays=1), True),  # the router's own calls fill slots too
        (None, Load(inflight=100), False),  # no limit configured: its count says nothing
        (None, _polled(0), False),
        (None, _polled(1), True),  # any queue, however short (saturation's wait aside)
        (None, _polled(5, at=-10.0), False),  # a stale poll is ignored
    ],
)
def test_a_request_may_wait_in_the_backend_queue(
    limit: int | None, load: Load, expected: bool
) -> None:
    assert queued(limit, load, now=0.0, fresh_s=3.0) is expected
