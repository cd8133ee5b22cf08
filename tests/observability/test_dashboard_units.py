"""Each panel's unit says what its numbers are: a rate per second, a count, seconds."""

from __future__ import annotations

import json
from typing import Any

from dashboard_queries import dashboard_files


def panels() -> dict[str, dict[str, Any]]:
    return {
        panel["title"]: panel
        for path in dashboard_files()
        for panel in json.loads(path.read_text())["panels"]
    }


def test_rates_of_records_and_replays_read_per_second() -> None:
    """Both plot rate(): "short" showed 0.2 records a second as a bare 0.2 (found in
    review). Grafana's `rps` is reads per second: these are requests."""
    for title in ("Ledger records written and dropped", "Shadow comparisons and drops"):
        panel = panels()[title]
        assert all("rate(" in t["expr"] for t in panel["targets"]), title
        assert panel["fieldConfig"]["defaults"]["unit"] == "reqps", title


def test_the_ledger_flush_time_has_an_axis_in_seconds() -> None:
    """A queue depth and a flush time shared one unitless axis: 0.05 s read as 0.05 records."""
    panel = panels()["Ledger queue and flush time"]
    refs = {t["refId"]: t["expr"] for t in panel["targets"]}
    flush = next(ref for ref, expr in refs.items() if "last_flush_seconds" in expr)
    assert panel["fieldConfig"]["defaults"]["unit"] == "short"  # the queue: records
    assert panel["fieldConfig"]["overrides"] == [
        {
            "matcher": {"id": "byFrameRefID", "options": flush},
            "properties": [{"id": "unit", "value": "s"}],
        }
    ]
