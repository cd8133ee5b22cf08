"""Every grader, passing and failing, with smf-bench's semantics and our failure kinds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evals.endpoint import Endpoint
from evals.graders import (
    Answer,
    CaseProblem,
    Grade,
    count_units,
    evaluator_of,
    extract_code,
    grade,
    grade_run,
    reference_answer,
)
from evals.runner import run_cases
from evals.sandbox import RunOutcome, run_python
from evals.suite import Case, case_from_dict
from tests.harness import Running


def case(evaluator: str, expected: Any = None, **extra: Any) -> Case:
    if evaluator == "tool_call":  # a tool case offers the tool it expects (else it won't load)
        offered = {"type": "function", "function": {"name": expected["tool"]}}
        extra.setdefault("metadata", {"tools": [offered]})
    return case_from_dict(
        {"id": "t", "prompt": "p", "evaluator": evaluator, "expected": expected, **extra}
    )


def unloadable(evaluator: str, expected: Any, metadata: dict[str, Any] | None = None) -> Case:
    """A case the loader refuses, built directly (as a caller of the graders may)."""
    return Case("t", "t", "s", "easy", "p", evaluator, expected, metadata=metadata or {})


def text(c: Case, content: str) -> Grade:
    return grade(c, Answer(content=content), run_python)


def test_graded_text_falls_back_to_reasoning() -> None:
    c = case("text_match", "42")
    assert grade(c, Answer(content="", reasoning="42")).passed
    assert grade(c, Answer(content=None, reasoning=None)).failure_kind == "no_answer"
    assert Answer(content="  ", reasoning="r").text == "r"


def test_regex_match_is_case_insensitive_dotall_and_applies_must_not_match() -> None:
    c = case("regex_match", r"\\boxed\{\s*dario\s*\}", metadata={"must_not_match": [r"Marisol"]})
    assert text(c, "so \\boxed{Dario}").passed
    assert text(c, "line one\n\\BOXED{ Dario }").passed
    both = text(c, "\\boxed{Dario} or Marisol?")
    assert (both.passed, both.failure_kind) == (False, "mismatch")
    assert "forbidden" in both.reason
    assert text(c, "\\boxed{Vek}").failure_kind == "mismatch"


def test_text_match_trims_and_ignores_case() -> None:
    c = case("text_match", "Quorvat relay nine is ready")
    assert text(c, "  quorvat RELAY nine is ready\n").passed
    assert not text(c, "Quorvat relay nine is ready.").passed


def test_text_contains_list_string_and_keywords() -> None:
    assert text(case("text_contains", ["copper", "Meadow"]), "COPPER in the meadow").passed
    missing = text(case("text_contains", ["copper", "violin"]), "copper")
    assert not missing.passed and "violin" in missing.reason
    assert text(case("text_contains", "fox"), "A Fox.").passed
    kw = case("text_contains", expected_keywords=["AI", "health", "future", "x"], min_matches=3)
    assert text(kw, "ai in health: the future").passed
    assert not text(kw, "ai in health").passed
    every = case("text_contains", expected_keywords=["a", "b"])
    assert not text(every, "a only").passed


@pytest.mark.parametrize(
    ("unit", "body", "count"),
    [
        ("line", "one\n\n two\nthree\n", 3),
        ("paragraph", "p1 line\nstill p1\n\n\np2\n  \np3", 3),
        ("sentence", "One. Two! Three? four", 4),
        ("words", "a b  c", 3),
        ("word", "a\tb\nc", 3),
        ("stanza", "l1\nl2\n\nl3\nl4\n\n\nl5\nl6\n", 3),
        ("line", "a\u2028still a\x0cand a\x85too\nb\r\nc", 3),
    ],
)
def test_count_units(unit: str, body: str, count: int) -> None:
    assert count_units(body, unit) == count


def test_structural_count_ops() -> None:
    lines = "a\nb\nc"
    assert text(case("structural_count", 3, metadata={"unit": "line", "op": "=="}), lines).passed
    assert text(case("structural_count", 2, metadata={"unit": "line", "op": ">="}), lines).passed
    assert text(case("structural_count", 4, metadata={"unit": "line", "op": "<"}), lines).passed
    fail = text(case("structural_count", 5, metadata={"unit": "line", "op": "=="}), lines)
    assert (fail.failure_kind, fail.reason) == ("mismatch", "3 lines, want == 5")


def test_a_plural_unit_is_named_once_plural() -> None:
    """`unit: paragraphs` (counted as `paragraph`) gave the reason "2 paragraphss"."""
    many = case("structural_count", 3, metadata={"unit": "paragraphs", "op": ">="})
    assert text(many, "p1\n\np2").reason == "2 paragraphs, want >= 3"


def test_structural_count_counts_stanzas_as_smf_bench_does() -> None:
    """smf-bench's instruction case v3.instruction.hard.05 counts `unit: stanza`; we called
    the unit unknown and failed every correct poem as the model's mismatch (found in review)."""
    poem = case(
        "structural_count",
        3,
        metadata={"unit": "stanza", "op": "=="},
        prompt="Write a poem about a harbor at dusk, structured as exactly 3 stanzas.",
    )
    right = text(
        poem,
        "Gulls fold their wings,\nthe tide goes slack.\n\nLamps wake on the quay,\n"
        "ropes creak back.\n\nThe last boat in,\nthe dark comes black.",
    )
    assert (right.passed, right.reason) == (True, "3 stanzas, want == 3")
    assert text(poem, "One stanza only,\nthat is all.").failure_kind == "mismatch"


def test_a_case_that_cannot_be_graded_raises_case_problem_not_a_failure() -> None:
    """An unknown unit or op, or a count that is not a number, is the suite's mistake: it was
    graded as the model's `mismatch` (found in review); the runner now records `error`."""
    for metadata, expected, message in (
        ({"unit": "bullet"}, 1, "unknown unit 'bullet'"),
        ({"unit": "line", "op": "!"}, 1, "unknown op '!'"),
        ({"unit": "line"}, "three", "not a count"),  # refused at load; a Case built here
    ):
        with pytest.raises(CaseProblem, match=message):
            text(unloadable("structural_count", expected, metadata), "a\nb")


def test_an_invalid_regex_is_the_case_s_problem_not_the_model_s_mismatch() -> None:
    """An invalid `expected` regex failed the model as `mismatch`, and an invalid
    `must_not_match` raised re.error, counted as a grader bug (found in review). Such cases
    no longer load (`test_evals_suite`); a Case built without loading still errs as `case`."""
    with pytest.raises(CaseProblem, match="invalid expected regex"):
        text(unloadable("regex_match", "(42"), "42")
    forbidden = unloadable("regex_match", "42", {"must_not_match": ["(43"]})
    with pytest.raises(CaseProblem, match="invalid must_not_match regex"):
        text(forbidden, "42")


def call(name: str, arguments: str) -> Answer:
    fn = {"name": name, "arguments": arguments}
    return Answer(tool_calls=[{"id": "c1", "type": "function", "function": fn}])


def test_tool_call_name_args_contains_and_args_json() -> None:
    c = case("tool_call", {"tool": "get_weather", "args_contains": {"location": "Tokyo"}})
    assert grade(c, call("get_weather", '{"location": "tokyo"}')).passed
    assert grade(c, call("calculate", '{"location": "Tokyo"}')).failure_kind == "mismatch"
    assert not grade(c, call("get_weather", '{"location": "Osaka"}')).passed
    assert grade(c, Answer(content="It is sunny")).reason == "no tool call"
    assert grade(c, Answer()).failure_kind == "no_answer"
    exact = case("tool_call", {"tool": "f", "args_json": {"a": 1}})
    assert grade(exact, call("f", '{"a": 1}')).passed
    assert not grade(exact, call("f", '{"a": 1, "b": 2}')).passed
    assert grade(exact, call("f", "{not json")).failure_kind == "syntax_error"


def test_args_json_equals_exactly_as_json_values() -> None:
    """FORMAT.md: `args_json` "equals the parsed arguments exactly". Python's `==` passed
    `true` for an expected `1` and `0` for `false`, nested too (found in review); a JSON
    number is one type, so `1.0` is `1`."""
    exact = case("tool_call", {"tool": "f", "args_json": {"a": 1, "on": False, "xs": [0, 1]}})
    right = '{"a": 1.0, "on": false, "xs": [0, 1]}'
    assert grade(exact, call("f", right)).passed
    for wrong in (
        '{"a": true, "on": false, "xs": [0, 1]}',
        '{"a": 1, "on": 0, "xs": [0, 1]}',
        '{"a": 1, "on": false, "xs": [false, true]}',
        '{"a": "1", "on": false, "xs": [0, 1]}',
        '{"a": 1, "on": null, "xs": [0, 1]}',
        '{"a": 1, "on": false, "xs": [0, 1, 2]}',
    ):
        assert grade(exact, call("f", wrong)).failure_kind == "mismatch", wrong


def test_arguments_sent_as_an_object_are_read_as_the_text_a_model_writes() -> None:
    """Arguments that come back as an object (not a JSON string) were dumped with
    `\\uXXXX` escapes: "東京" was not found in them (found in review). An empty object is
    an object too, not missing arguments."""
    tokyo = case("tool_call", {"tool": "get_weather", "args_contains": {"location": "東京"}})
    fn = {"name": "get_weather", "arguments": {"location": "東京都"}}
    assert grade(tokyo, Answer(tool_calls=[{"function": fn}])).passed
    empty = case("tool_call", {"tool": "now", "args_json": {}})
    assert grade(empty, Answer(tool_calls=[{"function": {"name": "now", "arguments": {}}}])).passed


def test_args_contains_finds_text_the_server_sent_escaped() -> None:
    """litellm's Anthropic conversion and our simulator send arguments as ASCII-escaped JSON
    (`"\\u6771\\u4eac"` for "東京"): the right call failed as "arguments lack ['東京']"
    (found in review). The reference answer of such a case (dumped the same way) passes."""
    tokyo = case("tool_call", {"tool": "get_weather", "args_contains": {"location": "東京"}})
    escaped = json.dumps({"location": "東京"})
    assert "\\u6771" in escaped
    assert grade(tokyo, call("get_weather", escaped)).passed
    assert grade(tokyo, call("get_weather", '{"location": "東京"}')).passed
    assert grade(tokyo, call("get_weather", json.dumps({"location": "大阪"}))).reason == (
        "arguments lack ['東京']"
    )
    reference = json.dumps({"name": "get_weather", "arguments": {"location": "東京"}})
    with_reference = case(
        "tool_call",
        {"tool": "get_weather", "args_contains": ["東京"]},
        reference=reference,
    )
    assert grade(with_reference, reference_answer(with_reference)).passed


@pytest.mark.parametrize("value", ["C:\\Users\\me", 'say "hi"', "line one\nline two"])
def test_args_contains_finds_text_json_escapes(value: str) -> None:
    """JSON escapes a backslash, a quote and a newline even without `\\u` escapes: the
    right call failed as "arguments lack [...]" (found in review)."""
    wanted = case("tool_call", {"tool": "f", "args_contains": {"v": value}})
    as_sent = json.dumps({"v": value})
    assert value not in as_sent
    assert grade(wanted, call("f", as_sent)).passed
    as_object = {"function": {"name": "f", "arguments": {"v": value}}}  # dumped to search
    assert grade(wanted, Answer(tool_calls=[as_object])).passed
    assert not grade(wanted, call("f", json.dumps({"v": "other"}))).passed


def test_a_model_answer_of_any_shape_is_graded_not_a_crash() -> None:
    """A tool call whose `function` is a string raised AttributeError, and an expression of
    3,000 terms, 10,000 unary minuses or JSON nested 5,000 deep raised RecursionError or
    MemoryError: the case became `error/grader` instead of the model's failure (found in
    review)."""
    weather = case("tool_call", {"tool": "get_weather", "args_json": {"a": 1}})
    shapeless = Answer(tool_calls=[{"id": "1", "type": "function", "function": "get_weather"}])
    assert grade(weather, shapeless) == Grade(
        False, "mismatch", "malformed tool call: 'function' is str"
    )
    deep = "[" * 5000 + "]" * 5000
    assert grade(weather, call("get_weather", deep)).reason == "arguments nested too deeply to read"
    sent_as_object: list[Any] = []
    for _ in range(5000):  # arguments some servers send as an object, too deep to write
        sent_as_object = [sent_as_object]
    fn = {"name": "get_weather", "arguments": sent_as_object}
    assert grade(weather, Answer(tool_calls=[{"function": fn}])).failure_kind == "syntax_error"
    nested = text(case("json_contains", ["a"]), deep)
    assert (nested.failure_kind, nested.reason) == (
        "syntax_error",
        "not JSON we can read: nested too deeply",
    )
    for code in ("x = 1" + "+1" * 3000, "x = " + "-" * 10000 + "1"):
        for evaluator, expected in (("code_compiles", None), ("unit_test", "assert x")):
            verdict = text(case(evaluator, expected), code)
            assert (verdict.failure_kind, verdict.reason) == (
                "syntax_error",
                "SyntaxError: nested too deeply to parse",
            ), evaluator


def test_extract_code_only_when_the_answer_starts_with_a_fence() -> None:
    assert extract_code("```python\nx = 1\n```\nmore") == "x = 1\n"
    assert extract_code("```\ny = 2\n```") == "y = 2\n"
    assert extract_code("```python\nz = 3\n").strip() == "z = 3"
    prose = "Here:\n```python\nx = 1\n```"
    assert extract_code(prose) == prose


UNIT = {"metadata": {"eval_type": "unit_test"}}


def test_unit_test_passes_and_each_failure_kind() -> None:
    c = case("programmatic", "assert double(2) == 4", **UNIT)
    assert text(c, "```python\ndef double(x):\n    return 2 * x\n```").passed
    assert text(c, "def double(x): return x + x").passed
    assert text(c, "def double(x): return 3 * x").failure_kind == "assertion"
    assert text(c, "def double(x) return 2").failure_kind == "syntax_error"
    assert text(c, "Here you go:\n```python\ndef double(x): return 2*x\n```").failure_kind == (
        "syntax_error"
    )
    assert text(c, "def double(x): return undefined_name").failure_kind == "runtime_error"
    early = text(c, "import sys\ndef double(x): return 0\nsys.exit(0)")
    assert (early.failure_kind, early.reason) == (
        "runtime_error",
        "exited before the assertions ran",
    )
    assert text(case("unit_test", "assert f() == 1"), "def f(): return 1").passed


def test_unit_test_needs_an_executor() -> None:
    with pytest.raises(ValueError, match="executor"):
        grade(case("unit_test", "assert True"), Answer(content="x = 1"))


def test_grade_run_timeout_and_signal() -> None:
    timed = RunOutcome(None, True, False, "", "", 10.0, True)
    assert grade_run(timed).failure_kind == "timeout"
    killed = RunOutcome(-25, False, False, "", "", 0.1, True)
    assert grade_run(killed).reason == "killed by SIGXFSZ"


def test_code_compiles() -> None:
    c = case("code_compiles")
    assert text(c, "```python\nclass A:\n    pass\n```").passed
    assert text(c, "class A\n    pass").failure_kind == "syntax_error"


def test_json_contains_with_wildcards_and_nesting() -> None:
    c = case("json_contains", {"city": "Nairobi", "rank": "*", "user": {"name": "Mira"}})
    good = '{"city": "Nairobi", "rank": 3, "user": {"name": "Mira", "x": 1}}'
    assert text(c, good).passed
    assert text(c, "```json\n" + good + "\n```").passed
    assert text(c, '{"city": "Nairobi", "user": {"name": "Mira"}}').failure_kind == "mismatch"
    assert text(c, '{"city": "Lagos", "rank": 1, "user": {"name": "Mira"}}').failure_kind == (
        "mismatch"
    )
    assert text(c, "{city: Nairobi}").failure_kind == "syntax_error"
    assert text(case("json_contains", ["a", "b"]), '{"a": 1, "b": null}').passed


@pytest.mark.parametrize(
    ("expected", "answer"),
    [
        ({"active": True}, '{"active": 1}'),
        ({"count": 1}, '{"count": true}'),
        ({"count": 0}, '{"count": false}'),
        ({"v": [1, 0]}, '{"v": [true, false]}'),
        ({"u": {"on": False}}, '{"u": {"on": 0}}'),
        ({"n": "1"}, '{"n": 1}'),
    ],
)
def test_json_contains_compares_values_as_json(expected: dict[str, Any], answer: str) -> None:
    """Python's `==` took `true` for `1` and `false` for `0`: `{"active": 1}` passed for an
    expected `active: true` (found in review). Values compare as `args_json`'s do."""
    verdict = text(case("json_contains", expected), answer)
    assert verdict.failure_kind == "mismatch", verdict
    assert text(case("json_contains", expected), json.dumps(expected)).passed
    assert text(case("json_contains", {"n": 1, "w": "*"}), '{"n": 1.0, "w": false}').passed


def test_html_valid_requires_tags() -> None:
    c = case("html_valid", ["table", "<td>"])
    assert text(c, "<table><tr><td>1</td></tr></table>").passed
    fail = text(c, "<div>no table</div>")
    assert fail.failure_kind == "mismatch" and "table" in fail.reason
    assert text(case("html_valid"), "<HTML><body></body></HTML>").passed


def test_unknown_evaluator_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown evaluator"):
        text(case("llm_judge"), "x")


async def test_a_programmatic_case_with_a_checker_is_not_applicable(sim: Running) -> None:
    """docs/evals.md: `programmatic` with a `checker` is N/A (smf-bench's checker grades it).
    With `eval_type: text_match` it was graded by our text_match instead, and "42" passed
    whatever the checker says (found in review). `eval_type: unit_test` still runs."""
    checker = {"checker": "checks.parity", "eval_type": "text_match"}
    checked = case("programmatic", "42", metadata=checker)
    assert evaluator_of(checked) == "programmatic"
    (out,) = await run_cases([checked], Endpoint(sim.url, "fake-model"))
    assert (out.status, out.detail) == ("n/a", "unsupported evaluator 'programmatic'")
    assert sim.stats()["requests"] == 0
    with pytest.raises(ValueError, match="unknown evaluator 'programmatic'"):
        text(checked, "42")
    unit = case("programmatic", "assert f() == 1", metadata={**checker, "eval_type": "unit_test"})
    assert evaluator_of(unit) == "unit_test"
    assert text(unit, "def f():\n    return 1\n").passed


def test_a_case_built_without_expectations_is_a_case_problem_not_a_pass() -> None:
    """Cases built in code skip the loader's checks; the graders refuse them too."""
    bare = Case("u", "u", "coding", "easy", "write f", "unit_test")
    with pytest.raises(CaseProblem, match="assertions"):
        grade(bare, Answer(content="def f(): pass"), run_python)
    empty = Case("t", "t", "writing", "easy", "write", "text_contains", expected=[])
    with pytest.raises(CaseProblem, match="text_contains needs"):
        text(empty, "anything")
