"""Capacity: the pure saturation decision, in-flight counting and window learning."""

from __future__ import annotations

import pytest

from router.capacity import Capacity, Load, expected_wait, saturation, window_of
from router.vllm_metrics import VllmCapacity


def polled(running: float, waiting: float, at: float = 0.0, service: float | None = 4.0) -> Load:
    return Load(polled=VllmCapacity(running, waiting, 0.5), polled_at=at, service_s=service)


@pytest.mark.parametrize(
    ("limit", "load", "expected"),
    [
        (32, Load(inflight=31), None),
        (32, Load(inflight=32), "inflight_limit"),
        (2, Load(inflight=0, replays=2), "inflight_limit"),  # shadows fill the slots too
        (2, Load(inflight=1, replays=1), "inflight_limit"),
        (2, Load(inflight=0, replays=1), None),
        (None, Load(inflight=1000), None),
        (32, polled(32, 0), None),
        (32, polled(32, 10), "queue"),  # (10+1)/32*4 = 1.4 s > 1 s
        (32, polled(32, 5), None),  # (5+1)/32*4 = 0.75 s
        (32, polled(32, 1, service=None), "queue"),  # unknown service time: assume long
        (None, polled(4, 2), "queue"),  # slots from running: 3/4*4 = 3 s
        (32, polled(32, 100, at=-10.0), None),  # stale poll ignored
    ],
)
def test_saturation(limit: int | None, load: Load, expected: str | None) -> None:
    assert saturation(limit, load, now=0.0, max_wait_s=1.0, fresh_s=3.0) == expected


def test_expected_wait() -> None:
    assert expected_wait(waiting=31, slots=32, service_s=10) == 10.0


def test_inflight_counts_follow_attempts_and_never_go_negative() -> None:
    cap = Capacity(lambda: 0.0)
    cap.attempt_started("local", "local")
    cap.attempt_started("local", "local")
    cap.attempt_finished("local", "local", "ok", None)
    assert cap.load("local").inflight == 1
    cap.attempt_finished("local", "local", "error", "cut")
    cap.attempt_finished("local", "local", "error", "cut")
    assert cap.load("local").inflight == 0


def test_replays_are_counted_apart_and_a_reload_starts_the_count_over() -> None:
    """A shadow replay holds a slot like an attempt but is none. A reload that changes the
    backend starts its count over: the calls still running are the old server's, and their
    ends do not lower the new count. An entry for a name no longer configured goes with its
    last call."""
    configured = {"local"}
    cap = Capacity(lambda: 0.0, lambda name: name in configured)
    cap.attempt_started("local", "local")
    old_replay = cap.replay_started("local")
    assert (cap.load("local").inflight, cap.load("local").replays) == (1, 1)
    cap.forget("local")  # re-pointed
    assert (cap.load("local").inflight, cap.load("local").replays) == (0, 0)
    new_replay = cap.replay_started("local")
    old_replay()
    assert cap.load("local").replays == 1  # the new one still runs
    new_replay()
    assert cap.load("local").replays == 0
    configured.clear()
    cap.forget("local")  # removed
    assert "local" not in cap.loads
    queued_before = cap.replay_started("local")  # a shadow job queued before the reload
    assert cap.loads["local"].replays == 1
    queued_before()
    assert "local" not in cap.loads


def test_service_time_is_a_moving_average() -> None:
    cap = Capacity(lambda: 0.0)
    cap.served("local", 10.0)
    cap.served("local", 20.0)
    assert cap.load("local").service_s == pytest.approx(12.0)


def test_window_of_vllm_cards() -> None:
    cards = [{"id": "laguna", "object": "model", "max_model_len": 262144}]
    assert window_of(cards, "laguna") == 262144
    assert window_of(cards, "other") == 262144  # the only card
    two = [*cards, {"id": "b", "max_model_len": 8192}]
    assert window_of(two, "b") == 8192
    assert window_of(two, "c") is None
    assert window_of([{"id": "gpt-4o", "object": "model"}], "gpt-4o") is None
    assert window_of("nonsense", "x") is None
