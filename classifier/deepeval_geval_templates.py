"""deepeval's `GEval` judge's templates, as deepeval 4.3.1 renders them (`classifier.deepeval`).

GEval asks for its evaluation steps, then for its result (plain, with a rubric or strict):
a judge of any criteria, kept apart from the RAG metrics' templates
(`classifier.deepeval_templates`). Each is the metric's Jinja template
(`deepeval/metrics/*/templates/*.txt`) rendered by `deepeval.templates.resolve_template`
with `multimodal=False` and every value a placeholder "{{name}}": the texts between them are
deepeval's, character for character.
"""

from __future__ import annotations

GEVAL_STEPS = (
    "Given an evaluation criteria which outlines how you should judge the "
    "{{parameters}}, generate 3-4 concise evaluation steps based on the criteria below. "
    "You MUST make it clear how to evaluate {{parameters}} in relation to one another.\n"
    "\n"
    "\n"
    "\n"
    "Evaluation Criteria:\n"
    "{{criteria}}\n"
    "\n"
    "**\n"
    'IMPORTANT: Please make sure to only return in JSON format, with the "steps" key as '
    "a list of strings. No words or explanation is needed.\n"
    "Example JSON:\n"
    "{\n"
    '  "steps": <list_of_strings>\n'
    "}\n"
    "**\n"
    "\n"
    "JSON:"
)

GEVAL_RESULTS = (
    "You are an evaluator. Given the following evaluation steps, assess the response "
    "below and return a JSON object with two fields:\n"
    "\n"
    '- `"score"`: an integer between {{low}} and {{high}}, with {{high}} indicating '
    "strong alignment with the evaluation steps and {{low}} indicating no alignment.\n"
    '- `"reason"`: a brief explanation for why the score was given. This must mention '
    "specific strengths or shortcomings, referencing relevant details from the input. Do "
    "**not** quote the score itself in the explanation.\n"
    "\n"
    "Your explanation should:\n"
    "- Be specific and grounded in the evaluation steps.\n"
    "- Mention key details from the test case parameters.\n"
    "- Be concise, clear, and focused on the evaluation logic.\n"
    "\n"
    "\n"
    "Only return valid JSON. Do **not** include any extra commentary or text.\n"
    "\n"
    "---\n"
    "\n"
    "Evaluation Steps:\n"
    "{{evaluation_steps}}\n"
    "\n"
    "Test Case:\n"
    "{{test_case_content}}\n"
    "\n"
    "Parameters:\n"
    "{{parameters}}\n"
    "\n"
    "\n"
    "---\n"
    "**Example JSON:**\n"
    "{\n"
    '  "reason": "your concise and informative reason here",\n'
    '  "score": {{low}}\n'
    "}\n"
    "\n"
    "JSON:"
)

GEVAL_RUBRIC_RESULTS = (
    "You are an evaluator. Given the following evaluation steps and rubric, assess the "
    "response below and return a JSON object with two fields:\n"
    "\n"
    '- `"score"`: an integer between {{low}} and {{high}}, based on the rubric provided.\n'
    '- `"reason"`: a brief explanation for why the score was given. This must mention '
    "specific strengths or shortcomings, referencing relevant details from the input. Do "
    "**not** quote the score itself in the explanation.\n"
    "\n"
    "Your explanation should:\n"
    "- Be specific and grounded in the evaluation steps and rubric.\n"
    "- Mention key details from the test case parameters.\n"
    "- Be concise, clear, and focused on the evaluation logic.\n"
    "\n"
    "\n"
    "Only return valid JSON. Do **not** include any extra commentary or text.\n"
    "\n"
    "---\n"
    "\n"
    "Evaluation Steps:\n"
    "{{evaluation_steps}}\n"
    "\n"
    "Rubric:\n"
    "{{rubric}}\n"
    "\n"
    "Test Case:\n"
    "{{test_case_content}}\n"
    "\n"
    "Parameters:\n"
    "{{parameters}}\n"
    "\n"
    "\n"
    "---\n"
    "**Example JSON:**\n"
    "{\n"
    '  "reason": "your concise and informative reason here",\n'
    '  "score": {{low}}\n'
    "}\n"
    "\n"
    "JSON:"
)

GEVAL_STRICT_RESULTS = (
    "Given the evaluation steps, return a JSON with two keys: 1) a `score` key that is "
    "STRICTLY EITHER 1 (follows the criteria 100% outlined in the evaluation steps), OR "
    "0 (does not follow the criteria), and 2) a `reason` key, a reason for the given "
    "score, but DO NOT QUOTE THE SCORE in your reason. Please mention specific "
    "information from {{parameters}} in your reason, but be very concise with it!\n"
    "\n"
    "\n"
    "\n"
    "Evaluation Steps:\n"
    "{{evaluation_steps}}\n"
    "\n"
    "{{test_case_content}}\n"
    "\n"
    "**\n"
    'IMPORTANT: Please make sure to only return in JSON format, with the "score" and '
    '"reason" key. No words or explanation is needed.\n'
    "\n"
    "Example JSON:\n"
    "{\n"
    '  "reason": "The text does not follow the evaluation steps provided.",\n'
    '  "score": 0\n'
    "}\n"
    "**\n"
    "\n"
    "JSON:"
)
