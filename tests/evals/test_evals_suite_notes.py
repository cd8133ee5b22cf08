"""Cases that run as written yet are likely not what their author meant (`evals.suite_notes`):
both `prompt` and `prompt_template`. It loaded without a word; it runs as smf-bench runs it,
and the load warns of it, naming the file, the case and the keys (never a value: suite files
hold prompts)."""

from __future__ import annotations

from pathlib import Path

from evals.applicability import Capabilities, not_applicable
from evals.endpoint import Endpoint
from evals.runner import run_cases
from evals.suite import Case, load, load_warnings
from router.canary_counts import not_runnable
from tests.harness import Running

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


def test_a_case_that_runs_with_a_warning_is_not_counted_as_not_runnable(tmp_path: Path) -> None:
    """The canary's `smf_router_canary_cases_not_runnable` counts cases N/A for a mistake;
    one that runs (and is warned of) is asked every round, and is not among them."""
    (tmp_path / "both.yaml").write_text(BOTH)
    (tmp_path / "odd.yaml").write_text(
        "- {id: flawed, prompt: p, messages: [{role: user}], evaluator: text_match, expected: x}\n"
    )
    cases = load(tmp_path)
    assert len(load_warnings(cases)) == 2
    assert not_runnable(cases) == {"uncategorised": 1}
