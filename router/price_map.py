"""litellm's bundled price map, read as data: no `import litellm` (seconds, ~200 MB) needed.

The map ships inside the litellm wheel as `model_prices_and_context_window_backup.json`;
the router reads it offline, once, and looks models up the way litellm does: the exact
name, then the name without its provider prefix.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Any

import orjson

MAP_FILE = "model_prices_and_context_window_backup.json"


@functools.cache
def load() -> dict[str, dict[str, Any]]:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(next(iter(spec.submodule_search_locations))) / MAP_FILE
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def entry(model: str) -> dict[str, Any] | None:
    prices = load()
    if model in prices:
        return prices[model]
    if "/" in model:
        return prices.get(model.split("/", 1)[1])
    return None
