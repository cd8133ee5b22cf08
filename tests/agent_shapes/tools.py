"""An agent's chat `tools` as it sends them: each a function of its own name and description,
over parameters the classifier reads only for a command's or a path's name (`COMMAND`, or
none; `classifier.file_tools`)."""

from __future__ import annotations

import copy
from typing import Any

COMMAND = {"command": {"type": "string"}}


def function_tools(
    described: tuple[tuple[str, str], ...], properties: dict[str, Any]
) -> list[dict[str, Any]]:
    """A function tool for each (name, description) of `described`, each taking an object of
    `properties` (a copy of its own: a test changing one tool changes no other)."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": {"type": "object", "properties": copy.deepcopy(properties)},
            },
        }
        for name, description in described
    ]
