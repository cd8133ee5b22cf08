"""The suite loader: smf-bench's sample, every file layout, profiles, gating, our own suites."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from evals.suite import (
    SHIPPED,
    Capabilities,
    SuiteError,
    case_from_dict,
    load,
    load_profile,
    not_applicable,
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
        "# header comment\n---\n---\nid: a1\nprompt: p\nevaluator: text_match\n"
        "---\nid: a2\nprompt: q\nevaluator: text_match\n"
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yml").write_text("- {id: b1, prompt: r, evaluator: regex_match}\n")
    (tmp_path / "c.json").write_text('{"cases": [{"id": "c1", "prompt": "s", "evaluator": "x"}]}')
    (tmp_path / "d.json").write_text('[{"id": "d1", "prompt": "t", "evaluator": "x"}]')
    (tmp_path / "notes.txt").write_text("ignored")
    assert sorted(c.id for c in load(tmp_path)) == ["a1", "a2", "b1", "c1", "d1"]
    assert [c.id for c in load(tmp_path / "a.yaml")] == ["a1", "a2"]


def test_bad_files_name_the_problem(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("- {id: x1, evaluator: text_match}\n")
    with pytest.raises(SuiteError, match=r"x\.yaml.*'prompt'"):
        load(tmp_path)
    (tmp_path / "x.yaml").write_text("- {id: x1, prompt: p, evaluator: e}\n")
    (tmp_path / "y.yaml").write_text("- {id: x1, prompt: q, evaluator: e}\n")
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
        {"id": "v", "prompt": "p", "evaluator": "text_match", "requires_modalities": ["image"]}
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
