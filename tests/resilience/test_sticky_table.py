"""Sticky conversations: TTL, the memory bound, and forgetting a failed backend."""

from __future__ import annotations

from router.sticky import StickyTable


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_remembers_until_ttl_then_forgets() -> None:
    clock = Clock()
    table = StickyTable(ttl_s=10, max_entries=100, clock=clock)
    table.remember("c1", "local")
    clock.now = 9.9
    assert table.get("c1") == "local"
    clock.now = 10.0
    assert table.get("c1") is None
    assert len(table) == 0


def test_use_restarts_the_ttl() -> None:
    clock = Clock()
    table = StickyTable(ttl_s=10, max_entries=100, clock=clock)
    table.remember("c1", "local")
    clock.now = 8
    table.remember("c1", "local")
    clock.now = 15
    assert table.get("c1") == "local"


def test_bounded_memory_drops_least_recently_used() -> None:
    table = StickyTable(ttl_s=10, max_entries=3, clock=Clock())
    for i in range(10):
        table.remember(f"c{i}", "local")
    assert len(table) == 3
    assert table.get("c9") == "local" and table.get("c6") is None


def test_forget_backend_and_expire() -> None:
    clock = Clock()
    table = StickyTable(ttl_s=10, max_entries=100, clock=clock)
    table.remember("a", "local")
    table.remember("b", "cloud")
    assert table.forget_backend("local") == 1
    assert table.get("a") is None and table.get("b") == "cloud"
    clock.now = 11
    assert table.expire() == 1
    assert len(table) == 0


def test_ttl_zero_turns_it_off() -> None:
    table = StickyTable(ttl_s=0, max_entries=10, clock=Clock())
    table.remember("a", "local")
    assert table.get("a") is None


def test_resize_applies_a_reloaded_size_and_ttl_to_existing_entries() -> None:
    clock = [0.0]
    table = StickyTable(60.0, 10, lambda: clock[0])
    for i in range(6):
        table.remember(f"c{i}", "local")
    table.resize(60.0, 2)
    assert len(table) == 2 and table.get("c5") == "local" and table.get("c0") is None
    table.resize(0.0, 2)  # a TTL of 0 turns stickiness off: nothing may keep routing
    assert len(table) == 0


def test_a_reloaded_ttl_counts_from_each_conversations_last_turn() -> None:
    """1800 s -> 60 s by reload still pinned a conversation idle for ten minutes: entries
    kept the expiry of the old TTL (found in review). A longer TTL lengthens them alike."""
    clock = Clock()
    table = StickyTable(ttl_s=1800, max_entries=10, clock=clock)
    table.remember("idle", "local")
    clock.now = 570
    table.remember("recent", "local")
    clock.now = 600
    table.resize(60, 10)
    assert table.get("idle") is None  # its last turn was 600 s ago
    assert table.get("recent") == "local"  # 30 s ago
    table.resize(3600, 10)
    clock.now = 570 + 3599
    assert table.get("recent") == "local"


def test_kept_again_restarts_a_pins_ttl_and_makes_none() -> None:
    """A detour's turn keeps its conversation's pin, its backend as it was, and pins nothing
    where there was none, nor brings back one that has run out."""
    clock = Clock()
    table = StickyTable(ttl_s=10, max_entries=100, clock=clock)
    table.remember("pinned", "local")
    table.remember("gone", "local")
    clock.now = 8
    assert table.kept_again("pinned") == "local"
    assert table.kept_again("never") is None and table.get("never") is None
    clock.now = 15
    assert (table.get("pinned"), table.kept_again("gone")) == ("local", None)
    assert len(table) == 1
