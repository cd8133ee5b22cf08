"""What each grader needs from a case, checked when the case loads.

A case whose ``expected`` or grader options its grader cannot use would otherwise load and
then be graded against something else: a missing ``expected`` as the text ``"None"``, an
invalid regular expression as the model's mismatch, a count of 3.7 as 3, a ``min_matches``
above the number of keywords as a failure of every answer, assertions that do not parse as
the model's syntax error, a mapping where tags or keywords belong as one no answer has, an
unknown count unit or comparison as an error on every run. So would a case its grader would
pass whatever the answer. ``evals.suite`` raises these as a ``SuiteError`` naming the file,
the case and the field.

Some cases its grader could grade are still not to be run (``not_runnable``): a key in a
``tool_call``'s ``expected`` that it never reads (a misspelt ``arg_contains`` passed a call
with any arguments), a ``tool_call`` expecting a tool the case does not offer (every answer
failed). smf-bench's own grader ignores such a key (an ``expected.note`` is reasonable
there), so refusing them failed the whole suite, and with it a router's canary config
(found in review): they load, N/A, and the loader warns of them.
"""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Mapping
from typing import Any

REGEX_FLAGS = re.IGNORECASE | re.DOTALL
"""smf-bench's ``regex_match`` flags (``evals.graders`` searches with them)."""

COUNT_UNITS = ("line", "paragraph", "stanza", "sentence", "word")
"""What ``structural_count`` counts (``evals.graders.UNITS``; a plural is fine)."""

COUNT_OPS = ("==", ">=", "<=", ">", "<")
"""How ``structural_count`` compares (``evals.graders``)."""

PYTHON = re.compile(
    r"(?:c?python|py)"  # the name, then at most a version 3 spec: Python 3.x, py3k, >= 3.8
    r"(?:[\s_:/(-]*(?:v(?:er(?:sion)?)?\.?\s*)?(?:[>=~^]=?\s*)?3(?:\.(?:\d+|x))*\+?\)?|3k)?",
    re.IGNORECASE,
)
"""``metadata.language`` values of a unit-test case whose code we run, matched whole:
``python``, ``py``, ``CPython``, alone or with a version 3 (``Python 3.x``, ``python3.11``,
``Python >= 3.8``, ``py3k``, ``python-3``); the sandbox runs Python 3. Anything else
(``python:2.7``, ``Python < 3``, ``python/javascript``) is another language: a prefix match
ran them all as Python 3 (found in review)."""

TEXT_EXPECTED = frozenset(
    {"regex_match", "text_match", "text_contains", "html_valid", "unit_test", "programmatic"}
)
"""Graders whose ``expected`` is text or a list of texts (assertions, a pattern, tags)."""

_TAG = re.compile(r"[A-Za-z][^\t\n\r\f />\x00]*")
"""A start tag's name as ``html.parser`` reads one."""


class BooleanWord(str):
    """A word YAML reads as a boolean (``off``, ``yes``), kept as written in a text field.
    In ``args_contains`` it may be the string argument or the JSON boolean it stands for;
    the same word quoted, or from a JSON suite, is only the string (a quoted "off" passed
    any call with a ``false`` anywhere in it; found in review)."""

    __slots__ = ()


class FieldProblem(ValueError):
    """A case's field that cannot be used as given (a grader's here, a plain value's in
    ``evals.case_values``); the message names the field, ``evals.suite`` the file and case."""


def is_unit_test(evaluator: str, metadata: Mapping[str, Any]) -> bool:
    """``unit_test``, or ``programmatic`` with ``eval_type: unit_test``."""
    return evaluator == "unit_test" or (
        evaluator == "programmatic" and metadata.get("eval_type") == "unit_test"
    )


def foreign_language(evaluator: str, metadata: Mapping[str, Any]) -> str | None:
    """The language of a unit-test case's code when it is not Python, which is all the
    sandbox runs: graded as Python, a correct JavaScript answer failed as a syntax error."""
    language = metadata.get("language")
    if not is_unit_test(evaluator, metadata) or language is None:
        return None
    if not isinstance(language, str) or not language.strip():
        raise FieldProblem(f"'metadata.language' must be a language name, got {_kind(language)}")
    return None if PYTHON.fullmatch(language.strip()) else language


def check(expected: Any, evaluator: str, metadata: Mapping[str, Any]) -> None:
    """Raise ``FieldProblem`` when ``evaluator`` cannot grade with these fields as given."""
    unit_test = is_unit_test(evaluator, metadata)
    if unit_test and not (isinstance(expected, str) and expected.strip()):
        # a missing expected ran the answer alone, a list was a no-op statement: any code passed
        raise FieldProblem("a unit-test case needs its assertions in 'expected' (text)")
    if unit_test and foreign_language(evaluator, metadata) is None:
        _assertions(expected)  # another language's tests are no Python: the case is N/A
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
        _count(expected, metadata)
    if evaluator == "tool_call":
        _tool_call(expected)
    if evaluator == "json_contains":
        _json(expected)
    if evaluator == "html_valid":
        _tags(expected)


def not_runnable(expected: Any, evaluator: str, metadata: Mapping[str, Any]) -> list[str]:
    """Why a case that passed ``check`` must still not run, each naming the field; none
    when it may. A ``tool_call`` with a key in ``expected`` its grader never reads would pass
    a call with any arguments, one expecting a tool it does not offer fail every answer."""
    if evaluator != "tool_call":
        return []
    unread = [_unread(key) for key in expected if key not in TOOL_CALL_FIELDS]
    offered = _offered(expected["tool"], metadata.get("tools"))
    return unread if offered is None else [*unread, offered]


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"{value!r} (a boolean: quote it to mean the word)"
    return "nothing" if value is None else f"{value!r}"[:60]


def number_given(value: Any) -> str:
    """A value given where a number goes, as a message shows it: `max_tokens: yes` said only
    `got True` (found in review)."""
    if isinstance(value, bool):
        return f"{value!r} (a boolean: YAML reads yes/no, on/off and true/false so; give a number)"
    return f"{value!r}"[:60]


def _is_text(value: Any) -> bool:
    """Text, or a number written where text is meant (``expected: 42``); never a boolean."""
    return not isinstance(value, bool) and isinstance(value, str | int | float)


def _texts(value: Any) -> bool:
    """Text, or a list of texts."""
    return _is_text(value) or (isinstance(value, list) and all(_is_text(v) for v in value))


def _assertions(code: str) -> None:
    """The assertions compile (with the Python that runs them): otherwise every answer
    failed as the model's ``syntax_error``, counted in the coding syntax floor."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an invalid escape warns; it still runs
            compile(code, "<expected>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        at = f" (line {exc.lineno})" if exc.lineno else ""
        raise FieldProblem(
            f"the assertions in 'expected' are not valid Python: {exc.msg}{at}"
        ) from None
    except ValueError as exc:  # null bytes, before Python 3.12
        raise FieldProblem(f"the assertions in 'expected' are not valid Python: {exc}") from None


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
    if expected is not None and not _texts(expected):
        raise FieldProblem(
            f"text_contains needs 'expected' as text or a list of texts, got {_kind(expected)}"
        )
    if keywords is not None and not _texts(keywords):
        raise FieldProblem(f"'expected_keywords' must be a list of words, got {_kind(keywords)}")
    if expected in ("", []) or (expected is None and not keywords):
        raise FieldProblem("text_contains needs a non-empty 'expected' or 'expected_keywords'")
    if not keywords or "min_matches" not in metadata:
        return
    need = _whole(metadata["min_matches"])
    if need is None or need < 1:
        given = metadata["min_matches"]
        raise FieldProblem(
            f"'min_matches' must be a positive whole number, got {number_given(given)}"
        )
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


def _count(expected: Any, metadata: Mapping[str, Any]) -> None:
    """A whole number, a unit the grader counts and a comparison it makes: an unknown unit or
    op was an error on every run (``failure_kind: case``), found only then."""
    if _whole(expected) is None:
        raise FieldProblem(
            f"structural_count needs 'expected' as a whole number, got {_kind(expected)}"
        )
    unit, op = metadata.get("unit", "line"), metadata.get("op", "==")
    if not isinstance(unit, str) or unit.rstrip("s") not in COUNT_UNITS:
        known = ", ".join(COUNT_UNITS)
        raise FieldProblem(f"'metadata.unit' {_kind(unit)} is not one of {known} (or plural)")
    if not isinstance(op, str) or op not in COUNT_OPS:
        raise FieldProblem(f"'metadata.op' {_kind(op)} is not one of {' '.join(COUNT_OPS)}")


def _json(expected: Any) -> None:
    """Keys and values (``"*"``: any value), or a list of keys: nothing, or a scalar, failed
    every answer ("JSON {...} lacks null"), and so does a key that is not text (``1:``), as
    no JSON object has one."""
    if isinstance(expected, list) and all(_is_text(key) for key in expected):
        return
    if not isinstance(expected, Mapping):
        raise FieldProblem(
            "json_contains needs 'expected' as a mapping of keys to values ('*': any)"
            f" or a list of keys, got {_kind(expected)}"
        )
    _keys_are_text(expected, "json_contains 'expected'")


def _keys_are_text(value: Any, field: str) -> None:
    """Every key at any depth is text: YAML reads ``on:``/``yes:`` as True and ``1:`` as a
    number, which no JSON object has as a key (and ``on`` and ``yes`` in one mapping are the
    same key, one value lost)."""
    odd = _keys_not_text(value)
    if odd:
        raise FieldProblem(f"{field} has the key {odd[0]!r}: JSON keys are text (quote it)")


def _keys_not_text(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        own = [k for k in value if not isinstance(k, str)]
        return own + [k for v in value.values() for k in _keys_not_text(v)]
    if isinstance(value, list):
        return [k for v in value for k in _keys_not_text(v)]
    return []


def _tags(expected: Any) -> None:
    """A tag name or a list of them (``<td>`` is fine; none means ``html``): anything else
    is a tag no answer has, and every answer failed."""
    tags = expected if isinstance(expected, list) else [] if expected is None else [expected]
    if not all(isinstance(t, str) and _TAG.fullmatch(t.strip("<>/")) for t in tags):
        raise FieldProblem(
            f"html_valid needs 'expected' as a tag name or a list of them, got {_kind(expected)}"
        )


TOOL_CALL_FIELDS = ("tool", "args_contains", "args_json")
"""What ``tool_call`` reads in ``expected`` (``evals.graders.grade_tool_call``)."""


def _tool_call(expected: Any) -> None:
    """``{tool: name, args_contains: ..., args_json: ...}``: without a tool name every call
    was compared with None and failed, and so was every call with ``args_json`` not a
    mapping (FORMAT.md: it "equals the parsed arguments exactly") or with a key that is not
    text in it (``on: 2027-03-14`` read as ``True:``, found in review); in ``args_contains``
    such keys collide (``on`` and ``yes`` are one key), losing a value to search for. Any
    other key is one the grader never reads (``not_runnable``); without a tool name, the
    first such key is said too, as it may be the name misspelt (``tol: f``)."""
    if isinstance(expected, Mapping) and not isinstance(expected.get("tool"), str):
        for key in expected:
            if key not in TOOL_CALL_FIELDS:
                raise FieldProblem(f"{_unread(key)}; and tool_call needs 'expected.tool'")
    if not isinstance(expected, Mapping) or not isinstance(expected.get("tool"), str):
        raise FieldProblem(
            f"tool_call needs 'expected' as a mapping with a 'tool' name, got {_kind(expected)}"
        )
    contains = expected.get("args_contains")
    if contains is not None and not isinstance(contains, Mapping | list):
        raise FieldProblem(
            f"'expected.args_contains' must be a mapping or a list, got {_kind(contains)}"
        )
    _searched_values(contains)
    if "args_json" in expected and not isinstance(expected["args_json"], Mapping):
        # JSON text ('{"a": 1}') is no parsed arguments: every call failed to equal it
        raise FieldProblem(
            "'expected.args_json' must be the arguments as a mapping ({a: 1}, not JSON text),"
            f" got {_kind(expected['args_json'])}"
        )
    for field in ("args_contains", "args_json"):
        _keys_are_text(expected.get(field), f"'expected.{field}'")


def _unread(key: Any) -> str:
    """A key of ``expected`` that ``tool_call`` never reads, with the field it is nearest."""
    near = difflib.get_close_matches(str(key), TOOL_CALL_FIELDS, n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    known = ", ".join(TOOL_CALL_FIELDS)
    return f"'expected.{key}' is not a field the grader reads{hint}; it reads {known}"


def _offered(tool: str, tools: Any) -> str | None:
    """Why no call could name the expected tool: the case does not offer it (``metadata.tools``,
    sent as the request's ``tools``), and every answer failed as the model's."""
    functions = [t.get("function") for t in tools or () if isinstance(t, Mapping)]
    names = [f.get("name") for f in functions if isinstance(f, Mapping)]
    if not names:
        return (
            f"tool_call needs 'metadata.tools' offering the expected tool {tool!r}:"
            " with no tools offered no answer could pass"
        )
    if tool not in names:
        offered = ", ".join(repr(name) for name in names)
        return (
            f"'expected.tool' {tool!r} is not among the tools in 'metadata.tools' ({offered}):"
            " no answer could pass"
        )
    return None


def _searched_values(contains: Any) -> None:
    """Each ``args_contains`` value is searched for as text in the arguments: a list or a
    mapping was searched as Python's repr (``['a', 'b']``) and null as ``None``, which no
    call's arguments hold, so every call failed. Text, a number or a boolean is fine."""
    if contains is None:
        return
    places = contains.items() if isinstance(contains, Mapping) else enumerate(contains)
    for place, value in places:
        if value is None or not isinstance(value, str | int | float):
            field = f"[{place}]" if isinstance(contains, list) else f".{place}"
            raise FieldProblem(
                f"'expected.args_contains{field}' must be text or a number (it is searched for"
                f" in the arguments), got {_kind(value)}"
            )
