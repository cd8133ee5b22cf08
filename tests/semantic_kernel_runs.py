"""Semantic Kernel 1.45.0's captured Magentic runs (`tests/fixtures/semantic-kernel-1.45.0.md`):
each run's task and its manager's requests in the order sent. The classifier's tests read
them alone, the agent-API tests send them through the router: one list, so both read the
same runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "semantic-kernel-1.45.0"
BASIC = ("facts", "plan", "progress", "final")
# a run that stalled: new facts and a new plan, then more progress checks
REPLAN = (
    "facts",
    "plan",
    "progress-1",
    "progress-2",
    "facts-update",
    "plan-update",
    "progress-3",
    "progress-4",
    "final",
)
TASKS = {
    "math": "Compute 17 * 23",
    "haiku": "Write a haiku about autumn leaves",
    "code": "Write a Python function that reverses a list",
    "replan": 'Write a function that checks whether x < y and returns "yes" or "no"',
}
KINDS = {"math": BASIC, "haiku": BASIC, "code": BASIC, "replan": REPLAN}


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def manager(run: str, kind: str) -> dict[str, Any]:
    """The request of `kind` the manager sent in `run`."""
    return captured(f"magentic-{run}-{kind}.json")
