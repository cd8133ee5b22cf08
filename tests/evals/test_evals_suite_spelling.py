"""YAML numbers and booleans where a case's text belongs: read as their author meant them,
graded as the answer a model writes, and refused where text would pass every answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.graders import Answer, grade
from evals.suite import SuiteError, load

YAML_ONLY = """
- {id: thousand, prompt: p, evaluator: text_match, expected: 1_000}
- {id: plus, prompt: p, evaluator: text_match, expected: +1}
- {id: inf, prompt: p, evaluator: text_contains, expected: [.inf, -.Inf, .NaN]}
- {id: mixed, prompt: p, evaluator: text_match, expected: +1_000.50}
- {id: hex, prompt: p, evaluator: text_match, expected: 0x1F}
- {id: exp, prompt: p, evaluator: text_match, expected: 1.5e+3}
"""


def test_a_number_spelled_only_as_yaml_spells_it_is_the_number(tmp_path: Path) -> None:
    """`expected: 1_000` was kept as the text "1_000", so the answer "1000" failed (it passed
    before numbers were kept as written; found in review); `+1` and `.inf` likewise. No
    answer is written with YAML's digit separators, plus sign or `.inf`: they are dropped,
    while a spelling an author may mean (trailing zeros, hex, an exponent) stays."""
    (tmp_path / "n.yaml").write_text(YAML_ONLY)
    cases = {c.id: c for c in load(tmp_path)}
    assert cases["thousand"].expected == "1000"
    assert grade(cases["thousand"], Answer(content="1000")).passed
    assert cases["plus"].expected == "1"
    assert cases["inf"].expected == ["inf", "-inf", "nan"]
    assert cases["mixed"].expected == "1000.50"
    assert (cases["hex"].expected, cases["exp"].expected) == ("0x1F", "1.5e+3")


TOOL_ARGS = """
- {id: zip, metadata: {tools: &offers [{type: function, function: {name: weather}},
     {type: function, function: {name: light}}, {type: function, function: {name: install}},
     {type: function, function: {name: f}}]},
   prompt: p, evaluator: tool_call, expected: {tool: weather, args_contains: {zip: 02134}}}
- {id: off, metadata: {tools: *offers},
   prompt: p, evaluator: tool_call, expected: {tool: light, args_contains: [porch, off]}}
- {id: ver, metadata: {tools: *offers},
   prompt: p, evaluator: tool_call, expected: {tool: install, args_contains: {v: 1.10}}}
- {id: big, metadata: {tools: *offers},
   prompt: p, evaluator: tool_call, expected: {tool: f, args_contains: {n: 1_000}}}
- {id: said, metadata: {tools: *offers},
   prompt: p, evaluator: tool_call, expected: {tool: light, args_contains: ["off"]}}
- {id: exact, metadata: {tools: *offers},
   prompt: p, evaluator: tool_call, expected: {tool: f, args_json: {zip: 010, lit: yes}}}
"""


def call(name: str, **arguments: str) -> Answer:
    return Answer(tool_calls=[{"function": {"name": name, "arguments": json.dumps(arguments)}}])


def test_tool_arguments_searched_for_as_text_are_the_text_as_written(tmp_path: Path) -> None:
    """`args_contains` values are searched for as text, but YAML read `zip: 02134` as 1116,
    `off` as False and `1.10` as 1.1: the right calls failed and a wrong version "1.1"
    passed (found in review). `args_json` is compared as JSON: its values stay typed."""
    (tmp_path / "tools.yaml").write_text(TOOL_ARGS)
    cases = {c.id: c for c in load(tmp_path)}
    assert grade(cases["zip"], call("weather", zip="02134")).passed
    assert grade(cases["off"], call("light", where="porch", state="off")).passed
    # ...and a YAML boolean word also finds the JSON boolean (it did before, found in review)
    on = Answer(tool_calls=[{"function": {"name": "light", "arguments": '{"porch": false}'}}])
    assert grade(cases["off"], on).passed
    # ...but a quoted "off" is the string alone: a `false` elsewhere is no match (found in review)
    assert not grade(cases["said"], on).passed
    assert grade(cases["said"], call("light", state="off")).passed
    assert grade(cases["ver"], call("install", v="1.10")).passed
    assert not grade(cases["ver"], call("install", v="1.1")).passed
    assert cases["big"].expected["args_contains"] == {"n": "1000"}
    assert cases["exact"].expected["args_json"] == {"zip": 8, "lit": True}


@pytest.mark.parametrize("expected", ["True", "yes", "false"])
@pytest.mark.parametrize(
    "evaluator", ["evaluator: unit_test", "evaluator: programmatic, eval_type: unit_test"]
)
def test_a_boolean_is_no_unit_test_assertion(tmp_path: Path, evaluator: str, expected: str) -> None:
    """Kept as the text "True", `expected: True` ran as the statement `True`, and every
    answer passed (found in review): like a number, it stays what YAML read, and is
    refused."""
    (tmp_path / "b.yaml").write_text(f"- {{id: b, prompt: p, {evaluator}, expected: {expected}}}\n")
    with pytest.raises(SuiteError, match=r"needs its assertions in 'expected' \(text\)"):
        load(tmp_path)
