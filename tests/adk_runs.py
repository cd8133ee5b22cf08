"""Google ADK 2.13.0's captured requests (`tests/fixtures/google-adk-2.13.0.md`): what the
classifier's tests of ADK and the router's share, its runs' requests in the order sent and
the asks they carry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "google-adk-2.13.0"
SOLVE = "Solve for x: 3x^2 - 12x + 9 = 0, and prove the roots are real."
ROOTS = "Find all real roots of x^3 - 6x^2 + 11x - 6 = 0."
DETERMINANT = "Compute the determinant of [[2,1],[7,4]]."
# Each run's requests in the order sent: all of them math
RUNS = {
    "transfer": [
        "transfer-coordinator.json",
        "transfer-tutor.json",
        "transfer-coordinator-turn2.json",
        "transfer-tutor-turn2.json",
    ],
    "sequential": ["sequential-solver.json", "sequential-checker.json"],
    "loop": ["loop-first.json", "loop-continue.json"],
}


def captured(name: str) -> dict[str, Any]:
    """The captured body `name`, a copy of its own."""
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))
