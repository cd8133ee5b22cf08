"""litellm's bundled price map, read as data: no `import litellm` (seconds, ~200 MB) needed.

The map ships inside the litellm wheel as `model_prices_and_context_window_backup.json`;
the router reads it offline, once, and looks a model up by its exact name, then by the
part after each `/` in turn: `bedrock/converse/us.anthropic.claude-...` is listed as
`us.anthropic.claude-...`, so route words (`converse/`, `invoke/`) fall away with the
provider prefix, much as litellm's own Bedrock lookup strips them.
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
    """The map's entry for `model`: the longest suffix after a `/` the map lists, whole name
    first. Dropping only the first prefix missed the README's Bedrock application-profile
    form (`bedrock/converse/...`), stored its cost unknown and warned it unpriced."""
    prices = load()
    name = model
    while True:
        if name in prices:
            return prices[name]
        if "/" not in name:
            return None
        name = name.split("/", 1)[1]
