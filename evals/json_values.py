"""JSON values as ``tool_call`` and ``json_contains`` compare them: ``true`` is not ``1``,
and an answer nested too deeply for the parser is the answer's problem, never a crash. Kept
apart from ``evals.graders`` to keep that file small."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

NOT_JSON = object()
"""What ``parsed_or_not`` returns for text that is not JSON (``None`` is JSON's ``null``)."""


def parsed_or_not(text: str) -> Any:
    """``text`` parsed as JSON, or ``NOT_JSON`` (nesting too deep for the parser raises
    ``RecursionError``: the caller grades that)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return NOT_JSON


def same_json(expected: Any, got: Any) -> bool:
    """JSON equality, for ``args_json``'s "equals exactly": Python's ``==`` took ``true`` for
    ``1`` (and ``false`` for ``0``, at any depth). A boolean equals only a boolean; numbers
    compare by value (JSON has one number type: ``1.0`` is ``1``); objects need the same
    keys, arrays the same items in order; strings are compared as they are."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return isinstance(expected, bool) and isinstance(got, bool) and expected == got
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return expected == got
    if isinstance(expected, Mapping):
        return (
            isinstance(got, Mapping)
            and expected.keys() == got.keys()
            and all(same_json(v, got[k]) for k, v in expected.items())
        )
    if isinstance(expected, list | tuple):
        return (
            isinstance(got, list)
            and len(expected) == len(got)
            and all(same_json(e, g) for e, g in zip(expected, got, strict=True))
        )
    return type(expected) is type(got) and bool(expected == got)


def contains(expected: Any, got: Any) -> bool:
    """``got`` holds ``expected``'s keys with its values (``"*"``: any); values compare as
    in ``same_json``: ``true`` is not ``1``, nor ``false`` ``0``, which ``==`` took them for."""
    if isinstance(expected, str) and expected == "*":
        return True
    if isinstance(expected, Mapping):
        return isinstance(got, Mapping) and all(
            k in got and contains(v, got[k]) for k, v in expected.items()
        )
    return same_json(expected, got)


def shown(value: Any) -> str:
    """``value`` as JSON for a reason, or a note when it is nested too deeply to write."""
    try:
        return json.dumps(value)
    except (RecursionError, MemoryError):
        return "(nested too deeply to show)"
