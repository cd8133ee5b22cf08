"""deepeval's judges' requests are judged by rule, whatever they grade (`classifier.deepeval`).

Found running deepeval 4.3.1 (AnswerRelevancy, Faithfulness, GEval) against the router: all
12 of its judges' requests were instruction, local (0.36-0.69), decided by the templates'
"IMPORTANT: Please make sure to only return in JSON format ..." whatever they graded. The
bodies it sent, and its templates not captured rendered by deepeval's own resolver, are in
`tests/fixtures/deepeval-4.3.1.md`.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.deepeval import GEVAL_STEPS, grades
from classifier.fixed import GRADER_READING
from classifier.rules import GRADER
from classifier.templates import judged_text
from tests import recorded
from tests.classifier.fixed_readings import assert_judged_by, assert_read_by_model

FIXTURES = recorded.FIXTURES / "deepeval-4.3.1"
BODIES = sorted(path.name for path in FIXTURES.glob("*.json"))
CODE = "def reverse(head):\n    prev=None\n    while head:\n        head.next, prev, head = prev, head, head.next\n    return prev"  # noqa: E501


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


def chat(*messages: tuple[str, Any]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


def text(name: str) -> str:
    content = captured(name)["messages"][-1]["content"]
    return content if isinstance(content, str) else str(content[0]["text"])


def test_every_template_has_a_body() -> None:
    assert len(BODIES) == 13


@pytest.mark.parametrize("name", BODIES)
def test_a_judges_request_is_reasoning_by_rule_whatever_it_grades(name: str) -> None:
    assert_judged_by(captured(name), GRADER_READING, GRADER, "reasoning")


def test_a_model_of_ones_own_may_send_a_system_message_first() -> None:
    body = chat(("system", "You are a careful evaluator."), ("user", text("geval-steps.json")))
    assert classify(body).label == "reasoning"


STEPS = text("geval-steps.json")


@pytest.mark.parametrize(
    "body",
    [
        # the test case's own answer, written by the user's app
        chat(("user", "Write a Python function that reverses a linked list.")),
        # a user's prompt that ends as a template does
        chat(
            (
                "user",
                "Write a reverse() for a linked list.\n\n**\nIMPORTANT: Please make sure to only"
                ' return in JSON format, with the "steps" key as a list of strings. No words or'
                " explanation is needed.\n**\n\nJSON:",
            )
        ),
        # the template's opening and words of the user's own
        chat(("user", GEVAL_STEPS.split("{{parameters}}")[0] + "code review. " + CODE)),
        # words of the user's own after the template's end
        chat(("user", STEPS + "\nAlso explain each step.")),
        # the template, then a turn more
        chat(("user", STEPS), ("assistant", '{"steps": []}'), ("user", "Why no steps?")),
        # as an assistant's message
        chat(("assistant", STEPS), ("user", "Reverse a linked list in Python.")),
    ],
)
def test_a_templates_words_outside_a_judges_request_are_read_by_the_model(
    body: dict[str, Any],
) -> None:
    judged = judged_text(body["messages"])
    assert judged is None or not grades(judged)
    assert_read_by_model(body, GRADER_READING)
