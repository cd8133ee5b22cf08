"""ragas's judges' requests are judged by rule, whatever they grade (`classifier.ragas`).

Found running ragas 0.4.3 (Faithfulness, ResponseRelevancy, AspectCritic; its legacy
`LangchainLLMWrapper` and its `llm_factory`) against the router: Faithfulness' and
ResponseRelevancy's requests were instruction, local, and AspectCritic's split by what it
graded (a code answer's coding 0.93, the others instruction). The bodies it sent are in
`tests/fixtures/ragas-0.4.3.md`.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.fixed import GRADER_READING
from classifier.ragas import grades
from classifier.request import view
from classifier.rules import GRADER
from classifier.templates import judged_text
from tests import recorded
from tests.classifier.fixed_readings import assert_judged_by

FIXTURES = recorded.FIXTURES / "ragas-0.4.3"
BODIES = sorted(path.name for path in FIXTURES.glob("*.json"))


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


def chat(*messages: tuple[str, Any]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


def text(name: str) -> str:
    return str(captured(name)["messages"][-1]["content"])


def test_every_metric_has_a_body() -> None:
    assert len(BODIES) == 8


@pytest.mark.parametrize("name", BODIES)
def test_a_judges_request_is_reasoning_by_rule_whatever_it_grades(name: str) -> None:
    assert_judged_by(captured(name), GRADER_READING, GRADER, "reasoning")


CRITIC = text("aspect-critic-code.json")
OPENING = "Evaluate the Input based on the criterial defined."
FRAME_AT = CRITIC.index("\nPlease return the output")


@pytest.mark.parametrize(
    "body",
    [
        # the test case's own question, asked by the user's app
        chat(("user", "Write a Python function that reverses a linked list.")),
        # AspectCritic's instruction typed as a user's, without ragas's frame
        chat(("user", CRITIC[:FRAME_AT] + "\nInput: def reverse(head): ...")),
        # ragas's frame around an instruction of no judge's (a PydanticPrompt of one's own)
        chat(("user", "Write a Python function that reverses a linked list." + CRITIC[FRAME_AT:])),
        # a reworded judge's instruction
        chat(("user", CRITIC.replace(OPENING, "Evaluate the input against the criteria."))),
        # words of the user's own after the frame's end
        chat(("user", CRITIC + "{}\nNow explain the verdict.")),
        # the judge's request, then a turn more
        chat(("user", CRITIC), ("assistant", '{"verdict": 1}'), ("user", "Why?")),
    ],
)
def test_a_judges_words_outside_its_request_are_read_by_the_model(body: dict[str, Any]) -> None:
    judged = judged_text(body["messages"])
    assert judged is None or not grades(judged)
    assert view(body).fixed != GRADER_READING
    assert classify(body).source == "model"
