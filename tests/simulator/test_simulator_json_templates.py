"""A JSON template in the prompt ("Respond ONLY with:" over `{ "operation": "ADD|UPDATE",
"confidence": 0.0-1.0 }`) is answered with an object that keeps to it.

cipher 0.3.0's memory decision ends "Respond ONLY with:" and a template that is no JSON: its
operation written as alternatives in one string, its confidence a range, and names JSON
nowhere. The simulator read the range as a sum and answered "Computing 0.0-1.0 step by step
gives -1. The answer is $\\boxed{-1}$.", which cipher could not read as a decision (found in
a live review; the prompt below is the one it sent). A template's alternatives are answered
with one of them, a range with a number within it, dots (`"..."`) with a string; a range
written as a member's value is no sum wherever the template is not the answer's form.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from router.simulator import SimThread
from tests.simulator.calls import said

OPERATIONS = ("ADD", "UPDATE", "DELETE", "NONE")
# cipher 0.3.0's DECISION_PROMPT (`memory_operation.ts`) as it sent it, a fact filled in
DECISION = (
    "Analyze the knowledge fact and choose ADD, UPDATE, DELETE, or NONE.\n\nSteps:\n"
    "1) Compare with similar memories (semantic similarity, not keywords).\n"
    "2) If none are similar (below threshold) -> ADD.\n"
    "3) If more correct/complete than a similar memory -> UPDATE (include targetMemoryId).\n"
    "4) If redundant/already present -> NONE.\n"
    "5) If contradicts an existing memory -> DELETE (include targetMemoryId).\n"
    "6) Always include a confidence score (0.0\u20131.0).\n\nExamples:\n- ADD\n"
    '  Similar: none\n  { "operation": "ADD", "confidence": 0.95, "targetMemoryId": null }\n\n'
    "- UPDATE\n  Similar: 12345 (0.91)\n"
    '  { "operation": "UPDATE", "confidence": 0.90, "targetMemoryId": 12345 }\n\n'
    "- NONE\n  Similar: 67890 (0.95)\n"
    '  { "operation": "NONE", "confidence": 0.98, "targetMemoryId": 67890 }\n\n'
    "- DELETE\n  Similar: 54321 (0.92)\n"
    '  { "operation": "DELETE", "confidence": 0.93, "targetMemoryId": 54321 }\n\n'
    "---\nFACT: User: Remember that our staging database is Postgres 15 on port 5433.\n"
    "SIMILAR: No similar memories found.\nCONTEXT: \n\nRespond ONLY with:\n"
    '{ "operation": "ADD|UPDATE|DELETE|NONE", "confidence": 0.0-1.0, '
    '"targetMemoryId": "id-if-updating-or-deleting-or-none" }'
)


def number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_cipher_memory_decision_gets_a_decision_of_its_template(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """The whole answer is the decision, as cipher's `parseLLMDecision` reads it: one of
    the four operations, a confidence in 0..1, the template's keys in order."""
    got = json.loads(said(start_sim(profile=profile), DECISION))
    assert isinstance(got, dict) and list(got) == ["operation", "confidence", "targetMemoryId"]
    assert got["operation"] in OPERATIONS
    assert number(got["confidence"]) and 0 <= got["confidence"] <= 1


def test_a_templates_alternatives_range_and_dots_are_kept_to(
    start_sim: Callable[..., SimThread],
) -> None:
    """`"A|B|C"` one of them, an integer range a whole number within it, `"..."` a string
    of words, not the dots; under `json_object` too."""
    template = (
        'Rate the answer.\n\nRespond ONLY with: {"verdict": "PASS|FAIL|SKIP", '
        '"score": 1-10, "reasoning": "..."}'
    )
    sim = start_sim()
    for extra in ({}, {"response_format": {"type": "json_object"}}):
        got = json.loads(said(sim, template, **extra))
        assert list(got) == ["verdict", "score", "reasoning"]
        assert got["verdict"] in ("PASS", "FAIL", "SKIP")
        assert isinstance(got["score"], int) and 1 <= got["score"] <= 10
        assert isinstance(got["reasoning"], str) and got["reasoning"].strip(" .")


def test_an_example_objects_alternatives_are_answered_with_one(
    start_sim: Callable[..., SimThread],
) -> None:
    """An example that is plain JSON (answered by its shape) keeps a string written as
    alternatives to one of them; its other strings are words of its own."""
    ask = 'Classify the ticket. Respond in JSON: {"label": "bug|feature|question", "why": "x y"}'
    got = json.loads(said(start_sim(), ask))
    assert got["label"] in ("bug", "feature", "question") and got["why"] != "x y"


def test_a_range_in_a_template_is_no_sum(start_sim: Callable[..., SimThread]) -> None:
    """A template the prompt does not ask the answer in is not the answer, and its range is
    no arithmetic either; a sum written in the ask still is."""
    sim = start_sim()
    shown = 'Our records look like {"confidence": 0.0-1.0}. Tell me a story about them.'
    text = said(sim, shown)
    assert "boxed" not in text and "Computing" not in text
    text = said(sim, 'What is 7-2? Our records look like {"score": 0-10}.')
    assert text.startswith("Computing 7-2 step by step gives 5.")
