"""inspect_ai's multiple-choice prompts and its graders' requests.

inspect_ai (0.3.285, MIT: `inspect_ai/solver/_multiple_choice.py`,
`inspect_ai/scorer/_model.py`) sends each multiple-choice sample through its
`multiple_choice()` solver, which writes the question and its choices into a fixed template,
an answer-format directive first ("Answer the following multiple choice question. The entire
content of your response should be of the following format: 'ANSWER: $LETTER' ..."). Read
whole, the directive decided: all 10 questions of a live review (physics, calculus, logic,
Python, history) were instruction 0.70-0.82 and stayed local; without it they were
reasoning, math, coding as their content is. So of a text that is one of the templates filled
(`MC_TEMPLATES`: the single-answer and the multiple-answer one, each with its
chain-of-thought variant), the question and its choices are the ask (`question_ask`); the
directive is the tool's. Told exactly: its `{letters}` are "A,B,..." as many as the choices
"A) ...", "B) ..." after the question; a user who types "Answer the following multiple
choice question" before words of their own is asking them as written.

Its model-graded scorers (`model_graded_qa()`, `model_graded_fact()`) send the graded
answer inside a judge's template, one user message: read whole, a judge was what it graded
(a code answer's coding, on the local model that wrote it). They are a grader's requests
(`grades`), judged by rule (`classifier.rules.rule_intent`), whatever they grade.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from classifier import evalscope
from classifier.message import per_text
from classifier.templates import fills, fills_any, fixed_parts, opening_texts, text_of, with_text

SINGLE_ANSWER_TEMPLATE = r"""
Answer the following multiple choice question. The entire content of your response should be of the following format: 'ANSWER: $LETTER' (without quotes) where LETTER is one of {letters}.

{question}

{choices}
""".strip()  # noqa: E501

SINGLE_ANSWER_TEMPLATE_COT = r"""
Answer the following multiple choice question. The last line of your response should be of the following format: 'ANSWER: $LETTER' (without quotes) where LETTER is one of {letters}. Think step by step before answering.

{question}

{choices}
""".strip()  # noqa: E501

MULTIPLE_ANSWER_TEMPLATE = r"""
Answer the following multiple choice question where multiple answers may be correct. The entire content of your response should be of the following format: 'ANSWER: $LETTERS' (without quotes) where LETTERS is one or more of {letters}.

{question}

{choices}
""".strip()  # noqa: E501

MULTIPLE_ANSWER_TEMPLATE_COT = r"""
Answer the following multiple choice question where multiple answers may be correct. The last line of your response should be of the following format: 'ANSWER: $LETTERS' (without quotes) where LETTERS is one or more of {letters}. Think step by step before answering.

{question}

{choices}
""".strip()  # noqa: E501

MC_TEMPLATES = (
    SINGLE_ANSWER_TEMPLATE,
    SINGLE_ANSWER_TEMPLATE_COT,
    MULTIPLE_ANSWER_TEMPLATE,
    MULTIPLE_ANSWER_TEMPLATE_COT,
)

DEFAULT_MODEL_GRADED_QA_TEMPLATE = """
You are assessing a submitted answer on a given task based on a criterion. Here is the data:

[BEGIN DATA]
***
[Task]: {question}
***
[Submission]: {answer}
***
[Criterion]: {criterion}
***
[END DATA]

Does the submission meet the criterion?

{instructions}
"""

DEFAULT_MODEL_GRADED_FACT_TEMPLATE = """
You are comparing a submitted answer to an expert answer on a given question. Here is the data:

[BEGIN DATA]
************
[Question]: {question}
************
[Expert]: {criterion}
************
[Submission]: {answer}
************
[END DATA]

Compare the factual content of the submitted answer with the expert answer. Ignore any differences in style, grammar, or punctuation.

Does the submission contain the content in the expert answer?

{instructions}
"""  # noqa: E501

_PLACEHOLDER = re.compile(r"\{(?:question|answer|criterion|instructions)\}")
GRADER_TEMPLATES = tuple(
    fixed_parts(template, _PLACEHOLDER)
    for template in (DEFAULT_MODEL_GRADED_QA_TEMPLATE, DEFAULT_MODEL_GRADED_FACT_TEMPLATE)
)
_HEADS = opening_texts(GRADER_TEMPLATES)


class _Directive(NamedTuple):
    """A multiple-choice template around its placeholders: `before` its `{letters}`, `after`
    them to its `{question}`, `choices` between the question and its choices, `tail` after
    them ("" but for evalscope's Chinese templates, "\\n")."""

    before: str
    after: str
    choices: str
    tail: str


def _split(template: str) -> _Directive:
    """A multiple-choice template's fixed texts (`_Directive`)."""
    before, rest = template.split("{letters}")
    after, rest = rest.split("{question}")
    choices, tail = rest.split("{choices}")
    return _Directive(before, after, choices, tail)


_DIRECTIVES = tuple(map(_split, MC_TEMPLATES + evalscope.MC_TEMPLATES))


def answer_character(index: int) -> str:
    """The letter of the `index`th choice, as inspect_ai writes it: A to Z, then 1, 2..."""
    return chr(ord("A") + index) if index < 26 else str(index - 25)


# The most choices a question is read with, and how far past the directive's opening their
# letters may run for them: "A,B,...,Z" then "1,2,..." (`answer_character`), 26 choices in
# 51 characters, 100 in 264 (the bound said 256 and read 97 at most, found in review)
MOST_CHOICES = 100
LETTERS_WITHIN = len(",".join(map(answer_character, range(MOST_CHOICES))))


def question_ask(message: object) -> object:
    """The content of the ask `message` without inspect_ai's multiple-choice directive when
    its text is one of `MC_TEMPLATES` filled, or evalscope's (`classifier.evalscope`): the
    question and its choices, as a string or in the text part
    (`classifier.templates.with_text`); else the content as sent (the very object)."""
    sent = message.get("content") if isinstance(message, dict) else None
    text = text_of(sent)
    asked = _question(text) if text is not None else None
    return sent if asked is None else with_text(sent, asked)


@per_text
def _question(text: str) -> str | None:
    """The question and its choices of a text that is one of `_DIRECTIVES`' filled; None
    for any other. Read once for a request (`classifier.message.per_text`: the classifier,
    the conversation key and the ledger each ask)."""
    for before, after, choices, tail in _DIRECTIVES:
        if not text.startswith(before):
            continue
        stop = text.find(after, len(before), len(before) + LETTERS_WITHIN + len(after))
        letters = text[len(before) : stop].split(",") if stop >= 0 else []
        if not letters or letters != [answer_character(i) for i in range(len(letters))]:
            continue
        start = stop + len(after)
        marks = (f"{choices}{letters[0]}) ", *(f"\n{letter}) " for letter in letters[1:]))
        if fills(text, (text[:start], *marks, tail)):
            return text[start:]
    return None


def grades(text: str) -> bool:
    """Whether a judge's text (`classifier.templates.judged_text`: one user message after two
    system messages at most, a model's configured system message) is one of
    `GRADER_TEMPLATES` filled (the question, the answer, the criterion and the instructions,
    the default or a task's own)."""
    return fills_any(text, GRADER_TEMPLATES, _HEADS)
