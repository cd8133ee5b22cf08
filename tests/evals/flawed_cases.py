"""A suites directory of one good shipped case and one case of each mistake that makes a
case load N/A (`evals.suite_flaws`): what the eval CLI, the runner and the canary tests run."""

from __future__ import annotations

from pathlib import Path

from evals.suite import SHIPPED

OFFERS_F = "metadata: {tools: [{type: function, function: {name: f}}]}"

FLAWED = f"""
- {{id: note, prompt: p, evaluator: tool_call, expected: {{tool: f, note: x}}, {OFFERS_F}}}
- {{id: typo, prompt: p, evaluator: tool_call, expected: {{tool: f, arg_contains: {{x: T}}}},
   {OFFERS_F}}}
- {{id: offers, prompt: p, evaluator: tool_call, expected: {{tool: g}}, {OFFERS_F}}}
- {{id: both, prompt: p, messages: [{{role: user, content: q}}], evaluator: text_match,
   expected: x}}
"""
FIELDS = {
    "note": "'expected.note'",
    "typo": "'expected.arg_contains'",
    "offers": "'expected.tool' 'g'",
    "both": "'prompt' and 'messages'",
}


def flawed_suites(tmp_path: Path) -> Path:
    """A suites directory: one good shipped math case, and one case of each flaw."""
    where = tmp_path / "suites"
    where.mkdir()
    math = (SHIPPED / "math" / "math.yaml").read_text().split("\n---\n")[1]
    (where / "math.yaml").write_text(math)
    (where / "flawed.yaml").write_text(FLAWED)
    return where
