"""promptfoo's graders' requests are judged by rule, whatever they grade
(`classifier.promptfoo`).

Found running promptfoo 0.121.20 against the router: `llm-rubric` read as what it graded (a
code answer's coding 0.995, graded by the local model that wrote it; a math answer's math 0.84
on the cloud), `factuality` alike, `g-eval` coding 0.62, and `model-graded-closedqa`, a system
message alone, as nothing (the default route). The bodies are the ones it sent
(`tests/fixtures/promptfoo-0.121.20.md`); g-eval's second prompt, not captured, is filled here
as promptfoo fills it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from classifier import classify
from classifier.fixed import GRADER_READING
from classifier.promptfoo import CLOSED_QA, GEVAL_EVALUATE, RUBRIC_SYSTEM, RUBRIC_USER
from classifier.request import view
from classifier.rules import GRADER
from tests import recorded
from tests.classifier.fixed_readings import assert_judged_by

FIXTURES = recorded.FIXTURES / "promptfoo-0.121.20"
# Each grader's capture (how the router read it before: `promptfoo-0.121.20.md`)
CAPTURED = [
    "llm-rubric-math.json",
    "llm-rubric-code.json",
    "factuality-math.json",
    "factuality-code.json",
    "closedqa-math.json",
    "closedqa-code.json",
    "g-eval-steps.json",
]
CODE = "Here is a solution:\n\n```python\ndef rev(s):\n    return s[::-1]\n```"


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


def filled(template: str, **values: str) -> str:
    """A nunjucks template's placeholders ("{{ name }}", "{{name}}") filled, as promptfoo's
    `renderLlmRubricPrompt` fills them."""
    return re.sub(r"\{\{ ?(\w+) ?\}\}", lambda m: values[m.group(1)], template)


def chat(*messages: tuple[str, str]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


@pytest.mark.parametrize("name", CAPTURED)
def test_a_graders_request_is_reasoning_by_rule_whatever_it_grades(name: str) -> None:
    assert_judged_by(captured(name), GRADER_READING, GRADER, "reasoning")


def test_g_evals_evaluation_prompt_is_judged_too() -> None:
    text = filled(
        GEVAL_EVALUATE,
        criteria="The code is correct and idiomatic",
        steps="Check that it runs\n- Check that it reverses",
        maxScore="10",
        input="Write a Python function that reverses a string.",
        output=CODE,
    )
    body = chat(("user", text))
    assert view(body).fixed == GRADER_READING
    assert classify(body).label == "reasoning"


RUBRIC = filled(RUBRIC_USER, output=CODE, rubric="The code reverses a string")


@pytest.mark.parametrize(
    "body",
    [
        # promptfoo's rubric text pasted by a user, without its system message
        chat(("user", RUBRIC)),
        # its system message, and a user message of other words
        chat(
            ("system", RUBRIC_SYSTEM), ("user", "Write a Python function that reverses a string.")
        ),
        # words of the user's own after the rubric's end
        chat(("system", RUBRIC_SYSTEM), ("user", RUBRIC + "\nAlso add type hints.")),
        # a rubricPrompt of one's own: the system message reworded
        chat(("system", RUBRIC_SYSTEM.replace("You respond", "Respond")), ("user", RUBRIC)),
        # the closed-QA text as a user's message
        chat(
            (
                "user",
                filled(CLOSED_QA, input="Reverse a string.", completion=CODE, criteria="Works"),
            )
        ),
        # the grader's messages, then a turn more
        chat(("system", RUBRIC_SYSTEM), ("user", RUBRIC), ("assistant", "{}"), ("user", "Why?")),
    ],
)
def test_a_graders_words_outside_its_request_are_read_by_the_model(body: dict[str, Any]) -> None:
    assert view(body).fixed != GRADER_READING
    assert classify(body).source == "model"
