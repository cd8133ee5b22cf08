"""evalscope's multiple-choice prompts and its LLM judge's requests.

evalscope (1.14.1, Apache-2.0: `evalscope/utils/multi_choices.py`,
`evalscope/metrics/judge/llm_judge.py`, `evalscope/api/judge/contracts.py`) writes each
multiple-choice sample of about 57 benchmarks (MMLU, ARC, GPQA, HellaSwag...) into inspect_ai's
templates with `[LETTER]` where inspect_ai writes `$LETTER`, and into Chinese ones of the same
form (`CHINESE_*`). Read whole, the directive decided: all 5 questions of a live ARC run (an
integral, a prime, Python, SQL, science) were instruction 0.81-0.96 and stayed local; with
inspect_ai's wording, read by their question, math 0.96 / 0.93 and coding 0.998 / 0.81. So
they are read by their question and choices as inspect_ai's are (`MC_TEMPLATES`, read by
`classifier.inspect_ai.question_ask`), told exactly: a few-shot prompt (the examples before the
directive) is read as written.

Its LLM judge (`--judge-strategy llm`) sends the graded answer inside its template, one user
message (a system message first when one is configured), the reply's JSON contract appended:
read whole, the 5 judges of a live run were what they graded (3 coding, 2 instruction, all
local). They are a grader's requests (`grades`), judged by rule
(`classifier.rules.rule_intent`), as promptfoo's, inspect_ai's, deepeval's and ragas's are.
"""

from __future__ import annotations

import re

from classifier.templates import fills_any, fixed_parts, opening_texts

SINGLE_ANSWER_TEMPLATE = r"""
Answer the following multiple choice question. The entire content of your response should be of the following format: 'ANSWER: [LETTER]' (without quotes) where [LETTER] is one of {letters}.

{question}

{choices}
""".strip()  # noqa: E501

SINGLE_ANSWER_TEMPLATE_COT = r"""
Answer the following multiple choice question. The last line of your response should be of the following format: 'ANSWER: [LETTER]' (without quotes) where [LETTER] is one of {letters}. Think step by step before answering.

{question}

{choices}
""".strip()  # noqa: E501

MULTIPLE_ANSWER_TEMPLATE = r"""
Answer the following multiple choice question where multiple answers may be correct. The entire content of your response should be of the following format: 'ANSWER: [LETTERS]' (without quotes) where [LETTERS] is one or more of {letters}.

{question}

{choices}
""".strip()  # noqa: E501

MULTIPLE_ANSWER_TEMPLATE_COT = r"""
Answer the following multiple choice question where multiple answers may be correct. The last line of your response should be of the following format: 'ANSWER: [LETTERS]' (without quotes) where [LETTERS] is one or more of {letters}. Think step by step before answering.

{question}

{choices}
""".strip()  # noqa: E501

CHINESE_SINGLE_ANSWER_TEMPLATE = r"""回答下面的单项选择题，请选出其中的正确答案。你的回答的全部内容应该是这样的格式："答案：[LETTER]"（不带引号），其中 [LETTER] 是 {letters} 中的一个。

问题：{question}
选项：
{choices}
""".lstrip()  # noqa: E501

CHINESE_SINGLE_ANSWER_TEMPLATE_COT = r"""回答下面的单项选择题，请选出其中的正确答案。你的回答的最后一行应该是这样的格式："答案：[LETTER]"（不带引号），其中 [LETTER] 是 {letters} 中的一个。请在回答前进行一步步思考。

问题：{question}
选项：
{choices}
""".lstrip()  # noqa: E501

CHINESE_MULTIPLE_ANSWER_TEMPLATE = r"""回答下面的多项选择题，请选出其中的所有正确答案。你的回答的全部内容应该是这样的格式："答案：[LETTERS]"（不带引号），其中 [LETTERS] 是 {letters} 中的一个或多个。
问题：{question}
选项：
{choices}
""".lstrip()  # noqa: E501

CHINESE_MULTIPLE_ANSWER_TEMPLATE_COT = r"""回答下面的多项选择题，请选出其中的所有正确答案。你的回答的最后一行应该是这样的格式："答案：[LETTERS]"（不带引号），其中 [LETTERS] 是 {letters} 中的一个或多个。请在回答前进行一步步思考。

问题：{question}
选项：
{choices}
""".lstrip()  # noqa: E501

MC_TEMPLATES = (
    SINGLE_ANSWER_TEMPLATE,
    SINGLE_ANSWER_TEMPLATE_COT,
    MULTIPLE_ANSWER_TEMPLATE,
    MULTIPLE_ANSWER_TEMPLATE_COT,
    CHINESE_SINGLE_ANSWER_TEMPLATE,
    CHINESE_SINGLE_ANSWER_TEMPLATE_COT,
    CHINESE_MULTIPLE_ANSWER_TEMPLATE,
    CHINESE_MULTIPLE_ANSWER_TEMPLATE_COT,
)

DEFAULT_PROMPT_TEMPLATE = """Your job is to look at a question, a gold target, and a predicted answer, and decide whether the predicted answer is correct or incorrect.

[Question]
{question}

[Reference Answer]
{gold}

[Predicted Answer]
{pred}

Evaluate the model's answer based on correctness compared to the reference answer.
Grade the predicted answer of this new question as one of:
A: CORRECT
B: INCORRECT"""  # noqa: E501

DEFAULT_NUMERIC_SCORE_TEMPLATE = """Please act as an impartial judge and evaluate the quality of the response provided by an AI assistant to the user question displayed below. Your evaluation should consider factors such as the helpfulness, relevance, accuracy, depth, creativity, and level of detail of the response.
Begin your evaluation by providing a short explanation. Be as objective as possible.
Rate the response on a scale of 0 (worst) to 1 (best).

[Question]
{question}

[Response]
{pred}"""  # noqa: E501

# `OutputContract.instruction()`, appended to a judge's template: its schema's fields filled
CONTRACT = (
    "\n\nReply with a single JSON object and no other text, containing these required keys"
    " (additional keys are allowed):\n{fields}"
)
_PLACEHOLDER = re.compile(r"\{(?:question|gold|pred|fields)\}")
JUDGES = tuple(
    fixed_parts(template + contract, _PLACEHOLDER)
    for template in (DEFAULT_PROMPT_TEMPLATE, DEFAULT_NUMERIC_SCORE_TEMPLATE)
    for contract in (CONTRACT, "")
)
_HEADS = opening_texts(JUDGES)


def grades(text: str) -> bool:
    """Whether a judge's text (`classifier.templates.judged_text`: one user message after two
    system messages at most, the judge's configured one) is one of `JUDGES` filled: the
    question, the reference and the predicted answer, with or without the reply's contract."""
    return fills_any(text, JUDGES, _HEADS)
