"""Each panel's unit says what its numbers are: a rate per second, a count, seconds; and a
stat panel's colours say only what a state means, never how big a number is."""

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
    """A queue depth and a flush time shared one unitless axis: 0.05 s read as 0.05 records.
    The flush under way is in seconds too."""
    panel = panels()["Ledger queue and flush time"]
    refs = {t["refId"]: t["expr"] for t in panel["targets"]}
    flush = next(ref for ref, expr in refs.items() if "last_flush_seconds" in expr)
    running = next(ref for ref, expr in refs.items() if "flush_running_seconds" in expr)
    assert panel["fieldConfig"]["defaults"]["unit"] == "short"  # the queue: records
    assert panel["fieldConfig"]["overrides"] == [
        {
            "matcher": {"id": "byFrameRefID", "options": ref},
            "properties": [{"id": "unit", "value": "s"}],
        }
        for ref in (flush, running)
    ]


# The 0/1 gauges stat panels show, and what each of their states means (text, colour).
FLAGS = {
    "smf_router_backend_up": {"0": ("down", "red"), "1": ("up", "green")},
    "smf_router_config_last_reload_successful": {
        "0": ("refused", "red"),
        "1": ("applied", "green"),
    },
    "smf_router_config_restart_needed": {"0": ("no", "green"), "1": ("yes", "orange")},
    "smf_router_demo": {
        "0": ("live backends", "green"),
        "1": ("DEMO: answers are simulated", "red"),
    },
}


def stat_panels() -> list[dict[str, Any]]:
    return [panel for panel in panels().values() if panel["type"] == "stat"]


def mappings_of(panel: dict[str, Any], ref: str) -> list[dict[str, Any]]:
    return [
        prop["value"]
        for override in panel["fieldConfig"]["overrides"]
        if override["matcher"] == {"id": "byFrameRefID", "options": ref}
        for prop in override["properties"]
        if prop["id"] == "mappings"
    ]


def test_no_stat_panel_colours_a_number_by_its_size() -> None:
    """With no thresholds Grafana's default (green, red from 80) applied: the running
    config's age turned red after 80 s, offloaded dollars past $80 (found in re-review)."""
    assert len(stat_panels()) == 6
    for panel in stat_panels():
        thresholds = panel["fieldConfig"]["defaults"]["thresholds"]
        assert thresholds == {"mode": "absolute", "steps": [{"color": "text", "value": None}]}


def test_a_flags_states_are_named_and_coloured() -> None:
    """A backend down (0) and a refused reload (0) showed green by the same default; each
    0/1 gauge a stat panel shows now maps its states, and nothing else is mapped (an age of
    exactly 1 s must not read "applied")."""
    flagged = set()
    for panel in stat_panels():
        for target in panel["targets"]:
            shown = [name for name in FLAGS if name in target["expr"]]
            found = mappings_of(panel, target["refId"])
            if not shown:
                assert found == [], (panel["title"], target["refId"])
                continue
            [name] = shown
            flagged.add(name)
            [[mapping]] = found
            assert mapping["type"] == "value"
            named = {k: (v["text"], v["color"]) for k, v in mapping["options"].items()}
            assert named == FLAGS[name], (panel["title"], name)
    assert flagged == set(FLAGS)


def test_demo_mode_is_a_red_strip_atop_the_overview() -> None:
    """Alert SmfRouterDemo read a metric no panel showed: whoever it paged found nothing on
    the dashboards, whose every panel charts a demo's simulated traffic as if real. The
    overview now opens with it, the full width above every panel, each replica's box
    coloured whole by its state (red: DEMO), not only its text."""
    [overview] = [p for p in dashboard_files() if p.name == "smf-overview.json"]
    first, *rest = json.loads(overview.read_text())["panels"]
    assert [t["expr"] for t in first["targets"]] == ["max by (instance) (smf_router_demo)"]
    assert first["type"] == "stat" and first["targets"][0]["legendFormat"] == "{{instance}}"
    assert first["options"]["colorMode"] == "background"
    assert first["gridPos"] == {"h": 3, "w": 24, "x": 0, "y": 0}
    assert rest and all(p["gridPos"]["y"] >= 3 for p in rest)
