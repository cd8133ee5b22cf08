"""The suite loader's second line of checks: a case's own problems refused at load (not
blamed on the model), load errors that say where, and YAML read as the author meant it."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from evals import grader_fields, graders
from evals.applicability import Capabilities, not_applicable
from evals.suite import GRADED, SuiteError, case_from_dict, load

UNIT_TEST = "evaluator: programmatic, metadata: {eval_type: unit_test}"
COUNT = "evaluator: structural_count, expected: 3"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            f"{UNIT_TEST}, expected: 'assert f(1) == = 1'",
            r"the assertions in 'expected' are not valid Python: invalid syntax \(line 1\)",
        ),
        (
            'evaluator: unit_test, expected: "assert f(1) == 1\\n  assert f(2) == 2"',
            r"the assertions in 'expected' are not valid Python: unexpected indent \(line 2\)",
        ),
        (
            "evaluator: json_contains",
            "json_contains needs 'expected' as a mapping of keys to values .* got nothing",
        ),
        ("evaluator: json_contains, expected: 5", "json_contains needs 'expected' as a mapping"),
        (
            "evaluator: json_contains, expected: {a: {1: x}}",
            "json_contains 'expected' has the key 1: JSON keys are text",
        ),
        (
            "evaluator: html_valid, expected: {a: 1}",
            r"html_valid needs 'expected' as a tag name or a list of them, got \{'a': 1\}",
        ),
        ("evaluator: html_valid, expected: [table, '<>']", "html_valid needs 'expected' as a tag"),
        (
            "evaluator: text_contains, expected_keywords: {a: 1}, min_matches: 1",
            r"'expected_keywords' must be a list of words, got \{'a': 1\}",
        ),
        (
            "evaluator: text_contains, expected: {a: 1}",
            "text_contains needs 'expected' as text or a list of texts",
        ),
        (
            f"{COUNT}, metadata: {{unit: characters, op: '=='}}",
            "'metadata.unit' 'characters' is not one of line, paragraph, stanza, sentence, word",
        ),
        (f"{COUNT}, metadata: {{unit: line, op: '='}}", "'metadata.op' '=' is not one of =="),
        (f"{COUNT}, metadata: {{unit: 5}}", "'metadata.unit' '5' is not one of"),  # as written
        (
            """evaluator: tool_call, expected: {tool: f, args_json: '{"a": 1}'}""",
            r"""'expected.args_json' must be the arguments as a mapping \({a: 1}, not JSON"""
            r""" text\), got '{"a": 1}'""",
        ),
        (
            "evaluator: tool_call, expected: {tool: f, args_json: [1]}",
            r"'expected.args_json' must be the arguments as a mapping .* got \[1\]",
        ),
        (  # YAML reads `on` as True: every call failed to equal {True: ...} (found in review)
            'evaluator: tool_call, expected: {tool: f, args_json: {title: T, on: "2027-03-14"}}',
            r"'expected.args_json' has the key True: JSON keys are text \(quote it\)",
        ),
        (
            "evaluator: tool_call, expected: {tool: f, args_json: {at: [{1: x}]}}",
            r"'expected.args_json' has the key 1: JSON keys are text \(quote it\)",
        ),
        (  # `on` and `yes` are both True: one key, and "porch" was never searched for
            'evaluator: tool_call, expected: {tool: f, args_contains: {on: porch, yes: "off"}}',
            r"'expected.args_contains' has the key True: JSON keys are text \(quote it\)",
        ),
        (
            "evaluator: tool_call, expected: {tool: f, args_contains: {who: [ann, bo]}}",
            r"'expected.args_contains.who' must be text or a number .* got \['ann', 'bo'\]",
        ),
        (
            "evaluator: tool_call, expected: {tool: f, args_contains: [a, ~]}",
            r"'expected.args_contains\[1\]' must be text or a number .* got nothing",
        ),
        (
            f"{UNIT_TEST[:-1]}, language: [js]}}, expected: 'assert f()'",
            r"'metadata.language' must be a language name, got \['js'\]",
        ),
    ],
)
def test_a_case_whose_own_fields_are_wrong_does_not_load(
    tmp_path: Path, fields: str, message: str
) -> None:
    """These loaded and every answer then failed as the model's: assertions that do not parse
    as `syntax_error` (counted in the coding syntax floor), json_contains with nothing as
    "JSON {...} lacks null", a mapping of tags or keywords as one no answer has; an unknown
    count unit or op was an error on every run (found in review). A tool call of a tool the
    case never offers loads, N/A (test_evals_suite_flaws.py)."""
    (tmp_path / "odd.yaml").write_text(f"- {{id: odd, prompt: p, {fields}}}\n")
    with pytest.raises(SuiteError, match=rf"odd\.yaml: case 'odd': {message}"):
        load(tmp_path)


def test_what_these_graders_take_still_loads() -> None:
    """Plural units, every op, a list of keys, tags with brackets, a single keyword, and
    assertions Python only warns about (an invalid escape) all load."""
    fine = [
        {"evaluator": "structural_count", "expected": 2, "metadata": {"unit": "words"}},
        *(
            {"evaluator": "structural_count", "expected": 2, "metadata": {"op": op}}
            for op in grader_fields.COUNT_OPS
        ),
        {"evaluator": "json_contains", "expected": ["a", "b"]},
        {"evaluator": "json_contains", "expected": {"a": {"b": "*"}, "c": [{"d": None}]}},
        {"evaluator": "html_valid", "expected": ["<table>", "td", "/tr"]},
        {"evaluator": "html_valid"},
        {"evaluator": "text_contains", "expected_keywords": "fox"},
        {"evaluator": "unit_test", "expected": 'import re\nassert re.match("\\d", "1")'},
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # as under pytest: compile's warning would be raised
        loaded = [
            case_from_dict({"id": f"c{i}", "prompt": "p", **raw}) for i, raw in enumerate(fine)
        ]
    assert len(loaded) == len(fine)


def test_the_loaders_lists_match_the_graders() -> None:
    assert grader_fields.COUNT_UNITS == graders.UNITS
    assert set(grader_fields.COUNT_OPS) == set(graders._OPS)
    assert grader_fields.TEXT_EXPECTED <= GRADED


NO_ID = """---
id: ok1
prompt: hi
evaluator: text_match
expected: hi
---
prompt: hi
evaluator: text_match
expected: hi
"""


def test_a_case_without_an_id_is_found_by_its_line_or_place(tmp_path: Path) -> None:
    """`noid.yaml: case '?' has no 'id'` left the user to search the file (found in review)."""
    (tmp_path / "noid.yaml").write_text(NO_ID)
    with pytest.raises(SuiteError, match=r"noid\.yaml: the case at line 7 has no 'id'$"):
        load(tmp_path / "noid.yaml")
    (tmp_path / "list.yaml").write_text(
        "- {id: a, prompt: p, evaluator: code_compiles}\n- {id: [1], evaluator: llm_judge}\n"
    )
    with pytest.raises(SuiteError, match=r"list\.yaml: the case at line 2: 'id' must be a str"):
        load(tmp_path / "list.yaml")
    (tmp_path / "cases.yaml").write_text("cases:\n  - {id: a, evaluator: llm_judge}\n  - 5\n")
    with pytest.raises(SuiteError, match=r"the case at line 3 must be a mapping, got int"):
        load(tmp_path / "cases.yaml")
    (tmp_path / "doc.yaml").write_text(NO_ID.replace("---\nprompt", "---\n7\n---\nprompt"))
    with pytest.raises(SuiteError, match=r"the document at line 7 must be a case, a list or"):
        load(tmp_path / "doc.yaml")
    (tmp_path / "x.json").write_text('[{"id": "j", "prompt": "p", "evaluator": "llm_judge"}, {}]')
    with pytest.raises(SuiteError, match=r"x\.json: the case at item 2 has no 'id'"):
        load(tmp_path / "x.json")


QUIRKS = """
- {id: date, prompt: p, evaluator: regex_match, expected: 2024-01-15}
- {id: stamp, prompt: p, evaluator: text_match, expected: 2024-01-15 10:30:00}
- {id: clock, prompt: p, evaluator: text_match, expected: 1:30}
- {id: clockf, prompt: p, evaluator: text_match, expected: 1:30.5}
- {id: yes, prompt: p, evaluator: text_match, expected: yes}
- {id: true, prompt: p, evaluator: text_match, expected: True, name: no, category: On}
- {id: words, prompt: p, evaluator: text_contains, expected: [yes, 'no'], expected_keywords: [off]}
- {id: meta, prompt: p, evaluator: regex_match, expected: x, metadata: {must_not_match: [no]}}
- {id: nulls, prompt: p, evaluator: text_match, expected: x, category: null, difficulty: ~,
   max_tokens: null, requires_modalities: null, metadata: {unit: null}, min_matches: null}
- {id: json, prompt: p, evaluator: json_contains, expected: {active: yes, at: 2024-01-15}}
- {id: tool, prompt: p, evaluator: tool_call, expected: {tool: on, args_json: {a: off}},
   metadata: {tools: [{type: function, function: {name: 'on'}}]}}
- {id: num, prompt: p, evaluator: structural_count, expected: 3, temperature: 0.5, n: 1_000}
- {id: flag, prompt: p, evaluator: performance, stream: true, metadata: {warm: yes}}
"""


def test_yaml_values_are_read_as_the_author_meant_them(tmp_path: Path) -> None:
    """YAML 1.1 made `2024-01-15` a date (refused), `1:30` the number 90 (graded as "90"),
    `yes` True (refused) and `category: null` the suite "None" (found in review). Dates and
    times are text now; a yes/no/true word is kept as written where the format types the
    field as text, and stays a boolean where one belongs (a JSON value, a flag); null is
    absent."""
    (tmp_path / "quirks.yaml").write_text(QUIRKS)
    cases = {c.id: c for c in load(tmp_path)}
    assert cases["date"].expected == "2024-01-15"
    assert cases["stamp"].expected == "2024-01-15 10:30:00"
    assert (cases["clock"].expected, cases["clockf"].expected) == ("1:30", "1:30.5")
    assert cases["yes"].expected == "yes"
    true = cases["true"]
    assert (true.expected, true.name, true.suite) == ("True", "no", "On")
    assert cases["words"].expected == ["yes", "no"]
    assert cases["words"].metadata["expected_keywords"] == ["off"]
    assert cases["meta"].metadata["must_not_match"] == ["no"]
    nulls = cases["nulls"]
    assert (nulls.suite, nulls.difficulty, nulls.max_tokens) == ("uncategorised", "unrated", 1024)
    assert nulls.requires_modalities == ("text",) and nulls.metadata == {}
    assert cases["json"].expected == {"active": True, "at": "2024-01-15"}
    assert cases["tool"].expected == {"tool": "on", "args_json": {"a": False}}
    num = cases["num"]
    assert (num.expected, num.temperature, num.metadata["n"]) == (3, 0.5, 1000)
    assert cases["flag"].metadata == {"stream": True, "warm": True}


NUMBERS = """
- {id: "3.10", prompt: 3.10, evaluator: text_match, expected: 3.10}
- {id: octal, prompt: p, evaluator: text_match, expected: 0755}
- {id: half, prompt: p, evaluator: regex_match, expected: .5, metadata: {must_not_match: [1.50]}}
- {id: list, prompt: p, evaluator: text_contains, expected: [1.10, 010], expected_keywords: [1e3]}
- {id: count, prompt: p, evaluator: structural_count, expected: 010, min_matches: 0x10}
- {id: json, prompt: p, evaluator: json_contains, expected: {v: 3.10, n: 010}}
- {id: tool, prompt: p, evaluator: tool_call, expected: {tool: 1.0, args_json: {a: 1.50}},
   metadata: {tools: [{type: function, function: {name: '1.0'}}]}}
"""


def test_a_number_where_text_belongs_is_the_text_as_written(tmp_path: Path) -> None:
    """YAML read `expected: 3.10` as 3.1 and `0755` as 493 (octal): graded as "3.1" and
    "493", the right answers failed; a pattern `.5` became `0.5`, a list `[1.10, 010]`
    ["1.1", "8"] (found in review). Where a number belongs (a count, a JSON value) it stays
    one."""
    (tmp_path / "numbers.yaml").write_text(NUMBERS)
    cases = {c.id: c for c in load(tmp_path)}
    assert (cases["3.10"].expected, cases["3.10"].prompt) == ("3.10", "3.10")
    assert cases["octal"].expected == "0755"
    assert graders.grade(cases["octal"], graders.Answer(content="0755")).passed
    half = cases["half"]
    assert (half.expected, half.metadata["must_not_match"]) == (".5", ["1.50"])
    assert graders.grade(half, graders.Answer(content="the answer is .5")).passed
    listed = cases["list"]
    assert (listed.expected, listed.metadata["expected_keywords"]) == (["1.10", "010"], ["1e3"])
    assert graders.grade(listed, graders.Answer(content="1.10 and 010 and 1e3")).passed
    count = cases["count"]
    assert (count.expected, count.metadata["min_matches"]) == (8, 16)
    assert cases["json"].expected == {"v": 3.1, "n": 8}
    assert cases["tool"].expected == {"tool": "1.0", "args_json": {"a": 1.5}}


def test_a_number_is_no_unit_test_assertion(tmp_path: Path) -> None:
    """Kept as the text "3", `expected: 3` would run as the statement `3`, and every answer
    would pass: it stays a number, refused as before."""
    (tmp_path / "n.yaml").write_text(f"- {{id: n, prompt: p, {UNIT_TEST}, expected: 3}}\n")
    with pytest.raises(SuiteError, match="needs its assertions in 'expected' \\(text\\)"):
        load(tmp_path)


@pytest.mark.parametrize(
    "python",
    [
        "Python3",
        "Python 3",
        "python3.11",
        "python 3.12",
        "CPython",
        "Python 3.x",
        "py3k",
        "python-3",
    ],
)
def test_unit_tests_in_another_language_are_not_applicable(tmp_path: Path, python: str) -> None:
    """`metadata.language: javascript` was ignored: the JavaScript answer was run as Python
    and failed as a syntax error (found in review). Python, however spelled, still runs:
    `Python 3` or `python3.11` was N/A "as its tests are Python 3, and the sandbox runs
    Python only" (found in review)."""
    (tmp_path / "langs.yaml").write_text(
        "- {id: js, prompt: p, evaluator: programmatic, metadata: {eval_type: unit_test,"
        " language: javascript}, expected: 'console.assert(add(1, 2) === 3);'}\n"
        "- {id: py, prompt: p, evaluator: unit_test, expected: 'assert f()',"
        f" metadata: {{language: {python}}}}}\n"
        "- {id: re, prompt: p, evaluator: regex_match, expected: x, metadata: {language: js}}\n"
    )
    cases = {c.id: c for c in load(tmp_path)}
    assert cases["js"].not_runnable == (
        "metadata.language is 'javascript', not read as Python 3 (write 'python' if it is):"
        " the sandbox runs Python only"
    )
    assert not_applicable(cases["js"], Capabilities()) == cases["js"].not_runnable
    assert not_applicable(cases["py"], Capabilities()) is None
    assert not_applicable(cases["re"], Capabilities()) is None
    for other in ("Python 2", "python:2.7", "Python < 3", "Python.2", "python/javascript"):
        assert grader_fields.foreign_language("unit_test", {"language": other}) == other


def test_a_json_boolean_where_text_belongs_says_to_quote_it(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text(
        '[{"id": "b", "prompt": "p", "evaluator": "text_match", "expected": true}]'
    )
    with pytest.raises(SuiteError, match=r"got True \(a boolean: quote it to mean the word\)"):
        load(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "id: k1\nprompt: x\nevaluator: text_match\nexpected: x\nexpected: y\n",
            r"line 5: the key 'expected' is given twice \(first on line 4\)$",
        ),
        (
            "- id: a\n  prompt: p\n  evaluator: text_match\n  expected: !!int abc\n",
            r"line 4: cannot read this value as tag:yaml\.org,2002:int$",
        ),
        (
            "- id: a\n  prompt: [p\n",
            r"line 3: expected ',' or '\]', but got '<stream end>' "
            r"\(while parsing a flow sequence on line 2\)$",
        ),
        ("[" * 5000, "nested too deeply to read$"),
        (
            "- {id: a, prompt: p, evaluator: json_contains, expected: &e {x: *e}}\n",
            "the case at line 1 holds itself$",
        ),
        (  # it loaded as if the merge were not there
            "- &a {id: a, prompt: p, evaluator: text_match, expected: x, <<: *a}\n",
            r"line 1: this mapping merges itself \(through `<<`\)$",
        ),
    ],
)
def test_a_bad_yaml_file_is_one_short_line_naming_the_file_and_line(
    tmp_path: Path, text: str, message: str
) -> None:
    """A key given twice silently took the last value; `!!int abc` was a bare ValueError
    naming no file, deep nesting a RecursionError traceback; PyYAML's own message ran over
    several lines quoting "<unicode string>"."""
    (tmp_path / "bad.yaml").write_text(text)
    with pytest.raises(SuiteError, match=rf"^{tmp_path}/bad\.yaml: {message}") as caught:
        load(tmp_path)
    assert "\n" not in str(caught.value)
