"""What each grader needs from a case, checked when the case loads.

A case whose ``expected`` or grader options its grader cannot use would otherwise load and
then be graded against something else: a missing ``expected`` as the text ``"None"``, an
invalid regular expression as the model's mismatch, a count of 3.7 as 3, a ``min_matches``
above the number of keywords as a failure of every answer. So would a case its grader would
pass whatever the answer. ``evals.suite`` raises these as a ``SuiteError`` naming the file,
the case and the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

REGEX_FLAGS = re.IGNORECASE | re.DOTALL
"""smf-bench's ``regex_match`` flags (``evals.graders`` searches with them)."""


class FieldProblem(ValueError):
    """A grader field the grader cannot use; the message names the field."""


def check(expected: Any, evaluator: str, metadata: Mapping[str, Any]) -> None:
    """Raise ``FieldProblem`` when ``evaluator`` cannot grade with these fields as given."""
    unit_test = evaluator == "unit_test" or (
        evaluator == "programmatic" and metadata.get("eval_type") == "unit_test"
    )
    if unit_test and not (isinstance(expected, str) and expected.strip()):
        # a missing expected ran the answer alone, a list was a no-op statement: any code passed
        raise FieldProblem("a unit-test case needs its assertions in 'expected' (text)")
    if evaluator == "programmatic" and not unit_test and not metadata.get("checker"):
        raise FieldProblem("'programmatic' needs 'eval_type: unit_test' or a 'checker'")
    if evaluator in ("regex_match", "text_match"):
        _text(expected, evaluator)
    if evaluator == "regex_match":
        _pattern(expected, "'expected'")
        for pattern in _patterns(metadata.get("must_not_match")):
            _pattern(pattern, f"'metadata.must_not_match' pattern {pattern!r}")
    if evaluator == "text_contains":
        _contains(expected, metadata)
    if evaluator == "structural_count":
        _count(expected)
    if evaluator == "tool_call":
        _tool_call(expected)


def _kind(value: Any) -> str:
    return "nothing" if value is None else f"{value!r}"[:60]


def _is_text(value: Any) -> bool:
    """Text, or a number written where text is meant (``expected: 42``); never a boolean."""
    return not isinstance(value, bool) and isinstance(value, str | int | float)


def _text(expected: Any, evaluator: str) -> None:
    if not _is_text(expected):
        raise FieldProblem(
            f"{evaluator} needs 'expected' as text or a number, got {_kind(expected)}"
        )


def _patterns(value: Any) -> list[Any]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    if not all(_is_text(p) for p in items):
        raise FieldProblem("'metadata.must_not_match' must be a pattern or a list of patterns")
    return items


def _pattern(pattern: Any, name: str) -> None:
    try:
        re.compile(str(pattern), REGEX_FLAGS)
    except re.error as exc:
        raise FieldProblem(f"{name} is not a valid regular expression: {exc}") from None


def _contains(expected: Any, metadata: Mapping[str, Any]) -> None:
    """Something to find (else any text passed), and no more keywords needed than listed
    (else every answer failed)."""
    keywords = metadata.get("expected_keywords")
    if expected in ("", []) or (expected is None and not keywords):
        raise FieldProblem("text_contains needs a non-empty 'expected' or 'expected_keywords'")
    if not keywords or "min_matches" not in metadata:
        return
    need = _whole(metadata["min_matches"])
    if need is None or need < 1:
        given = metadata["min_matches"]
        raise FieldProblem(f"'min_matches' must be a positive whole number, got {given!r}")
    listed = len(keywords) if isinstance(keywords, list) else 1
    if need > listed:
        raise FieldProblem(
            f"'min_matches' {need} is more than the {listed} 'expected_keywords':"
            " no answer could pass"
        )


def _whole(value: Any) -> int | None:
    """``value`` as the whole number the grader reads with ``int()``, or None: 3.7 would be
    cut to 3, and a boolean is no count."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


def _count(expected: Any) -> None:
    if _whole(expected) is None:
        raise FieldProblem(
            f"structural_count needs 'expected' as a whole number, got {_kind(expected)}"
        )


def _tool_call(expected: Any) -> None:
    """``{tool: name, args_contains: ..., args_json: ...}``: without a tool name every call
    was compared with None and failed."""
    if not isinstance(expected, Mapping) or not isinstance(expected.get("tool"), str):
        raise FieldProblem(
            f"tool_call needs 'expected' as a mapping with a 'tool' name, got {_kind(expected)}"
        )
    contains = expected.get("args_contains")
    if contains is not None and not isinstance(contains, Mapping | list):
        raise FieldProblem(
            f"'expected.args_contains' must be a mapping or a list, got {_kind(contains)}"
        )
