"""inspect_ai's multiple-choice prompts are read by their question, its graders' requests
judged by rule (`classifier.inspect_ai`).

Found running inspect_ai 0.3.285 against the router: its `multiple_choice()` template decided
the intent, all 10 questions (physics, calculus, logic, Python, history) instruction 0.70-0.82
on the local backend, and `model_graded_qa()` read as what it graded (a code answer's coding,
local). The bodies are the ones it sent (`tests/fixtures/inspect-ai-0.3.285.md`); the
templates not captured are filled here as its `prompt()` fills them.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.ask_text import ask_content
from classifier.fixed import GRADER_READING
from classifier.inspect_ai import (
    DEFAULT_MODEL_GRADED_FACT_TEMPLATE,
    DEFAULT_MODEL_GRADED_QA_TEMPLATE,
    MULTIPLE_ANSWER_TEMPLATE,
    MULTIPLE_ANSWER_TEMPLATE_COT,
    SINGLE_ANSWER_TEMPLATE,
)
from classifier.request import view
from classifier.rules import GRADER
from router.conversation import conversation_key
from router.translate.view import chat_view
from tests import recorded
from tests.classifier.fixed_readings import assert_decided_by, assert_read_by_model
from tests.classifier.multiple_choice import asked, prompt

FIXTURES = recorded.FIXTURES / "inspect-ai-0.3.285"
# Each captured question, as its content reads it (measured without the directive)
TOPICS = {
    "physics": "reasoning",
    "calculus": "math",
    "logic": "reasoning",
    "python": "coding",
    "history": "reasoning",
}
CAPTURED = [
    (f"multiple-choice{cot}-{topic}.json", topic) for cot in ("", "-cot") for topic in TOPICS
]
DERIVATIVE = "What is the derivative of x^3 at x = 2?"


def captured(name: str) -> dict[str, Any]:
    """The body as the router reads it: a Responses body in its chat view."""
    body = recorded.body(FIXTURES / name)
    return chat_view("responses", body) if "input" in body else body


@pytest.mark.parametrize(("name", "topic"), CAPTURED)
def test_a_multiple_choice_question_is_read_by_its_question_and_choices(
    name: str, topic: str
) -> None:
    body = captured(name)
    text = body["messages"][0]["content"]
    question = text[text.index("\n\n") + 2 :]  # past the directive
    assert question.count("\n") == 5  # the question, a blank line, four choices
    assert view(body).latest == question
    intent = classify(body)
    assert (intent.label, intent.source) == (TOPICS[topic], "model")


def test_the_conversation_key_hashes_the_question_without_the_directive() -> None:
    """The ask as the classifier reads it keys the conversation: two tasks asking one question
    under the two directives are one conversation, as the question asked alone is."""
    single, cot = (
        captured("multiple-choice-calculus.json"),
        captured("multiple-choice-cot-calculus.json"),
    )
    alone = asked(view(single).latest)
    assert conversation_key(single, {}, "c") == conversation_key(cot, {}, "c")
    assert conversation_key(single, {}, "c") == conversation_key(alone, {}, "c")


@pytest.mark.parametrize("template", [MULTIPLE_ANSWER_TEMPLATE, MULTIPLE_ANSWER_TEMPLATE_COT])
def test_the_multiple_answer_templates_are_read_alike(template: str) -> None:
    choices = ["6", "8", "12", "3 * 2^2"]
    body = asked(prompt(template, DERIVATIVE, choices))
    assert view(body).latest == prompt("{question}\n\n{choices}", DERIVATIVE, choices)
    assert classify(body).label == "math"


def test_many_choices_and_their_letters_past_z_are_read() -> None:
    """`answer_character` runs A to Z, then 1, 2...: 28 choices end "1) ..." and "2) ..."."""
    choices = [str(n) for n in range(28)]
    text = prompt(SINGLE_ANSWER_TEMPLATE, DERIVATIVE, choices)
    assert "where LETTER is one of A,B,C," in text and text.endswith("\n1) 26\n2) 27")
    assert view(asked(text)).latest == text[text.index(DERIVATIVE) :]


def test_a_question_with_an_image_keeps_its_image_part() -> None:
    """A sample's media come after its text, in parts: the text part is read without the
    directive, the image part kept as it was."""
    text = prompt(SINGLE_ANSWER_TEMPLATE, "Which shape is shown?", ["a circle", "a square"])
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    message = {"role": "user", "content": [{"type": "text", "text": text}, image]}
    read = ask_content(message, [message])
    assert read == [{"type": "text", "text": text[text.index("Which") :]}, image]
    assert message["content"][0]["text"] == text  # the request's own parts are unchanged


QUESTION = "A ball is dropped from 20 m. How long does it take to fall?"
OWN = [
    # the directive's opening, then a user's own words
    "Answer the following multiple choice question. Which planet is largest?",
    # the whole directive, but its letters are not the choices' (three choices)
    prompt(SINGLE_ANSWER_TEMPLATE, QUESTION, ["1 s", "2 s", "4 s"]).replace("A,B,C.", "A,B,C,D."),
    # letters out of order
    prompt(SINGLE_ANSWER_TEMPLATE, QUESTION, ["1 s", "2 s"]).replace("A,B.", "A,C."),
    # choices not as inspect_ai writes them
    prompt(SINGLE_ANSWER_TEMPLATE, QUESTION, ["1 s", "2 s"]).replace("A) 1 s\nB) ", "A. 1 s\nB. "),
    # the directive reworded
    prompt(SINGLE_ANSWER_TEMPLATE, QUESTION, ["1 s", "2 s"]).replace("entire", "whole"),
    # no blank line between the directive and the question
    prompt(SINGLE_ANSWER_TEMPLATE, QUESTION, ["1 s", "2 s"]).replace("A,B.\n\n", "A,B.\n"),
]


@pytest.mark.parametrize("text", OWN)
def test_a_users_own_multiple_choice_words_are_read_as_written(text: str) -> None:
    assert view(asked(text)).latest == text


@pytest.mark.parametrize("name", ["model-graded-qa-math.json", "model-graded-qa-code.json"])
def test_the_model_graded_scorers_request_is_judged_by_rule(name: str) -> None:
    """One judge for every graded answer: a math answer's grade and a code answer's are
    reasoning, no longer what they grade (instruction 0.70 and coding 0.82, local)."""
    body = captured(name)
    seen = view(body)
    assert seen.fixed == GRADER_READING
    assert seen.latest.startswith("\nYou are assessing a submitted answer")  # read as sent
    assert_decided_by(body, GRADER_READING, GRADER, "reasoning")


def grading(template: str, instructions: str = "Reply GRADE: C or GRADE: I.") -> str:
    """The scorer's prompt: `model_scoring_prompt`'s `template.format(...)`."""
    return template.format(
        question="Write a Python function that reverses a string.",
        answer="def rev(s):\n    return s[::-1]",
        criterion="def rev(s): return s[::-1]",
        instructions=instructions,
    )


def test_model_graded_fact_and_a_tasks_own_instructions_are_judged_by_rule() -> None:
    for text in (
        grading(DEFAULT_MODEL_GRADED_FACT_TEMPLATE),
        grading(DEFAULT_MODEL_GRADED_QA_TEMPLATE),
    ):
        assert classify(asked(text)).label == "reasoning"
        # a model's configured system message before it
        body = asked(text)
        body["messages"].insert(0, {"role": "system", "content": "You are a strict grader."})
        assert view(body).fixed == GRADER_READING


@pytest.mark.parametrize(
    "body",
    [
        # words of a user's own after the template's end
        asked(grading(DEFAULT_MODEL_GRADED_QA_TEMPLATE) + "\nAlso fix the code."),
        # the template's structure broken: no [END DATA]
        asked(grading(DEFAULT_MODEL_GRADED_QA_TEMPLATE).replace("[END DATA]", "")),
        # pasted into a chat, after an exchange of the user's
        {
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": grading(DEFAULT_MODEL_GRADED_QA_TEMPLATE)},
            ]
        },
    ],
)
def test_a_grading_text_not_the_scorers_request_is_read_by_the_model(
    body: dict[str, Any],
) -> None:
    assert_read_by_model(body, GRADER_READING)
