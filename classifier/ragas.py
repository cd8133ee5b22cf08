"""ragas's judges' requests: a metric's instruction in ragas's prompt frame.

ragas (0.4.3, Apache-2.0: `ragas/prompt/pydantic_prompt.py`, `ragas/prompt/metrics/
base_prompt.py`, `ragas/metrics/_faithfulness.py`, `_answer_relevance.py`,
`_aspect_critic.py`, `ragas/metrics/collections/*/util.py`) writes each metric's request as
one frame: the metric's instruction, "Please return the output in a JSON format that
complies with the following schema ...", its output's schema, its examples, and "Now perform
the same with the following input\\ninput: {...}\\nOutput: ". Read as written, a judge was
what its instruction and the graded answer read: Faithfulness' statements and verdicts and
ResponseRelevancy's question instruction, AspectCritic split by what it graded (a code
answer's coding 0.93, others instruction), all local (found running ragas against the
router, its legacy `LangchainLLMWrapper` and its `llm_factory`, which puts instructor's
system message first). One judge for every graded answer is what an eval wants: a request
whose user message is the frame filled around one of the judges' instructions
(`INSTRUCTIONS`, or AspectCritic's with its definition) is judged by rule
(`classifier.rules.rule_intent`), as promptfoo's and inspect_ai's graders are. Only those:
the frame is ragas's for any prompt (its test-set generation too), and the test case's own
answer, written by the user's app, is read as written.
"""

from __future__ import annotations

import re

from classifier.templates import fills_any, fixed_parts, opening_texts

# Faithfulness' statement generator, legacy and `collections`
STATEMENTS = (
    "Given a question and an answer, analyze the complexity of each sentence in the answer."
    " Break down each sentence into one or more fully understandable statements. Ensure that"
    " no pronouns are used in any statement."
)
# Faithfulness' verdicts on those statements (the same in both)
NLI_STATEMENTS = (
    "Your task is to judge the faithfulness of a series of statements based on a given"
    " context. For each statement you must return verdict as 1 if the statement can be"
    " directly inferred based on the context or 0 if the statement can not be directly"
    " inferred based on the context."
)
RESPONSE_RELEVANCE = (
    "Generate a question for the given answer and Identify if answer is noncommittal. Give"
    " noncommittal as 1 if the answer is noncommittal and 0 if the answer is committal. A"
    " noncommittal answer is one that is evasive, vague, or ambiguous. For example, \"I don't"
    ' know" or "I\'m not sure" are noncommittal answers'
)
ANSWER_RELEVANCE = (
    "Generate a question for the given answer and identify if the answer is noncommittal.\n"
    "Give noncommittal as 1 if the answer is noncommittal (evasive, vague, or ambiguous) and 0"
    " if the answer is substantive.\n"
    'Examples of noncommittal answers: "I don\'t know", "I\'m not sure", "It depends".'
)
# AspectCritic's, its user's definition after it
ASPECT_CRITIC = (
    "Evaluate the Input based on the criterial defined. Use only 'Yes' (1) and 'No' (0) as"
    " verdict.\nCriteria Definition: {definition}"
)
INSTRUCTIONS = (
    STATEMENTS + " Format the outputs in JSON.",
    STATEMENTS,
    NLI_STATEMENTS,
    RESPONSE_RELEVANCE,
    ANSWER_RELEVANCE,
    ASPECT_CRITIC,
)
# The frame around an instruction (`PydanticPrompt.to_string`, `BasePrompt.to_string`): its
# output's schema, its examples ("" when none) and the input's JSON are filled
FRAME = (
    "{instruction}\n"
    "Please return the output in a JSON format that complies with the following schema as"
    " specified in JSON Schema:\n"
    "{schema}Do not use single quotes in your response but double quotes,properly escaped"
    " with a backslash.\n"
    "{examples}\n"
    "-----------------------------\n"
    "\n"
    "Now perform the same with the following input\n"
    "input: {input}\n"
    "Output: "
)
_PLACEHOLDER = re.compile(r"\{(?:definition|schema|examples|input)\}")
JUDGES = tuple(
    fixed_parts(FRAME.replace("{instruction}", instruction), _PLACEHOLDER)
    for instruction in INSTRUCTIONS
)
_HEADS = opening_texts(JUDGES)


def grades(text: str) -> bool:
    """Whether a judge's text (`classifier.templates.judged_text`: one user message after two
    system messages at most, instructor's under `llm_factory` or a model's own) is ragas's
    frame filled around one of `INSTRUCTIONS` (`JUDGES`)."""
    return fills_any(text, JUDGES, _HEADS)
