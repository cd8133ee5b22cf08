"""deepeval's judges' requests: a metric's fixed template around what it grades.

deepeval (4.3.1, Apache-2.0: `deepeval/metrics/*/templates/*.txt`, Jinja templates rendered
by `deepeval.templates.resolve_template`) grades a test case with a model through prompts of
its own, one user message each: `AnswerRelevancyMetric` (its statements, verdicts and
reason), `FaithfulnessMetric` (truths, claims, verdicts, reason) and `GEval` (its evaluation
steps, then its result, plain, with a rubric or strict). Read as written, every one of a
live review's 12 was instruction, local (0.36-0.69), decided by the template's own sentence
"IMPORTANT: Please make sure to only return in JSON format, ...", whatever was graded: a
judge of a code answer on the local model that wrote it (found running deepeval against the
router). One judge for every graded answer is what an eval wants: each of these requests,
its text exactly a template's with its values filled (`grades`), is judged by rule
(`classifier.rules.rule_intent`), as promptfoo's and inspect_ai's graders are. The test
case's own answer, written by the user's app, is no template of deepeval's: it is read as
written, as is a metric's template a user rewrote (`evaluation_template=`).

The templates are the text-only renderings (`multimodal=False`), each placeholder written
"{{name}}": a test case's values, GEval's parameters, criteria and score range, Faithfulness'
truths limit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.deepeval_templates import (
    ANSWER_RELEVANCY_REASON,
    ANSWER_RELEVANCY_STATEMENTS,
    ANSWER_RELEVANCY_VERDICTS,
    FAITHFULNESS_CLAIMS,
    FAITHFULNESS_REASON,
    FAITHFULNESS_TRUTHS,
    FAITHFULNESS_VERDICTS,
    GEVAL_RESULTS,
    GEVAL_RUBRIC_RESULTS,
    GEVAL_STEPS,
    GEVAL_STRICT_RESULTS,
)
from classifier.templates import fills_any, fixed_parts, judged_text, opening_texts

_PLACEHOLDER = re.compile(r"\{\{\w+\}\}")
TEMPLATES = (
    ANSWER_RELEVANCY_STATEMENTS,
    ANSWER_RELEVANCY_VERDICTS,
    ANSWER_RELEVANCY_REASON,
    FAITHFULNESS_TRUTHS,
    FAITHFULNESS_CLAIMS,
    FAITHFULNESS_VERDICTS,
    FAITHFULNESS_REASON,
    GEVAL_STEPS,
    GEVAL_RESULTS,
    GEVAL_RUBRIC_RESULTS,
    GEVAL_STRICT_RESULTS,
)
JUDGES = tuple(fixed_parts(template, _PLACEHOLDER) for template in TEMPLATES)
_HEADS = opening_texts(JUDGES)


def grades(messages: Sequence[Any]) -> bool:
    """Whether `messages` are a request of deepeval's judges: its text one of `TEMPLATES`
    filled (as a string, or the one text part deepeval's OpenAI model sends), in one user
    message after two system messages at most (`classifier.templates.judged_text`)."""
    text = judged_text(messages)
    return text is not None and fills_any(text, JUDGES, _HEADS)
