"""The shape of a JSON value: keys and value types, not values; how captures are compared.

Random weights make the text differ run to run, and ids and timestamps always do; the keys,
types, status codes and event order are what a client (and the simulator) must match.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CAPTURES = Path(__file__).parent / "captures"


def shape(value: Any) -> Any:
    """Dicts keep their keys, lists the shape of their first item, scalars their type name."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CAPTURES / f"{name}.json").read_text())
    return data


def sse_data(raw: str) -> list[Any]:
    """The `data:` payloads of an SSE body, JSON-decoded except the `[DONE]` sentinel."""
    out: list[Any] = []
    for line in raw.splitlines():
        if line.startswith("data: "):
            payload = line[len("data: ") :]
            out.append(payload if payload == "[DONE]" else json.loads(payload))
    return out


def sse_event_names(raw: str) -> list[str]:
    return [line[len("event: ") :] for line in raw.splitlines() if line.startswith("event: ")]
