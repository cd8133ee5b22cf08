"""Graders: smf-bench's evaluators with the same semantics, plus a failure kind and a reason.

Pure functions of (case, answer). The one grader that executes code takes the executor as an
argument (``evals.sandbox.run_python`` in production), so this module does no I/O itself.
A case that cannot be graded as written raises ``CaseProblem``: the runner records ``error``.

Rules we apply where smf-bench's published runner is looser (reported in every results file):

- ``regex_match`` also fails when any ``metadata.must_not_match`` pattern matches;
- a unit-test program passes only if it exits 0 *after* the appended assertions ran (a program
  that calls ``sys.exit(0)`` early fails as ``runtime_error``).
"""

from __future__ import annotations

import ast
import json
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any, Literal

from evals.grader_fields import REGEX_FLAGS, BooleanWord, is_unit_test
from evals.json_values import NOT_JSON, contains, parsed_or_not, same_json, shown
from evals.sandbox import RunOutcome
from evals.suite import Case

FailureKind = Literal[
    "no_answer", "syntax_error", "assertion", "runtime_error", "timeout", "mismatch"
]
Executor = Callable[[str], RunOutcome]

GRADER_RULES = {
    "regex_match": "case-insensitive DOTALL search; metadata.must_not_match applied (fails)",
    "unit_test": "passes only if the program exits 0 after the appended assertions ran",
    "graded_text": "message content, else reasoning / reasoning_content",
}

_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
_OPS: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}


@dataclass(frozen=True)
class Answer:
    """The parts of a chat completion that graders read."""

    content: str | None = None
    reasoning: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The graded text: content, or the reasoning when content is empty."""
        if self.content and self.content.strip():
            return self.content
        return self.reasoning or ""


@dataclass(frozen=True)
class Grade:
    """A verdict: ``failure_kind`` is None exactly when ``passed``."""

    passed: bool
    failure_kind: FailureKind | None
    reason: str


def _ok(reason: str) -> Grade:
    return Grade(True, None, reason)


def _fail(kind: FailureKind, reason: str) -> Grade:
    return Grade(False, kind, reason)


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def grade_regex(case: Case, text: str) -> Grade:
    """``expected`` searched case-insensitively with DOTALL; ``must_not_match`` fails."""
    found = _search(str(case.expected), text, "expected")
    if not found:
        return _fail("mismatch", f"no match for /{_clip(str(case.expected))}/")
    for pattern in _as_list(case.metadata.get("must_not_match")):
        if _search(str(pattern), text, "must_not_match"):
            return _fail("mismatch", f"matched forbidden /{_clip(str(pattern))}/")
    return _ok(f"matched {found.group(0)!r}"[:100])


def _search(pattern: str, text: str, field_name: str) -> re.Match[str] | None:
    """A case that loaded has valid patterns (``evals.grader_fields``); one built otherwise
    is the case's problem, not the model's mismatch."""
    try:
        return re.search(pattern, text, REGEX_FLAGS)
    except re.error as exc:
        raise CaseProblem(f"invalid {field_name} regex: {exc}") from None


def grade_text_match(case: Case, text: str) -> Grade:
    """Trimmed, case-insensitive equality."""
    if text.strip().lower() == str(case.expected).strip().lower():
        return _ok("exact match")
    return _fail("mismatch", f"got {_clip(text)!r}")


def grade_text_contains(case: Case, text: str) -> Grade:
    """Substrings (all of ``expected``) and/or ``expected_keywords`` with ``min_matches``;
    with neither there is nothing to find, and any answer would pass."""
    if not _as_list(case.expected) and not _as_list(case.metadata.get("expected_keywords")):
        raise CaseProblem("text_contains needs a non-empty 'expected' or 'expected_keywords'")
    low = text.lower()
    if case.expected is not None:
        missing = [str(e) for e in _as_list(case.expected) if str(e).lower() not in low]
        if missing:
            return _fail("mismatch", f"missing {missing[:5]}")
    keywords = [str(k) for k in _as_list(case.metadata.get("expected_keywords"))]
    if keywords:
        hits = [k for k in keywords if k.lower() in low]
        need = int(case.metadata.get("min_matches", len(keywords)))
        if len(hits) < need:
            return _fail("mismatch", f"{len(hits)} of {need} keywords: {hits}")
        return _ok(f"{len(hits)} keywords (need {need})")
    return _ok("contains all")


UNITS = ("line", "paragraph", "stanza", "sentence", "word")
"""What ``structural_count`` counts (a trailing ``s`` is dropped: ``lines`` is ``line``)."""


class CaseProblem(ValueError):
    """The case cannot be graded as written (an unknown unit or op, a count that is not a
    number): a problem of the suite, not of the answer, so the runner records ``error``."""


def count_units(text: str, unit: str) -> int:
    """Non-empty lines, blank-line-separated paragraphs or stanzas, sentences (``.!?``) or
    words. As in smf-bench, lines are split on ``\\n`` only (a form feed or U+2028 inside a
    line does not start a new one) and a stanza is counted exactly as a paragraph."""
    unit = unit.rstrip("s")
    if unit == "line":
        return sum(1 for line in text.split("\n") if line.strip())
    if unit in ("paragraph", "stanza"):
        return sum(1 for block in re.split(r"\n\s*\n", text) if block.strip())
    if unit == "sentence":
        return sum(1 for part in re.split(r"[.!?]", text) if part.strip())
    if unit == "word":
        return len(text.split())
    raise CaseProblem(f"unknown unit {unit!r} (known: {', '.join(UNITS)})")


def grade_structural_count(case: Case, text: str) -> Grade:
    """Count ``metadata.unit`` and compare with ``expected`` using ``metadata.op``; a case
    whose unit, op or count makes no sense raises ``CaseProblem`` rather than fail the model."""
    unit = str(case.metadata.get("unit", "line"))
    op = str(case.metadata.get("op", "=="))
    if op not in _OPS:
        raise CaseProblem(f"unknown op {op!r} (known: {' '.join(_OPS)})")
    try:
        want = int(case.expected)
    except (TypeError, ValueError):
        raise CaseProblem(f"expected {case.expected!r} is not a count") from None
    got = count_units(text, unit)
    verdict = f"{got} {unit.rstrip('s')}s, want {op} {want}"  # not "paragraphss"
    return _ok(verdict) if _OPS[op](got, want) else _fail("mismatch", verdict)


def grade_tool_call(case: Case, answer: Answer) -> Grade:
    """First tool call: name equals ``expected.tool``; args contain / equal what is expected.
    A call of another shape (``function`` a string) is the model's mismatch, not a crash."""
    if not answer.tool_calls:
        kind: FailureKind = "mismatch" if answer.text.strip() else "no_answer"
        return _fail(kind, "no tool call")
    function = answer.tool_calls[0].get("function") or {}
    if not isinstance(function, Mapping):
        return _fail("mismatch", f"malformed tool call: 'function' is {type(function).__name__}")
    name, raw = function.get("name"), function.get("arguments")
    expected = case.expected if isinstance(case.expected, Mapping) else {}
    if name != expected.get("tool"):
        return _fail("mismatch", f"called {name!r}, want {expected.get('tool')!r}")
    try:
        return _tool_arguments(expected, raw) or _ok(f"called {name}")
    except (RecursionError, MemoryError):
        return _fail("syntax_error", "arguments nested too deeply to read")


def _tool_arguments(expected: Mapping[str, Any], raw: Any) -> Grade | None:
    """Why the arguments fail, or None: ``args_contains`` values appear in their text,
    ``args_json`` equals them parsed.

    The text is searched as sent and, when it is JSON, as a model writes it: litellm's
    Anthropic conversion (and our simulator) send ``"\\u6771\\u4eac"`` for ``"東京"``, which
    the escaped text does not contain."""
    if isinstance(raw, str):
        parsed = parsed_or_not(raw)
    else:  # an object (some servers send one): read as a model writes
        parsed = NOT_JSON if raw is None else raw
        raw = "" if raw is None else json.dumps(raw, ensure_ascii=False)  # "東京", not "\\u6771"
    texts = [raw.lower()]
    if parsed is not NOT_JSON:
        texts.append(json.dumps(parsed, ensure_ascii=False).lower())
    wanted = expected.get("args_contains") or {}
    values = wanted.values() if isinstance(wanted, Mapping) else _as_list(wanted)
    missing = [str(v) for v in values if not any(w in t for w in _spellings(v) for t in texts)]
    if missing:
        return _fail("mismatch", f"arguments lack {missing}")
    if "args_json" in expected:
        if parsed is NOT_JSON:
            return _fail("syntax_error", "arguments are not JSON")
        if not same_json(expected["args_json"], parsed):
            return _fail("mismatch", f"arguments {_clip(raw)} != expected")
    return None


def _spellings(value: Any) -> set[str]:
    """How an ``args_contains`` value may appear in the arguments, lower-cased: as written,
    and as JSON writes it (for text, without its quotes). JSON escapes a backslash, a quote
    and a newline even where it leaves ``東京`` alone, so a value holding one of them never
    matched as written (a Windows path, quoted speech, two lines)."""
    dumped = json.dumps(value, ensure_ascii=False, default=str)
    found = {str(value).lower(), (dumped[1:-1] if isinstance(value, str) else dumped).lower()}
    # A YAML boolean word is kept as written (`off` may be a string argument), and may also
    # be the JSON boolean it stands for: `enabled: yes` must find `"enabled": true`.
    if isinstance(value, BooleanWord) and value.lower() in _YAML_BOOLEANS:
        found.add(_YAML_BOOLEANS[value.lower()])
    return found


_YAML_BOOLEANS = {"yes": "true", "on": "true", "no": "false", "off": "false"}


def extract_code(text: str) -> str:
    """The first fenced block if the answer starts with a fence, else the whole text."""
    stripped = text.strip()
    if stripped.startswith("```"):
        found = _FENCE.match(stripped)
        if found:
            return found.group(1)
    return text


def unit_test_program(case: Case, text: str) -> str:
    """The program smf-bench runs: the answer's code, then the assertions in ``expected``."""
    return f"{extract_code(text)}\n\n{case.expected}\n"


def syntax_error(source: str) -> str | None:
    """The SyntaxError message for ``source``, or None when it parses. Code nested deeper
    than the parser goes is one too: the interpreter running it would fail the same way."""
    try:
        ast.parse(source)
    except (RecursionError, MemoryError):  # 3,000 terms, 10,000 unary minuses: Python's too
        return "SyntaxError: nested too deeply to parse"
    except SyntaxError as exc:
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    except ValueError as exc:  # e.g. null bytes
        return f"SyntaxError: {exc}"
    return None


def grade_run(outcome: RunOutcome) -> Grade:
    """Turn a sandbox outcome into a verdict with the failure kinds reports count."""
    if outcome.timed_out:
        return _fail("timeout", f"killed after {outcome.duration_s:.1f}s")
    if outcome.completed:
        return _ok(f"tests passed in {outcome.duration_s:.2f}s")
    if outcome.signal_name:
        return _fail("runtime_error", f"killed by {outcome.signal_name}")
    last = next((ln for ln in reversed(outcome.stderr.splitlines()) if ln.strip()), "")
    if outcome.exit_code == 0:
        return _fail("runtime_error", "exited before the assertions ran")
    if last.startswith("AssertionError"):
        return _fail("assertion", _clip(last, 160))
    if last.startswith(("SyntaxError", "IndentationError", "TabError")):
        return _fail("syntax_error", _clip(last, 160))
    return _fail("runtime_error", _clip(last or f"exit status {outcome.exit_code}", 160))


def grade_unit_test(case: Case, text: str, execute: Executor) -> Grade:
    """Syntax check first (the "syntax floor", no process needed), then run the tests.
    Without assertions any code would pass: that is the case's problem, not a pass."""
    if not isinstance(case.expected, str) or not case.expected.strip():
        raise CaseProblem("a unit-test case needs its assertions in 'expected'")
    code = extract_code(text)
    problem = syntax_error(code)
    if problem:
        return _fail("syntax_error", problem)
    return grade_run(execute(unit_test_program(case, text)))


def grade_code_compiles(case: Case, text: str) -> Grade:
    """The extracted code parses as Python."""
    problem = syntax_error(extract_code(text))
    return _fail("syntax_error", problem) if problem else _ok("parses")


def grade_json_contains(case: Case, text: str) -> Grade:
    """The answer is JSON with the expected keys and values (``"*"`` = any value)."""
    try:
        got = json.loads(extract_code(text))
    except json.JSONDecodeError as exc:
        return _fail("syntax_error", f"not JSON: {exc.msg}")
    except (RecursionError, MemoryError):
        return _fail("syntax_error", "not JSON we can read: nested too deeply")
    expected = case.expected
    if isinstance(expected, list):
        expected = {str(k): "*" for k in expected}
    if contains(expected, got):
        return _ok("JSON has the expected keys")
    return _fail("mismatch", f"JSON {_clip(shown(got))} lacks {_clip(json.dumps(expected))}")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag.lower())


def grade_html_valid(case: Case, text: str) -> Grade:
    """The answer contains the required HTML tags (``expected``: a tag or a list of tags)."""
    parser = _Tags()
    parser.feed(extract_code(text))
    parser.close()
    required = [str(t).strip("<>/").lower() for t in _as_list(case.expected)] or ["html"]
    missing = [t for t in required if t not in parser.tags]
    if missing:
        return _fail("mismatch", f"missing tags {missing}")
    return _ok(f"has {len(required)} required tags")


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence):
        return [value]
    return list(value)


def evaluator_of(case: Case) -> str:
    """The grader name: ``programmatic`` + ``eval_type: unit_test`` counts as ``unit_test``.
    Any other ``programmatic`` case stays ``programmatic`` (N/A: smf-bench's ``checker``
    grades it): taking its ``eval_type`` as the grader graded ``eval_type: text_match``
    with our text_match instead of its checker (found in review)."""
    return "unit_test" if is_unit_test(case.evaluator, case.metadata) else case.evaluator


_TEXT_GRADERS: dict[str, Callable[[Case, str], Grade]] = {
    "regex_match": grade_regex,
    "text_match": grade_text_match,
    "text_contains": grade_text_contains,
    "structural_count": grade_structural_count,
    "code_compiles": grade_code_compiles,
    "json_contains": grade_json_contains,
    "html_valid": grade_html_valid,
}

SUPPORTED = frozenset({*_TEXT_GRADERS, "tool_call", "unit_test"})


def reference_answer(case: Case) -> Answer:
    """The case's ``reference`` as a model reply (tool cases: a JSON ``{name, arguments}``)."""
    if case.reference is None:
        raise ValueError(f"{case.id}: no reference answer")
    if evaluator_of(case) != "tool_call":
        return Answer(content=case.reference)
    call = json.loads(case.reference)
    function = {"name": call["name"], "arguments": json.dumps(call.get("arguments", {}))}
    return Answer(tool_calls=[{"id": f"call_{case.id}", "type": "function", "function": function}])


def grade(case: Case, answer: Answer, execute: Executor | None = None) -> Grade:
    """Grade one answer. ``execute`` runs unit-test programs (required for those cases)."""
    name = evaluator_of(case)
    if name == "tool_call":
        return grade_tool_call(case, answer)
    text = answer.text
    if not text.strip():
        return _fail("no_answer", "empty answer")
    if name == "unit_test":
        if execute is None:
            raise ValueError(f"{case.id}: unit_test grading needs an executor")
        return grade_unit_test(case, text, execute)
    if name not in _TEXT_GRADERS:
        raise ValueError(f"{case.id}: unknown evaluator {case.evaluator!r}")
    return _TEXT_GRADERS[name](case, text)
