"""The suite loader: smf-bench's sample, every file layout, profiles, gating, our own suites."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from evals.applicability import Capabilities, not_applicable
from evals.suite import (
    SHIPPED,
    SuiteError,
    case_from_dict,
    load,
    load_profile,
    profile_files,
)

INTENTS = ("coding", "tool_calling", "math", "reasoning", "instruction", "prose", "writing")


def test_loads_the_shared_sample_in_both_layouts(bench_sample: Path) -> None:
    cases = {c.id: c for c in load(bench_sample)}
    assert len(cases) == 12
    assert {c.suite for c in cases.values()} == set(INTENTS)
    coding = cases["v3.coding.easy.01"]
    assert coding.evaluator == "programmatic" and coding.metadata["eval_type"] == "unit_test"
    assert "assert clamp_all([], -5, 5) == []" in coding.expected
    assert coding.max_tokens == 4096 and coding.temperature == 0.3
    assert coding.requires_capabilities == ("reasoning",)


def test_unknown_top_level_keys_become_metadata(bench_sample: Path) -> None:
    writing = {c.id: c for c in load(bench_sample)}["writing_article"]
    assert writing.metadata["expected_keywords"][:2] == ["AI", "healthcare"]
    assert writing.metadata["min_matches"] == 4
    assert writing.difficulty == "unrated" and writing.expected is None


def test_tools_come_from_metadata(bench_sample: Path) -> None:
    tool = {c.id: c for c in load(bench_sample)}["tool_call_weather"]
    assert tool.tools is not None
    assert [t["function"]["name"] for t in tool.tools] == ["get_weather", "calculate"]
    assert tool.expected == {"tool": "get_weather", "args_contains": {"location": "Tokyo"}}


def test_profile_on_a_flat_sample_directory(bench_sample: Path) -> None:
    cases = load_profile(bench_sample, "strict_v01")
    assert Counter(c.suite for c in cases)["coding"] == 2
    assert len(cases) == 12


def test_profile_on_an_smf_bench_checkout(tmp_path: Path, bench_sample: Path) -> None:
    suites = tmp_path / "suites"
    for rel in (
        "quality/tier0_deterministic/math.yaml",
        "quality/tier0_deterministic/coding.yaml",
        "quality/tier0_deterministic/reasoning.yaml",
        "quality/tier0_deterministic/instruction.yaml",
        "quality/tier0_deterministic/prose.yaml",
        "quality/writing/writing.yaml",
        "quality/tool_calling/tool_calling.yaml",
    ):
        (suites / rel).parent.mkdir(parents=True, exist_ok=True)
        (suites / rel).write_text((bench_sample / Path(rel).name).read_text())
    (suites / "multimodal").mkdir()
    (suites / "multimodal" / "vision.yaml").write_text(
        "- {id: img.1, prompt: look, evaluator: text_match, expected: cat,"
        " requires_modalities: [image]}\n"
    )
    assert len(load_profile(tmp_path, "strict_v01")) == 12
    assert profile_files(suites, "strict_v01")[0].parts[-3:] == (
        "quality",
        "tier0_deterministic",
        "math.yaml",
    )
    assert len(load(suites)) == 13


def test_missing_profile_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"math\.yaml"):
        load_profile(tmp_path, "strict_v01")
    with pytest.raises(SuiteError, match="unknown profile"):
        load_profile(tmp_path, "nope")


def test_file_layouts(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "# header comment\n---\n---\nid: a1\nprompt: p\nevaluator: text_match\nexpected: x\n"
        "---\nid: a2\nprompt: q\nevaluator: text_match\nexpected: y\n"
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yml").write_text(
        "- {id: b1, prompt: r, evaluator: regex_match, expected: x}\n"
    )
    (tmp_path / "c.json").write_text(
        '{"cases": [{"id": "c1", "prompt": "s", "evaluator": "regex_match", "expected": "x"}]}'
    )
    (tmp_path / "d.json").write_text(
        '\ufeff[{"id": "d1", "prompt": "t", "evaluator": "llm_judge"}]', encoding="utf-8"
    )
    (tmp_path / "notes.txt").write_text("ignored")
    assert sorted(c.id for c in load(tmp_path)) == ["a1", "a2", "b1", "c1", "d1"]
    assert [c.id for c in load(tmp_path / "a.yaml")] == ["a1", "a2"]


def test_bad_files_name_the_problem(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("- {id: x1, evaluator: text_match}\n")
    with pytest.raises(SuiteError, match=r"x\.yaml.*'prompt'"):
        load(tmp_path)
    (tmp_path / "x.yaml").write_text("- {id: x1, prompt: p, evaluator: code_compiles}\n")
    (tmp_path / "y.yaml").write_text("- {id: x1, prompt: q, evaluator: code_compiles}\n")
    with pytest.raises(SuiteError, match="duplicate case id 'x1'"):
        load(tmp_path)
    (tmp_path / "y.yaml").write_text("- just a string\n")
    with pytest.raises(SuiteError, match="must be a mapping"):
        load(tmp_path)


def test_capability_gating_makes_cases_not_applicable(bench_sample: Path) -> None:
    tool = {c.id: c for c in load(bench_sample)}["tool_call_weather"]
    assert not_applicable(tool, Capabilities()) is None
    no_tools = Capabilities(capabilities=frozenset({"reasoning", "writing"}))
    assert not_applicable(tool, no_tools) == "endpoint lacks capability tool_calling"
    vision = case_from_dict(
        {
            "id": "v",
            "prompt": "p",
            "evaluator": "text_match",
            "expected": "cat",
            "requires_modalities": ["image"],
        }
    )
    assert not_applicable(vision, Capabilities()) == "endpoint lacks modality image"


def test_shipped_suites_cover_every_intent_across_difficulties() -> None:
    cases = load(SHIPPED)
    per_suite = Counter(c.suite for c in cases)
    assert set(per_suite) == set(INTENTS)
    assert min(per_suite.values()) >= 10
    for intent in INTENTS:
        levels = {c.difficulty for c in cases if c.suite == intent}
        assert len(levels) >= 3, (intent, levels)
    assert all(c.reference for c in cases)
    assert len({c.prompt for c in cases}) == len(cases), "prompts must be unique"


CONTEXT_SCALING = """# excerpt of smf-bench suites/performance/context_scaling/context_scaling.yaml
- id: perf_context_100
  category: context_scaling
  dimension: performance
  requires_modalities: [text]
  requires_capabilities: [reasoning, context_long]
  evaluator: performance
  prompt_template: context_scaling
  target_tokens: 100
  base_prompt: "What is 7 x 8? Answer with just the number."
  expected_correct: "56"
  max_tokens: 200
"""
OTHER_SMF_BENCH = """
- {id: perf_ttft_short, category: ttft, evaluator: performance, prompt: "What is 2+2?"}
- {id: av2-01, category: agentic, evaluator: agentic_file_check, prompt: "Compute 17*23+9."}
- id: templated_regex
  evaluator: regex_match
  prompt_template: context_scaling
  expected: "56"
- id: vision_messages
  evaluator: text_contains
  messages: [{role: user, content: [{type: text, text: look}]}]
  expected_keywords: [red]
"""


def test_an_smf_bench_suites_folder_loads_and_what_we_cannot_send_is_not_applicable(
    tmp_path: Path, bench_sample: Path
) -> None:
    """smf-bench's context_scaling cases have no `prompt` (its harness builds one from
    `prompt_template`): loading a real `suites/` folder aborted, for the CLI and the
    canary's config alike (found in review). FORMAT.md: such suites are N/A."""
    (tmp_path / "quality").mkdir()
    for name in ("math.yaml", "writing.yaml"):
        (tmp_path / "quality" / name).write_text((bench_sample / name).read_text())
    perf = tmp_path / "performance" / "context_scaling"
    perf.mkdir(parents=True)
    (perf / "context_scaling.yaml").write_text(CONTEXT_SCALING)
    (tmp_path / "performance" / "other.yaml").write_text(OTHER_SMF_BENCH)
    cases = {c.id: c for c in load(tmp_path)}
    assert len(cases) == 2 + 1 + 1 + 4  # math, writing, context_scaling, the others
    reasons = {i: not_applicable(c, Capabilities()) for i, c in cases.items()}
    assert (
        reasons["perf_context_100"]
        == reasons["templated_regex"]
        == ("its prompt is built by smf-bench's harness (prompt_template 'context_scaling')")
    )
    assert reasons["vision_messages"] == "it sends smf-bench's multimodal messages, which we do not"
    assert cases["perf_context_100"].prompt == ""
    assert reasons["v3.math.easy.01"] is None and reasons["writing_article"] is None


def test_a_prompt_is_still_required_where_we_would_send_one(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("- {id: x1, evaluator: text_match, expected: y}\n")
    with pytest.raises(SuiteError, match=r"x\.yaml: case 'x1' has no 'prompt'"):
        load(tmp_path)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ("metadata: [1, 2]", "'metadata' must be a mapping, got list"),
        ("metadata: 'unit: line'", "'metadata' must be a mapping, got str"),
        ("requires_modalities: 5", "'requires_modalities' must be a name or a list of names"),
        ("requires_capabilities: [{a: 1}]", "'requires_capabilities' must be a name or a list"),
        ("temperature: [1]", r"'temperature' must be a number, got \[1\]"),
        ("temperature: -1", "'temperature' must not be negative"),
        ("max_tokens: lots", "'max_tokens' must be a number, got 'lots'"),
        ("max_tokens: 0", "'max_tokens' must be a positive whole number"),
        ("max_tokens: yes", r"'max_tokens' must be a number, got True \(a boolean: YAML reads"),
        ("prompt: [a, b]", "'prompt' must be text, got list"),
        ("metadata: {tools: get_weather}", "'metadata.tools' must be a list of tool mappings"),
        ("evaluator: regex_mach", "'evaluator' 'regex_mach' is not one smf-bench has"),
    ],
)
def test_a_malformed_field_names_the_file_the_case_and_the_field(
    tmp_path: Path, fields: str, message: str
) -> None:
    """These ended in a TypeError traceback, or a ValueError naming no file (found in
    review); an evaluator typo silently made the case N/A."""
    base = {"id": "b1", "prompt": "hi", "evaluator": "text_match", "expected": "x"}
    key = fields.split(":")[0]
    lines = [f"  {k}: {v}" for k, v in base.items() if k != key]
    (tmp_path / "bad.yaml").write_text("- " + "\n".join([fields, *lines]).lstrip() + "\n")
    with pytest.raises(SuiteError, match=rf"bad\.yaml: case 'b1': {message}"):
        load(tmp_path)


def test_files_that_are_not_json_yaml_or_utf8_are_named(tmp_path: Path) -> None:
    """A broken .json gave a bare JSONDecodeError, a .json with a byte-order mark was
    refused, and Latin-1 bytes a bare UnicodeDecodeError (found in review)."""
    broken = tmp_path / "broken.json"
    broken.write_text('[{"id": "d", "prompt": "hi", "evaluator": "text_match",}]')
    with pytest.raises(SuiteError, match=r"broken\.json: not valid JSON: Expecting property"):
        load(broken)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"- {id: e, prompt: caf\xe9, evaluator: text_match, expected: x}\n")
    with pytest.raises(SuiteError, match=r"latin\.yaml: not UTF-8 text \(invalid .* at byte 21\)"):
        load(latin)
    bom = tmp_path / "bom.json"
    bom.write_bytes(
        b'\xef\xbb\xbf[{"id": "j1", "prompt": "hi", "evaluator": "text_match", "expected": "x"}]'
    )
    assert [c.id for c in load(bom)] == ["j1"]


def test_our_evaluator_lists_match_the_graders() -> None:
    from evals.graders import SUPPORTED
    from evals.suite import GRADED, NOT_GRADED

    assert {"programmatic", *SUPPORTED} == GRADED
    assert not GRADED & NOT_GRADED


UNIT_TEST = "evaluator: programmatic, metadata: {eval_type: unit_test}"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (UNIT_TEST, "a unit-test case needs its assertions in 'expected'"),
        (
            f"{UNIT_TEST}, expected: ['assert f(1) == 1']",
            "a unit-test case needs its assertions in 'expected'",
        ),
        (
            "evaluator: unit_test, expected: '  '",
            "a unit-test case needs its assertions in 'expected'",
        ),
        ("evaluator: programmatic", "'programmatic' needs 'eval_type: unit_test' or a 'checker'"),
        ("evaluator: text_contains", "text_contains needs a non-empty 'expected'"),
        ("evaluator: text_contains, expected: []", "text_contains needs a non-empty 'expected'"),
        (
            "evaluator: text_contains, expected_keywords: [a], min_matches: 0",
            "'min_matches' must be a positive whole number",
        ),
        (
            "evaluator: text_contains, expected_keywords: [a], min_matches: on",
            r"'min_matches' must be a positive whole number, got True \(a boolean: YAML reads",
        ),
    ],
)
def test_a_case_that_would_pass_any_answer_does_not_load(
    tmp_path: Path, fields: str, message: str
) -> None:
    """A unit-test case without assertions (or with a list: a no-op statement) passed any
    code, and a text_contains case with nothing to look for passed any text (found in
    review)."""
    (tmp_path / "lax.yaml").write_text(f"- {{id: lax, prompt: write f, {fields}}}\n")
    with pytest.raises(SuiteError, match=rf"lax\.yaml: case 'lax': {message}"):
        load(tmp_path)


def test_smf_bench_graders_without_fixed_expectations_still_load() -> None:
    checker = {"id": "c", "prompt": "p", "evaluator": "programmatic", "metadata": {"checker": "x"}}
    keywords = {"id": "k", "prompt": "p", "evaluator": "text_contains", "expected_keywords": ["a"]}
    assert case_from_dict(checker).evaluator == "programmatic"
    assert case_from_dict(keywords).metadata["expected_keywords"] == ["a"]


TOOL = "evaluator: tool_call, metadata: {tools: [{type: function, function: {name: f}}]}"
OFFERS = {"metadata": {"tools": [{"type": "function", "function": {"name": "f"}}]}}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            "evaluator: regex_match, expected: '\\boxed\\{(42'",
            r"'expected' is not a valid regular expression: missing \)",
        ),
        (
            "evaluator: regex_match, expected: '42', metadata: {must_not_match: ['(43']}",
            r"'metadata.must_not_match' pattern '\(43' is not a valid regular expression",
        ),
        ("evaluator: regex_match", "regex_match needs 'expected' as text or a number, got nothing"),
        ("evaluator: text_match", "text_match needs 'expected' as text or a number, got nothing"),
        ("evaluator: text_match, expected: [a]", r"text_match needs 'expected' as text .*\['a'\]"),
        (f"{TOOL}, expected: f", "tool_call needs 'expected' as a mapping with a 'tool' name"),
        (f"{TOOL}, expected: {{args_contains: {{a: 1}}}}", "tool_call needs 'expected' as a map"),
        (f"{TOOL}, expected: {{tool: f, args_contains: 5}}", "'expected.args_contains' must be"),
        ("evaluator: structural_count", "structural_count needs 'expected' as a whole number"),
        (
            "evaluator: structural_count, expected: 3.7",
            "structural_count needs 'expected' as a whole number, got 3.7",
        ),
        (
            "evaluator: text_contains, expected_keywords: [a, b], min_matches: 3",
            "'min_matches' 3 is more than the 2 'expected_keywords': no answer could pass",
        ),
        (
            "evaluator: text_match, expected: x, metadata: {tools: [{type: function}]}",
            "'metadata.tools' must be a list of tool mappings, each",
        ),
        (
            "evaluator: text_match, expected: x, metadata: {tools: [{function: {name: f}}]}",
            "'metadata.tools' must be a list of tool mappings, each",
        ),
    ],
)
def test_a_case_its_grader_cannot_use_does_not_load(
    tmp_path: Path, fields: str, message: str
) -> None:
    """These loaded and were graded against something else: a missing `expected` as the text
    "None", an invalid regex as the model's mismatch (a bad `must_not_match` as a grader
    bug), 3.7 lines as 3, more keywords needed than listed failed every answer, and a tool
    the backend refuses made every run a transport error (found in review)."""
    (tmp_path / "odd.yaml").write_text(f"- {{id: odd, prompt: p, {fields}}}\n")
    with pytest.raises(SuiteError, match=rf"odd\.yaml: case 'odd': {message}"):
        load(tmp_path)


def test_what_the_format_allows_still_loads(bench_sample: Path) -> None:
    """The checks refuse only what no grader can use: numbers as text, counts as digits,
    a list of `args_contains` values, keywords as many as needed."""
    lenient = [
        {"id": "n", "prompt": "p", "evaluator": "regex_match", "expected": 42},
        {"id": "t", "prompt": "p", "evaluator": "text_match", "expected": 7.5},
        {"id": "c", "prompt": "p", "evaluator": "structural_count", "expected": "3"},
        {"id": "a", "prompt": "p", "evaluator": "tool_call", "expected": {"tool": "f"}, **OFFERS},
        {
            "id": "l",
            "prompt": "p",
            "evaluator": "tool_call",
            "expected": {"tool": "f", "args_contains": ["x"]},
            **OFFERS,
        },
        {
            "id": "k",
            "prompt": "p",
            "evaluator": "text_contains",
            "expected_keywords": ["a", "b"],
            "min_matches": 2,
        },
    ]
    assert [case_from_dict(raw).id for raw in lenient] == ["n", "t", "c", "a", "l", "k"]
    assert len(load(bench_sample)) == 12 and len(load(SHIPPED)) == 74


def test_a_load_that_finds_no_case_is_an_error(tmp_path: Path) -> None:
    """An empty file or directory loaded as no cases: `eval run` graded nothing and exited
    3 as if the endpoint were down, and the canary measured nothing (found in review)."""
    (tmp_path / "empty.yaml").write_text("# only a comment\n")
    (tmp_path / "nothing").mkdir()
    (tmp_path / "nothing" / "notes.txt").write_text("no suite here")
    for path in (tmp_path / "empty.yaml", tmp_path / "nothing"):
        with pytest.raises(SuiteError, match=rf"{path} holds no cases"):
            load(path)
