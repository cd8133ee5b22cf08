"""evalscope's multiple-choice prompts are read by their question, its LLM judge's requests
judged by rule (`classifier.evalscope`).

Found running evalscope 1.14.1 against the router: its multiple-choice template (inspect_ai's
with `[LETTER]`) decided the intent, all 5 ARC questions (an integral, a prime, Python, SQL,
science) instruction 0.81-0.96 on the local backend, and its LLM judge read as what it graded
(3 coding, 2 instruction, local). The bodies are the ones it sent
(`tests/fixtures/evalscope-1.14.1.md`); the templates not captured are filled here as its
`prompt()` fills them.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.evalscope import (
    CHINESE_MULTIPLE_ANSWER_TEMPLATE,
    CHINESE_SINGLE_ANSWER_TEMPLATE_COT,
    DEFAULT_NUMERIC_SCORE_TEMPLATE,
    MC_TEMPLATES,
    grades,
)
from classifier.fixed import GRADER_READING
from classifier.request import view
from classifier.rules import GRADER
from classifier.templates import judged_text
from router.conversation import conversation_key
from tests import recorded
from tests.classifier.fixed_readings import assert_judged_by, assert_read_by_model
from tests.classifier.multiple_choice import asked, prompt

FIXTURES = recorded.FIXTURES / "evalscope-1.14.1"
# Each captured question, as its content reads it (measured without the directive)
TOPICS = {
    "calculus": "math",
    "prime": "math",
    "python": "coding",
    "sql": "coding",
}
JUDGES = sorted(path.name for path in FIXTURES.glob("judge-*.json"))
INTEGRAL = "What is the integral of 2x from 0 to 3?"


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


@pytest.mark.parametrize(("topic", "label"), TOPICS.items())
def test_a_multiple_choice_question_is_read_by_its_question_and_choices(
    topic: str, label: str
) -> None:
    body = captured(f"arc-{topic}.json")
    text = body["messages"][0]["content"]
    question = text[text.index("\n\n") + 2 :]  # past the directive
    assert view(body).latest == question
    intent = classify(body)
    assert (intent.label, intent.source) == (label, "model")


# Each of evalscope's 8 multiple-choice templates as its own `prompt()` filled it (evalscope
# 1.14.1, `utils/multi_choices.py`): English and Chinese, single and multiple answers, with
# and without "think step by step"; not built from the module under test
FILLED = recorded.body(FIXTURES / "mc-prompts.json")


def test_the_filled_templates_are_all_of_evalscopes() -> None:
    assert len(FILLED) == len(MC_TEMPLATES) == 8
    assert sum(name.startswith("CHINESE_") for name in FILLED) == 4
    assert sum(name.endswith("_COT") for name in FILLED) == 4


@pytest.mark.parametrize("name", sorted(FILLED))
def test_every_template_is_read_by_its_question(name: str) -> None:
    text = FILLED[name]
    assert text.endswith("D) 12" + ("\n" if name.startswith("CHINESE_") else ""))
    asked_text = view(asked(text)).latest
    assert asked_text.startswith(INTEGRAL)
    assert "[LETTER" not in asked_text
    assert conversation_key(asked(text), {}, "c") == conversation_key(asked(asked_text), {}, "c")


@pytest.mark.parametrize(
    "text",
    [
        # letters that are not the choices'
        prompt(MC_TEMPLATES[0], INTEGRAL, ["3", "6"]).replace("A,B", "A,C"),
        # the directive before a question of the user's own, no choices
        prompt(MC_TEMPLATES[0], INTEGRAL, ["3"]).replace("\n\nA) 3", ""),
        # a Chinese template's choices without their label
        prompt(CHINESE_MULTIPLE_ANSWER_TEMPLATE, INTEGRAL, ["3", "6"]).replace("选项：\n", ""),
        # a Chinese template without its closing line break: not evalscope's whole
        FILLED["CHINESE_SINGLE_ANSWER_TEMPLATE"].removesuffix("\n"),
        # the directive reworded
        prompt(MC_TEMPLATES[1], INTEGRAL, ["3", "6"]).replace("Think step", "Think hard, step"),
    ],
)
def test_a_text_not_a_template_filled_is_read_as_written(text: str) -> None:
    assert view(asked(text)).latest == text


def test_a_chinese_question_is_read_without_its_directive() -> None:
    text = prompt(CHINESE_SINGLE_ANSWER_TEMPLATE_COT, INTEGRAL, ["3", "6", "9", "12"])
    assert view(asked(text)).latest == f"{INTEGRAL}\n选项：\nA) 3\nB) 6\nC) 9\nD) 12\n"


def test_every_judge_has_a_body() -> None:
    assert len(JUDGES) == 5


@pytest.mark.parametrize("name", JUDGES)
def test_a_judges_request_is_reasoning_by_rule_whatever_it_grades(name: str) -> None:
    assert_judged_by(captured(name), GRADER_READING, GRADER, "reasoning")


def test_the_numeric_judge_and_a_configured_system_message_are_judged_too() -> None:
    text = DEFAULT_NUMERIC_SCORE_TEMPLATE.format(question="Sort a list in Python.", pred="x.sort()")
    body = {
        "model": "auto",
        "messages": [
            {"role": "system", "content": "You are a strict grader."},
            {"role": "user", "content": text},
        ],
    }
    assert view(body).fixed == GRADER_READING


JUDGE = str(captured("judge-python.json")["messages"][0]["content"])


@pytest.mark.parametrize(
    "body",
    [
        # the graded question, asked by the user's app
        asked("Write a Python function that returns the n-th Fibonacci number iteratively."),
        # the judge's opening typed before words of one's own
        asked(JUDGE[: JUDGE.index("\n\n")] + "\n\nWrite a Fibonacci function in Python."),
        # the judge's request, then a turn more
        {
            "model": "auto",
            "messages": [
                {"role": "user", "content": JUDGE},
                {"role": "assistant", "content": '{"verdict": "A"}'},
                {"role": "user", "content": "Why?"},
            ],
        },
    ],
)
def test_a_judges_words_outside_its_request_are_read_by_the_model(body: dict[str, Any]) -> None:
    judged = judged_text(body["messages"])
    assert judged is None or not grades(judged)
    assert_read_by_model(body, GRADER_READING)
