"""A case's plain values, read as smf-bench writes them: numbers, lists of names, tools.

Each is checked when the case loads, and a wrong one is a ``FieldProblem`` naming the field
(``evals.suite`` adds the file and the case): unchecked, it was a TypeError from deep inside
the load, or a request every backend refused on every run of the case.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evals.grader_fields import FieldProblem, number_given


def tools(metadata: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """``metadata.tools``, sent as the request's ``tools``: function tools with a name (a
    backend refuses anything else, and every run of the case would be a transport error)."""
    given = metadata.get("tools")
    if given is None:
        return None
    if not isinstance(given, list) or not all(_is_function_tool(t) for t in given):
        raise FieldProblem(
            "'metadata.tools' must be a list of tool mappings, each"
            " {type: function, function: {name: ...}}"
        )
    return list(given) or None


def _is_function_tool(tool: Any) -> bool:
    if not isinstance(tool, Mapping) or tool.get("type") != "function":
        return False
    function = tool.get("function")
    return isinstance(function, Mapping) and isinstance(function.get("name"), str)


def names(value: Any, field_name: str) -> tuple[str, ...]:
    """``requires_<field_name>``: one name or a list of them."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise FieldProblem(f"'requires_{field_name}' must be a name or a list of names")


def positive_int(value: Any, field_name: str) -> int:
    given = number(value, field_name)
    if given != int(given) or given < 1:
        raise FieldProblem(f"{field_name!r} must be a positive whole number, got {value!r}")
    return int(given)


def temperature(value: Any) -> float:
    given = number(value, "temperature")
    if given < 0:
        raise FieldProblem(f"'temperature' must not be negative, got {value!r}")
    return given


def number(value: Any, field_name: str) -> float:
    """A finite number, given as a number or as text that reads as one."""
    if not isinstance(value, bool) and isinstance(value, int | float | str):
        try:
            given = float(value)
        except ValueError:
            pass
        else:
            if math.isfinite(given):
                return given
    raise FieldProblem(f"{field_name!r} must be a number, got {number_given(value)}")
