"""Two simulators as a router's backends, with the context windows a test gives them."""

from __future__ import annotations

from pathlib import Path

from router.config import Config, parse
from tests.harness import Running, config_for


def windowed(
    local: Running,
    cloud: Running,
    tmp_path: Path,
    windows: tuple[int, int],
    models: dict[str, str] | None = None,
) -> Config:
    """The two simulators as backends whose context windows are `windows` (local, cloud);
    `models` as `config_for` takes it."""
    data = config_for({"local": local, "cloud": cloud}, tmp_path, models=models).model_dump()
    data["backends"][0]["context_window"], data["backends"][1]["context_window"] = windows
    return parse(data)
