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

from classifier.deepeval_geval_templates import (
    GEVAL_RESULTS,
    GEVAL_RUBRIC_RESULTS,
    GEVAL_STEPS,
    GEVAL_STRICT_RESULTS,
)
from classifier.deepeval_templates import (
    ANSWER_RELEVANCY_REASON,
    ANSWER_RELEVANCY_STATEMENTS,
    ANSWER_RELEVANCY_VERDICTS,
    FAITHFULNESS_CLAIMS,
    FAITHFULNESS_REASON,
    FAITHFULNESS_TRUTHS,
    FAITHFULNESS_VERDICTS,
)
from classifier.templates import fills_any, fixed_parts, opening_texts

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


def grades(text: str) -> bool:
    """Whether a judge's text (`classifier.templates.judged_text`: one user message after two
    system messages at most, a string or the one text part deepeval's OpenAI model sends) is
    one of deepeval's `TEMPLATES` filled."""
    return fills_any(text, JUDGES, _HEADS)
