"""The id a later tool call gives back: one the model's own earlier calls made that the
latest ask shows.

swarms' autonomous loop (16.0.3, `max_loops="auto"`) has the model plan with `create_plan`
(each step a `step_id`), then asks for each step in turn, "You are currently working on
subtask: <step_id> ...", a step closed by `subtask_done(task_id=<its step_id>)`. The simulator
filled `task_id` with the prompt's first words, no step's id: no step ever completed, and the
run went on to swarms' cap of 21 requests (a live review of demo mode). A model gives back the
id it was shown. So an id field (`id`, `task_id`, `stepId`: `is_id`) of a call takes the id
that an earlier call of the conversation gave (`called_ids`) and the latest ask names
(`shown_id`); with none, it is filled as any string is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from router.simulator.asked_tool import words

_ARGUMENTS = 65_536  # characters of one call's arguments read for ids
_LONGEST = 256  # an id longer than this is no id a model copies
_DEPTH = 8  # levels of a call's arguments read for ids (a plan's steps are the second)


def is_id(name: str) -> bool:
    """Whether a field called `name` holds an id: its name's last word is "id"."""
    said = words(name)
    return bool(said) and said[-1] == "id"


def called_ids(turns: Sequence[Any]) -> tuple[str, ...]:
    """The string values of id fields (`is_id`, at any depth) in the arguments of the chat
    conversation's assistant tool calls, oldest first."""
    found: list[str] = []
    for turn in turns:
        if not isinstance(turn, dict) or turn.get("role") != "assistant":
            continue
        calls = turn.get("tool_calls")
        if not isinstance(calls, list):
            continue
        for call in calls:
            function = call.get("function") if isinstance(call, dict) else None
            arguments = function.get("arguments") if isinstance(function, dict) else None
            if isinstance(arguments, str) and len(arguments) <= _ARGUMENTS:
                found += _ids(_parsed(arguments))
    return tuple(found)


def shown_id(ids: Iterable[str], ask: str) -> str | None:
    """Of `ids`, the one the ask `ask` shows, whole (not within a word: `r` is in "working"):
    the longest (`step_1` is in "step_10"), then the latest; None where it shows none."""
    shown = [(len(i), at, i) for at, i in enumerate(ids) if i and _whole(i, ask)]
    return max(shown)[2] if shown else None


def _whole(text: str, ask: str) -> bool:
    """Whether `ask` holds `text` with no word character right before or after it."""
    return re.search(rf"(?<!\w){re.escape(text)}(?!\w)", ask) is not None


def _parsed(arguments: str) -> object:
    try:
        return json.loads(arguments)
    except (ValueError, RecursionError):  # a model's arguments need not be JSON
        return None


def _ids(value: object, depth: int = 0) -> list[str]:
    """The id fields' string values in one call's parsed arguments, in order, within
    `_DEPTH` levels."""
    if depth > _DEPTH:
        return []
    if isinstance(value, list):
        return [found for item in value for found in _ids(item, depth + 1)]
    if not isinstance(value, dict):
        return []
    found: list[str] = []
    for name, item in value.items():
        if isinstance(item, str) and is_id(str(name)) and len(item) <= _LONGEST:
            found.append(item)
        else:
            found += _ids(item, depth + 1)
    return found
