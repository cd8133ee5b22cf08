"""Cases that load but must not run as written (`evals.suite_flaws`): N/A with the reason,
and a warning naming the file, the case and the field. Refused at load, one of them failed
the whole suite and a router's canary config (found in review)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer import Typer
from typer.testing import CliRunner

from evals import graders, results
from evals.applicability import Capabilities, not_applicable
from evals.cli import app as evals_app
from evals.endpoint import Endpoint
from evals.runner import run_cases
from evals.suite import Case, SuiteError, load, load_warnings
from router.eval_command import app as router_eval_app
from tests.evals.flawed_cases import FIELDS, OFFERS_F, flawed_suites
from tests.harness import Running


def only_case(tmp_path: Path) -> tuple[Case, str]:
    """The one case under `tmp_path`, N/A whatever the endpoint, and its one warning."""
    (case,) = load(tmp_path)
    (warning,) = load_warnings([case])
    assert case.warnings == (warning,)
    assert warning.startswith("not run (N/A until fixed): ")
    assert not_applicable(case, Capabilities()) == case.not_runnable
    return case, warning


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            "evaluator: tool_call, expected: {tool: f}",
            "tool_call needs 'metadata.tools' offering the expected tool 'f': with no tools",
        ),
        (
            "evaluator: tool_call, expected: {tool: f}, metadata: {tools: []}",
            "tool_call needs 'metadata.tools' offering the expected tool 'f'",
        ),
        (
            "evaluator: tool_call, expected: {tool: f}, metadata: {tools: [{type: function,"
            " function: {name: g}}, {type: function, function: {name: h}}]}",
            r"'expected.tool' 'f' is not among the tools in 'metadata.tools' \('g', 'h'\): no",
        ),
    ],
)
def test_a_tool_call_of_a_tool_the_case_does_not_offer_is_not_run(
    tmp_path: Path, fields: str, message: str
) -> None:
    """Every answer failed as the model's: no call can name a tool the request does not
    offer (found in review). Refusing the case took the whole suite down; it loads, N/A."""
    (tmp_path / "odd.yaml").write_text(f"- {{id: odd, prompt: p, {fields}}}\n")
    case, warning = only_case(tmp_path)
    assert re.search(rf"odd\.yaml: case 'odd': {message}", warning), warning
    assert re.search(message, str(case.not_runnable)), case.not_runnable


@pytest.mark.parametrize(
    ("expected", "message"),
    [
        (
            "{tool: f, arg_contains: {x: Tokyo}}",
            r"'expected\.arg_contains' is not a field the grader reads"
            r" \(did you mean 'args_contains'\?\); it reads tool, args_contains, args_json$",
        ),
        ("{tool: f, args_json: {x: 1}, strict: yes}", r"'expected\.strict' is not a field the"),
        ("{tool: f, 1: x}", r"'expected\.1' is not a field the grader reads; it reads tool,"),
        ("{tool: f, note: x}", r"'expected\.note' is not a field the grader reads; it reads"),
    ],
)
def test_a_tool_call_expectation_the_grader_does_not_read_is_not_run(
    tmp_path: Path, expected: str, message: str
) -> None:
    """`tool_call` reads `tool`, `args_contains` and `args_json` only: `arg_contains: {x:
    Tokyo}` loaded, was never read, and a call f({"x": "Paris"}) passed (found in review).
    smf-bench's own grader ignores such a key (a `note` is reasonable there), so the case
    loads, N/A: refused, it took the whole suite down."""
    (tmp_path / "odd.yaml").write_text(
        f"- {{id: odd, prompt: p, evaluator: tool_call, expected: {expected}, {OFFERS_F}}}\n"
    )
    case, warning = only_case(tmp_path)
    assert re.search(rf"odd\.yaml: case 'odd': {message}", warning), warning
    assert re.search(message, str(case.not_runnable)), case.not_runnable
    spelled = expected.replace("arg_contains", "args_contains")
    (tmp_path / "odd.yaml").write_text(
        f"- {{id: ok, prompt: p, evaluator: tool_call, expected: {spelled}, {OFFERS_F}}}\n"
    )
    if spelled != expected:  # spelled right, the same case loads and grades the arguments
        (case,) = load(tmp_path)
        assert case.not_runnable is None and case.warnings == ()
        paris = {"function": {"name": "f", "arguments": '{"x": "Paris"}'}}
        assert not graders.grade(case, graders.Answer(tool_calls=[paris])).passed


def test_a_tool_call_without_a_tool_name_still_does_not_load(tmp_path: Path) -> None:
    """No `tool` at all was refused before keys were checked, and still is (no suite that
    loaded before refuses now); a key it does not read is named, as it may be the name
    misspelt."""
    (tmp_path / "odd.yaml").write_text(
        f"- {{id: odd, prompt: p, evaluator: tool_call, expected: {{tol: f}}, {OFFERS_F}}}\n"
    )
    message = r"'expected\.tol' is not a field the grader reads \(did you mean 'tool'\?\)"
    with pytest.raises(SuiteError, match=rf"odd\.yaml: case 'odd': {message}.* 'expected.tool'"):
        load(tmp_path)


def test_a_case_with_both_prompt_and_messages_is_not_run(tmp_path: Path) -> None:
    """FORMAT.md defines `prompt` and says nothing of which wins over smf-bench's `messages`:
    the prompt was sent and `messages` dropped without a word (found in review). Such a case
    loads, N/A. Either alone still loads (`messages` alone is N/A: we do not send them)."""
    fields = "evaluator: text_match, expected: x"
    (tmp_path / "both.yaml").write_text(
        f"- {{id: both, prompt: p, messages: [{{role: user, content: q}}], {fields}}}\n"
    )
    case, warning = only_case(tmp_path)
    assert re.search(r"both\.yaml: case 'both' has both 'prompt' and", warning), warning
    assert "has both 'prompt' and 'messages'" in str(case.not_runnable)
    (tmp_path / "both.yaml").write_text(
        f"- {{id: p, prompt: p, {fields}}}\n- {{id: m, messages: [{{role: user}}], {fields}}}\n"
    )
    cases = {c.id: c for c in load(tmp_path)}
    assert cases["p"].not_runnable is None and "multimodal messages" in str(cases["m"].not_runnable)
    assert load_warnings(cases.values()) == []


async def test_the_runner_asks_no_flawed_case_and_grades_the_rest(
    tmp_path: Path, sim: Running
) -> None:
    """Each is N/A, its detail naming the field: never asked, so no pass (a call with any
    arguments passed `arg_contains`) and no failure (no call could name `g`)."""
    cases = load(flawed_suites(tmp_path))
    out = {r.id: r for r in await run_cases(cases, Endpoint(sim.url, "fake-model"))}
    (good,) = set(out) - set(FIELDS)
    assert out.pop(good).status == "pass"
    assert {i: r.status for i, r in out.items()} == dict.fromkeys(FIELDS, "n/a")
    assert all(FIELDS[i] in str(r.detail) for i, r in out.items()), out
    assert sim.completions() == 1


@pytest.mark.parametrize("app", [evals_app, router_eval_app], ids=["evals", "router"])
def test_eval_run_warns_of_each_flawed_case_and_runs_the_rest(
    tmp_path: Path, sim: Running, app: Typer
) -> None:
    """`eval run` refused the whole suite for one such case (exit 2). It runs the rest, says
    on stderr what each flawed case got wrong (file, case, field, and the field it was
    likely meant to be), and reports it N/A: exit 0, as for any N/A case beside a graded."""
    out = tmp_path / "r.json"
    args = ["run", "--endpoint", sim.url, "--model", "fake-model", "--no-progress"]
    suites = str(flawed_suites(tmp_path))
    result = CliRunner().invoke(app, [*args, "--suites", suites, "--out", str(out)])
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(said) == len(FIELDS), result.stderr
    for (case, field), line in zip(FIELDS.items(), said, strict=True):
        assert "flawed.yaml: case " + repr(case) in line and field in line, line
    assert "(did you mean 'args_contains'?)" in said[1]
    cases = {c["id"]: c for c in results.read(out)["cases"]}
    assert sorted(c["status"] for c in cases.values()) == ["n/a"] * len(FIELDS) + ["pass"]
    assert all(field in cases[case]["detail"] for case, field in FIELDS.items())
