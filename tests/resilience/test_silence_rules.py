"""The silence rule's pure parts: which held events show an engine at work, which evidence
says a backend is busy, and when a backend's own counts say a request may wait in its queue
(`router.silence`, `router.capacity.queued`)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from router.capacity import Capacity, Load, generating, queued
from router.config import Backend as BackendSettings
from router.silence import Life, shows_work, silent_after
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
    life.queues.append(
        lambda settings, alive: asked.append(settings.name) or settings.name == "local"
    )
    assert life.busy(local, after)
    assert asked == ["local"]


def test_the_queue_sources_hear_whether_the_backend_was_heard_of_late() -> None:
    """Heard within `silent_after` before the attempt began: its slots may be full of live
    requests; heard long before, or never, they may be hung."""
    life = Life()
    local: Any = _Backend("local")
    told: list[bool] = []
    life.queues.append(lambda settings, alive: told.append(alive) or False)
    window = silent_after(local.settings.timeouts.first_token_s)
    assert not life.busy(local, time.monotonic())
    life.heard(local)
    assert not life.busy(local, time.monotonic() + window / 2)
    assert not life.busy(local, time.monotonic() + window * 2)
    assert told == [False, True, False]


def test_a_backend_no_longer_configured_is_not_queued_and_gets_no_load() -> None:
    capacity = Capacity(time.monotonic)
    settings = BackendSettings(name="gone", tier="local", base_url="http://h/v1", model="m")
    assert not capacity.queued(settings, fresh_s=3.0, alive=True)
    assert capacity.loads == {}


def _polled(waiting: float, at: float = 0.0) -> Load:
    return Load(inflight=1, polled=VllmCapacity(1.0, waiting, 0.5), polled_at=at)


@pytest.mark.parametrize(
    ("limit", "load", "heard", "unheard"),
    [
        (1, Load(inflight=1), False, False),  # the asking attempt alone: a dead one is judged
        (1, Load(inflight=2), True, False),  # another fills the one slot, if not hung as well
        (2, Load(inflight=1, replays=1), False, False),
        (2, Load(inflight=2, replays=1), True, False),  # the router's own calls fill slots too
        (None, Load(inflight=100), False, False),  # no limit configured: its count says nothing
        (None, _polled(0), False, False),
        (None, _polled(1), True, True),  # any queue, however short; the backend's own word
        (None, _polled(5, at=-10.0), False, False),  # a stale poll is ignored
    ],
)
def test_a_request_may_wait_in_the_backend_queue(
    limit: int | None, load: Load, heard: bool, unheard: bool
) -> None:
    """Others filling the slots count only of a backend heard of late (`alive`): on a dead
    one they may be hung as well (found in re-review)."""
    assert queued(limit, load, now=0.0, fresh_s=3.0, alive=True) is heard
    assert queued(limit, load, now=0.0, fresh_s=3.0, alive=False) is unheard


def test_requests_running_excuse_a_whole_replys_silence_only() -> None:
    """A whole reply shows nothing of its engine's work until it is complete: the engine's
    count of requests running is the sign of it. A stream shows its own (its first output),
    and a deadline past the count is a generation past its bound, not a queue (`QUEUED`)."""
    life = Life()
    local: Any = _Backend("local")
    life.generating.append(lambda settings: settings.name == "local")
    since = time.monotonic()
    assert life.busy(local, since, whole=True)
    assert not life.busy(local, since)
    assert not life.busy(_Backend("other"), since, whole=True)


@pytest.mark.parametrize(
    ("polled", "at", "running"),
    [
        (None, 0.0, False),  # never polled (a cloud API, Ollama): no count to read
        (VllmCapacity(0.0, 0.0, 0.0), 0.0, False),  # a request hung short of the engine
        (VllmCapacity(1.0, 0.0, 0.1), 0.0, True),  # a generation, this one's or another's
        (VllmCapacity(None, 2.0, 0.1), 0.0, False),  # no running series
        (VllmCapacity(1.0, 0.0, 0.1), -10.0, False),  # a stale poll is ignored
    ],
)
def test_a_fresh_poll_counting_requests_running_says_the_engine_generates(
    polled: VllmCapacity | None, at: float, running: bool
) -> None:
    """No proof of life is asked of the engine's own word, unlike of the in-flight counts."""
    assert generating(Load(inflight=1, polled=polled, polled_at=at), 0.0, 3.0) is running
