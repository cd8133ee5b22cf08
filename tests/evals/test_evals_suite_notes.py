"""Cases that run as written yet are likely not what their author meant (`evals.suite_notes`):
both `prompt` and `prompt_template`, and a key a letter off a field the grader reads. Each
loaded without a word; each now runs as smf-bench runs it, and the load warns of it, naming
the file, the case and the key (never a value: suite files hold prompts)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from evals import results
from evals.applicability import Capabilities, not_applicable
from evals.endpoint import Endpoint
from evals.graders import Answer, grade
from evals.runner import run_cases
from evals.suite import Case, load, load_warnings
from evals.suite_notes import EVERY_CASE_METADATA, GRADER_METADATA
from router.canary_counts import not_runnable
from tests.harness import INTENTS, Running, simulator
from tests.processes import smf_router

RUNS = "runs as written, but check: "

BOTH = """
- id: both
  evaluator: regex_match
  prompt: What is 7 x 8? Answer with just the number.
  prompt_template: context_scaling
  expected: '56'
"""


def only_case(where: Path) -> tuple[Case, str]:
    """The one case under `where`, run as written (not N/A, no flaw), and its one warning."""
    (case,) = load(where)
    (warning,) = load_warnings([case])
    assert case.warnings == (warning,) and warning.startswith(RUNS), warning
    assert case.not_runnable is None and not case.flawed
    assert not_applicable(case, Capabilities()) is None
    return case, warning


async def test_a_case_with_both_prompt_and_prompt_template_sends_the_prompt_and_says_so(
    tmp_path: Path, sim: Running
) -> None:
    """FORMAT.md makes `prompt` the user message and any other key metadata, and smf-bench's
    runner sends `prompt` whatever else the case holds: we send it too, so the results compare.
    It was sent without a word that the template went unused; the load says so now. The
    template alone is still N/A (smf-bench's harness builds that prompt), with no warning."""
    (tmp_path / "both.yaml").write_text(BOTH)
    case, warning = only_case(tmp_path)
    assert warning == (
        f"{RUNS}{tmp_path / 'both.yaml'}: case 'both' has both 'prompt' and 'prompt_template':"
        " 'prompt' is sent, as smf-bench sends it (FORMAT.md: it is the user message, and the"
        " template unused metadata); drop the one not meant"
    )
    assert "context_scaling" not in warning and "7 x 8" not in warning  # keys, never values
    (result,) = await run_cases([case], Endpoint(sim.url, "fake-model"))
    assert result.status in ("pass", "fail"), result
    sent = sim.stats()["last_request"]["messages"]
    assert sent == [{"role": "user", "content": "What is 7 x 8? Answer with just the number."}]

    (tmp_path / "both.yaml").write_text(BOTH.replace("  prompt: What", "  note: What"))
    (alone,) = load(tmp_path)
    assert "prompt_template 'context_scaling'" in str(alone.not_runnable)
    assert alone.warnings == () and not alone.flawed


NEAR_MISSES = [
    (
        "evaluator: regex_match, expected: '56', metadata: {must_not_mach: [zebra]}",
        "'metadata.must_not_mach' is not a field regex_match reads; did you mean 'must_not_match'?",
        "must_not_mach",
        "must_not_match",
    ),
    (
        "evaluator: regex_match, expected: '56', Must_Not_Match: [zebra]",
        "'Must_Not_Match' is not a field regex_match reads; did you mean 'must_not_match'?",
        "Must_Not_Match",
        "must_not_match",
    ),
    (
        "evaluator: text_contains, expected: zebra, expected_keyword: [zebra, okapi]",
        "'expected_keyword' is not a field text_contains reads; did you mean 'expected_keywords'?",
        "expected_keyword",
        "expected_keywords",
    ),
    (
        "evaluator: text_contains, expected_keywords: [zebra, okapi], min_match: 1",
        "'min_match' is not a field text_contains reads; did you mean 'min_matches'?",
        "min_match",
        "min_matches",
    ),
    (
        "evaluator: structural_count, expected: 3, metadata: {units: word}",
        "'metadata.units' is not a field structural_count reads; did you mean 'unit'?",
        "units",
        "unit",
    ),
    (
        "evaluator: structural_count, expected: 3, metadata: {unit: line, ops: '>='}",
        "'metadata.ops' is not a field structural_count reads; did you mean 'op'?",
        "ops",
        "op",
    ),
    (
        "evaluator: programmatic, expected: assert f() == 1, metadata: {eval_type: unit_test,"
        " langauge: zebrascript}",
        "'metadata.langauge' is not a field programmatic reads; did you mean 'language'?",
        "langauge",
        "language",
    ),
    (
        "evaluator: text_match, expected: zebra, temprature: 0.5",
        "'temprature' is not a field of a case; did you mean 'temperature'?",
        "temprature",
        "temperature",
    ),
    (
        "evaluator: text_match, expected: zebra, requires_capability: [vision]",
        "'requires_capability' is not a field of a case; did you mean 'requires_capabilities'?",
        "requires_capability",
        "requires_capabilities",
    ),
]


@pytest.mark.parametrize(
    ("fields", "message", "typo", "field"), NEAR_MISSES, ids=[typo for *_, typo, _ in NEAR_MISSES]
)
def test_a_key_a_letter_off_a_field_the_case_reads_is_named(
    tmp_path: Path, fields: str, message: str, typo: str, field: str
) -> None:
    """FORMAT.md makes an unknown key metadata, so `must_not_mach` loaded, was never read,
    and the grader applied its default (no pattern excluded, lines counted, every keyword
    needed, no capability gate). The case still runs as smf-bench runs it; the load names
    the key and the field it is near, and no value. Spelled right, it says nothing."""
    path = tmp_path / "odd.yaml"
    path.write_text(f"- {{id: odd, prompt: p, {fields}}}\n")
    _, warning = only_case(tmp_path)
    assert warning == f"{RUNS}{path}: case 'odd': {message}"
    assert "zebra" not in warning and "0.5" not in warning
    path.write_text(f"- {{id: odd, prompt: p, {fields.replace(typo, field)}}}\n")
    assert load_warnings(load(tmp_path)) == []


IN_METADATA = [
    (
        "temprature: 0.5",
        "'metadata.temprature' is not a field of a case; did you mean 'temperature', at the"
        " top level (in metadata it is not read)?",
    ),
    (
        "requires_capability: [vision]",
        "'metadata.requires_capability' is not a field of a case; did you mean"
        " 'requires_capabilities', at the top level (in metadata it is not read)?",
    ),
    (
        "max_tokens: 5",
        "'metadata.max_tokens' is a case field: in metadata it is not read; give it at the"
        " top level",
    ),
    (
        "requires_capabilities: [vision]",
        "'metadata.requires_capabilities' is a case field: in metadata it is not read; give it"
        " at the top level",
    ),
]


@pytest.mark.parametrize(("given", "message"), IN_METADATA, ids=[g for g, _ in IN_METADATA])
def test_a_case_field_in_metadata_is_named(tmp_path: Path, given: str, message: str) -> None:
    """The loader reads a case's own fields at the top level only: `metadata: {max_tokens:
    5}` asked for 1024 tokens, and `metadata.requires_capability` gated nothing, without a
    word (docs/evals.md said a misspelt one in metadata was named: found in review). At the
    top level, spelled right, it says nothing."""
    path = tmp_path / "odd.yaml"
    path.write_text(
        f"- {{id: odd, prompt: p, evaluator: text_match, expected: x, metadata: {{{given}}}}}\n"
    )
    case, warning = only_case(tmp_path)
    assert warning == f"{RUNS}{path}: case 'odd': {message}"
    assert "0.5" not in warning and "vision" not in warning
    assert (case.max_tokens, case.temperature, case.requires_capabilities) == (1024, 0.0, ())
    field = given.replace("temprature", "temperature").replace("capability", "capabilities")
    path.write_text(f"- {{id: odd, prompt: p, evaluator: text_match, expected: x, {field}}}\n")
    assert load_warnings(load(tmp_path)) == []


def test_a_misspelt_must_not_match_was_never_applied(tmp_path: Path) -> None:
    """What the warning is for: misspelt, the excluded pattern passed the answer it names."""
    case = "- {id: odd, prompt: p, evaluator: regex_match, expected: '56', metadata: {%s: ['57']}}"
    (tmp_path / "odd.yaml").write_text(case % "must_not_mach")
    typo, _ = only_case(tmp_path)
    assert grade(typo, Answer(content="56 or 57")).passed
    (tmp_path / "odd.yaml").write_text(case % "must_not_match")
    (right,) = load(tmp_path)
    assert not grade(right, Answer(content="56 or 57")).passed


SMF_BENCH_KEYS = """
- {id: agentic, evaluator: agentic_file_check, prompt: p, kind: file_io, setup_files: {},
   success: {files: {}, answer_contains: [x]}, timeout_s: 180}
- {id: vision, evaluator: text_contains, prompt: p, image_generator: g, expected_keywords: [x],
   min_matches: 1}
- {id: audio, evaluator: text_contains, prompt: p, audio_file: a.wav, expected_keywords: [x]}
- {id: video, evaluator: text_contains, prompt: p, video_file: v.mp4, video_files: [v.mp4],
   expected_keywords: [x]}
- {id: ttft, evaluator: performance, prompt: p, stream: true, metadata: {measures: [ttft_ms]}}
- {id: load, evaluator: performance, prompt: p, concurrency: 4, weight: 2, timeout: 60}
- {id: scaling, evaluator: performance, prompt_template: context_scaling, target_tokens: 100,
   base_prompt: q, expected_correct: '56'}
- {id: given, evaluator: regex_match, prompt: p, expected: x, must_not_match: [y],
   must_not_matches: [z], uid: 7, name: n, names: [a], source: s, tags: [t]}
- {id: count, evaluator: structural_count, prompt: p, expected: 3, metadata: {unit: line,
   units_note: lines, op: '==', operator_note: x, tool_hint: none}}
"""


def test_the_sample_and_smf_bench_own_keys_are_not_warned_of(
    tmp_path: Path, bench_sample: Path
) -> None:
    """Arbitrary metadata stays allowed: the keys smf-bench's other suites use (agentic,
    multimodal, performance), and a key near a field the case gives too (`must_not_matches`
    beside `must_not_match`, `uid` beside `id`, `names` beside `name`), are no misspellings;
    nor is anything in the vendored sample, which loads as before."""
    assert load_warnings(load(bench_sample)) == []
    (tmp_path / "other.yaml").write_text(SMF_BENCH_KEYS)
    cases = load(tmp_path)
    assert len(cases) == 9 and load_warnings(cases) == []


def test_a_case_that_runs_with_a_warning_is_not_counted_as_not_runnable(tmp_path: Path) -> None:
    """The canary's `smf_router_canary_cases_not_runnable` counts cases N/A for a mistake;
    one that runs (and is warned of) is asked every round, and is not among them."""
    (tmp_path / "both.yaml").write_text(BOTH)
    (tmp_path / "odd.yaml").write_text(
        "- {id: odd, prompt: p, evaluator: regex_match, expected: x, must_not_mach: [y]}\n"
        "- {id: flawed, prompt: p, messages: [{role: user}], evaluator: text_match, expected: x}\n"
    )
    cases = load(tmp_path)
    assert len(load_warnings(cases)) == 3
    assert not_runnable(cases) == {"uncategorised": 1}


SUITE = """
- {id: typo, evaluator: regex_match, expected: '56', metadata: {must_not_mach: ['57']},
   prompt: 'What is 7 x 8?'}
- {id: both, evaluator: regex_match, expected: '56', prompt: 'What is 8 x 7?',
   prompt_template: context_scaling}
"""
SAID = {
    "typo": "'metadata.must_not_mach' is not a field regex_match reads; did you mean",
    "both": "has both 'prompt' and 'prompt_template': 'prompt' is sent",
}


def test_eval_run_and_config_check_warn_and_run_the_cases(tmp_path: Path) -> None:
    """As real commands: `eval run` warns of each on stderr, asks both cases and grades them
    as smf-bench would (the misspelt pattern is not applied); `config check` warns of them
    among the canary's suites and passes the config."""
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "odd.yaml").write_text(SUITE)
    replies = {"What is 7 x 8?": "56, not 57", "What is 8 x 7?": "56"}
    with simulator(model="m", replies=replies) as sim:
        out = tmp_path / "r.json"
        run = smf_router(
            *("eval", "run", "--endpoint", sim.url, "--model", "m", "--no-progress"),
            *("--suites", str(suites), "--out", str(out)),
        )
        asked = sim.completions()
        config = {
            "backends": [{"name": "local", "tier": "local", "base_url": sim.url, "model": "m"}],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
            "canary": {"suites": str(suites)},
        }
        (tmp_path / "router.yaml").write_text(yaml.safe_dump(config))
        check = smf_router("config", "check", "--config", str(tmp_path / "router.yaml"))
    assert run.returncode == 0, run.stderr
    assert asked == 2
    statuses = {c["id"]: c["status"] for c in results.read(out)["cases"]}
    assert statuses == {"typo": "pass", "both": "pass"}, json.dumps(statuses)
    assert check.returncode == 0, check.stderr
    for done, before in ((run, "warning: "), (check, "warning: canary.suites: ")):
        said = [line for line in done.stderr.splitlines() if "odd.yaml" in line]
        assert len(said) == len(SAID), done.stderr
        for (case, message), line in zip(SAID.items(), said, strict=True):
            assert line.startswith(f"{before}{RUNS}{suites / 'odd.yaml'}: case {case!r}"), line
            assert message in line, line
            assert "What is" not in line and "context_scaling" not in line, line


def test_the_fields_named_as_read_are_those_the_code_reads() -> None:
    """`GRADER_METADATA` is kept by hand beside the graders: a field a grader comes to read
    that is not in it would never be offered as what a misspelling meant, and one no code
    reads any more would be offered still. Every `metadata` field read by name in evals/
    and router/ must be one it (or `EVERY_CASE_METADATA`) names, and each it names read."""
    root = Path(__file__).resolve().parents[2]
    reads = re.compile(r"metadata(?:\.get\(|\[)\"([a-z_]+)\"")
    read = {
        name
        for package in ("evals", "router")
        for source in (root / package).rglob("*.py")
        for name in reads.findall(source.read_text())
    }
    named = {f for fields in GRADER_METADATA.values() for f in fields} | set(EVERY_CASE_METADATA)
    assert read == named
