"""Which finished request pins its conversation (`router.sticky_pins.pins`): table-driven
over records, the sticky table on a fixed clock."""

from __future__ import annotations

import pytest

from router.record import Record
from router.sticky import StickyTable
from router.sticky_pins import pins

CONVERSATION = "c0ffee"


def record(backend: str, source: str = "model", side_request: bool = False) -> Record:
    return Record(
        request_id="r",
        started_at=0.0,
        intent_source=source,
        backend=backend,
        conversation=CONVERSATION,
        auto_routed=True,
        side_request=side_request,
    )


@pytest.mark.parametrize(
    ("finished", "pinned", "expected"),
    [
        (record("cloud"), None, True),  # a turn that asked something pins
        (record("cloud"), "local", True),  # and moves a pin
        (record("cloud", source="rule"), None, True),
        (record("cloud", source="default"), None, False),  # asked nothing
        (record("cloud", source="default"), "cloud", True),  # keeps its backend's pin
        (record("cloud", side_request=True), None, False),  # a title call sets no pin...
        (record("cloud", side_request=True), "local", False),  # ...nor moves one
        (record("local", side_request=True), "local", True),  # its TTL restarts, followed
    ],
)
def test_which_finished_request_pins(finished: Record, pinned: str | None, expected: bool) -> None:
    table = StickyTable(60.0, 10, lambda: 0.0)
    if pinned is not None:
        table.remember(CONVERSATION, pinned)
    assert pins(finished, table) is expected
