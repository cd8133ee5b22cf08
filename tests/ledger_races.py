"""A compaction that overtakes a reader, without the timing: shared by the ledger's and the
shadow report's tests of reading while `compact` runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.ledger import compaction, segments


def merge_a_day_after_each_listing(monkeypatch: pytest.MonkeyPatch, days: list[Path]) -> None:
    """After every listing a reader makes, merge (and delete the sources of) the next of
    `days`: what `compact` over a backlog does to a report that lists while it runs."""
    todo = list(days)
    list_table = segments.list_table

    def then_merge_a_day(*args: object, **kwargs: object) -> segments.Listing:
        listing = list_table(*args, **kwargs)  # type: ignore[arg-type]
        if todo:
            inputs = segments.list_day(day := todo.pop(0)).segments
            compaction.merge(inputs, day / compaction.compacted_name(inputs))
        return listing

    monkeypatch.setattr(segments, "list_table", then_merge_a_day)
