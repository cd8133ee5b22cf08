"""Request bodies recorded from real clients, kept under `tests/fixtures/<app>-<version>/`
with a `.md` beside each directory saying how they were captured and what each holds. One
loader for every test that replays them."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def body(path: Path) -> dict[str, Any]:
    """The JSON body recorded at `path` (a fresh dict each call: tests may change it)."""
    return dict(json.loads(path.read_text(encoding="utf-8")))


def loader(directory: Path) -> Callable[[str], dict[str, Any]]:
    """The loader of the bodies recorded in `directory`, by file name (`body`)."""
    return lambda name: body(directory / name)


def with_system(recorded: dict[str, Any], system: str) -> dict[str, Any]:
    """A copy of the body `recorded` with another system prompt (its first message's
    content `system`): an app's requests under a prompt not its own."""
    other = copy.deepcopy(recorded)
    other["messages"][0]["content"] = system
    return other
