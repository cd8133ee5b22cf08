"""Request bodies recorded from real clients, kept under `tests/fixtures/<app>-<version>/`
with a `.md` beside each directory saying how they were captured and what each holds. One
loader for every test that replays them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def body(path: Path) -> dict[str, Any]:
    """The JSON body recorded at `path` (a fresh dict each call: tests may change it)."""
    return dict(json.loads(path.read_text(encoding="utf-8")))
