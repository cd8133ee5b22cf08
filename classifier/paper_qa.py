"""paper-qa's own requests: its evidence summaries and its answer, read by the question they
quote.

paper-qa (2026.8.12, Apache-2.0: `paperqa/prompts.py`, `paperqa/core.py`, `paperqa/docs.py`)
answers a question over the user's papers in many requests: one evidence summary per
retrieved chunk (`core.py:251-262`), then the answer written from them (`docs.py:662-676`).
Each quotes the question after its template's "Question:" marker:

- the summary, by default (`prompts.use_json`, `docs.py:540-548`): `summary_json_system_prompt`
  (`prompts.py:108`, or its multimodal twin, `prompts.py:120`) as the system message, and
  `summary_json_prompt` (`prompts.py:3`), "Excerpt from {citation}\\n\\n---\\n\\n{text}
  \\n\\n---\\n\\nQuestion: {question}", as the user message;
- the summary without JSON: `summary_prompt` (`prompts.py:6`), the same excerpt and question
  inside "Summarize the excerpt below to help answer a question." and its instructions, as
  the user message under the app's system prompt (`default_system_prompt` unless set);
- the answer: `qa_prompt` (`prompts.py:52`), "Answer the question below with the context.",
  the summaries as its context, the question, then its instructions on citation keys, as
  the user message under the app's system prompt.

Read as written, the summaries followed the excerpt: a biology chunk writing or reasoning
(cloud), a chunk of Rust coding (local), a proof math (cloud), whatever the question, so one
question's summaries went to both backends; and the answer, paper-qa's most demanding call,
was instruction (0.53-0.83, local) for every question, a math one too (found running
paper-qa against the router). Each is read by its question (`question_ask`): the text after
the template's last `MARKER`, up to its fixed text after the question, read as the question
asked alone would be, as gpt-researcher's task in its sub-query prompt is
(`classifier.gpt_researcher`): a math question's summaries and answer go to the cloud, a
coding one's stay local, and all of one question's requests go alike. They key alike too
(`router.conversation.conversation_key` hashes the first ask as read): one question's
summaries are one conversation under one system prompt, not one a chunk.

When a summary's reply cannot be parsed (`core.py:306-350`), paper-qa sends it again with a
user message of its own after it, "In a prior attempt, we failed with this failure
message: ..." (`core.py:214-222`): passed over (`passed_over`), the retry is read by the
question as its first try was; read as its latest ask, its failure message decided.

Its citation request ("Provide the citation for the following text in MLA Format",
`prompts.py:83`) asks for a citation written, and is read as written (writing); so is its
agent's tool choice (`tool_choice: "required"`, a rule's).

Only paper-qa's texts whole, where it sends them: one user message after one system message
at most (the JSON summary's system prompt its own), and its retry after a summary. A chat
that quotes a template's words, or adds its own after them, is read as written; so are a
custom `prompts.qa` or `prompts.summary`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text, role
from classifier.templates import fills, fixed_parts

# The marker before the question in every template that quotes it
MARKER = "\n\n---\n\nQuestion: "
# `summary_json_system_prompt` as formatted (`{{`/`}}` are its JSON example's braces)
SUMMARY_JSON_SYSTEM = (
    "Provide a summary of the relevant information"
    " that could help answer the question based on the excerpt."
    " Your summary, combined with many others,"
    " will be given to the model to generate an answer."
    " Respond with the following JSON format:"
    '\n\n{\n  "summary": "...",\n  "relevance_score": 0-10\n}'
    "\n\nwhere `summary` is relevant information from the text - {summary_length}."
    " `relevance_score` is an integer 0-10 for the relevance of `summary` to the question."
    "\n\nThe excerpt may or may not contain relevant information."
    " If not, leave `summary` empty, and make `relevance_score` be 0."
)
# `summary_json_multimodal_system_prompt` as formatted: the same with `used_images`
SUMMARY_JSON_MULTIMODAL_SYSTEM = (
    "Provide a summary of the relevant information"
    " that could help answer the question based on the excerpt."
    " Your summary, combined with many others,"
    " will be given to the model to generate an answer."
    " Respond with the following JSON format:"
    '\n\n{\n  "summary": "...",\n  "relevance_score": 0-10,\n  "used_images": "..."\n}'
    "\n\nwhere `summary` is relevant information from the text - {summary_length}."
    " `relevance_score` is an integer 0-10 for the relevance of `summary` to the question."
    " `used_images` is a boolean flag indicating"
    " if any images present in a multimodal message were used,"
    " and if no images were present it should be false."
    "\n\nThe excerpt may or may not contain relevant information."
    " If not, leave `summary` empty, and make `relevance_score` be 0."
)
# `summary_json_prompt`'s opening: the JSON summary's user message
EXCERPT_OPENING = "Excerpt from "
# `summary_prompt`, with `summary_json_prompt` inside it
SUMMARY = (
    "Summarize the excerpt below to help answer a question."
    "\n\nExcerpt from {citation}\n\n---\n\n{text}\n\n---\n\nQuestion: {question}\n\n"
    "Do not directly answer the question,"
    " instead summarize to give evidence to help answer the question."
    " Stay detailed; report specific numbers, equations, or direct quotes"
    ' (marked with quotation marks). Reply "Not applicable" if the excerpt is'
    " irrelevant. At the end of your response,"
    " provide an integer score from 1-10 on a newline indicating relevance to question."
    " Do not explain your score."
    "\n\nRelevant Information Summary ({summary_length}):"
)
# `CITATION_KEY_CONSTRAINTS` (`prompts.py:38`), inside `qa_prompt`
_CITATION_KEYS = (
    "## Valid citation examples, only use comma/space delimited parentheticals:\n"
    "- (pqac-d79ef6fa, pqac-0f650d59)\n"
    "- (pqac-d79ef6fa)\n"
    "## Invalid citation examples:\n"
    "- (pqac-d79ef6fa and pqac-0f650d59)\n"
    "- (pqac-d79ef6fa;pqac-0f650d59)\n"
    "- (pqac-d79ef6fa-pqac-0f650d59)\n"
    "- pqac-d79ef6fa and pqac-0f650d59\n"
    "- Example's work (pqac-d79ef6fa)\n"
    "- (pages pqac-d79ef6fa)\n"
    "- Author et al. (2023)"
)
# `qa_prompt`, its "cannot answer" phrase and citation keys in place (`{prior_answer_prompt}`
# is "" or `answer_iteration_prompt_template` filled with the prior answer)
QA = (
    "Answer the question below with the context.\n\n"
    "Context:\n\n{context}\n\n---\n\n"
    "Question: {question}\n\n"
    "Write an answer based on the context. "
    "If the context provides insufficient information reply "
    '"I cannot answer." '
    "For each part of your answer, indicate which sources most support "
    "it via citation keys at the end of sentences, like {example_citation}. "
    "Only cite from the context above and only use the citation keys from the context."
    f"\n\n{_CITATION_KEYS}\n\n"
    "Do not concatenate citation keys, just use them as is. "
    "Write in the style of a scientific article, with concise sentences and "
    "coherent paragraphs. This answer will be used directly, "
    "so do not add any extraneous information.\n\n"
    "{prior_answer_prompt}"
    "Answer ({answer_length}):"
)
# The opening of paper-qa's message after a summary it could not parse (`core.py:214-222`)
RETRY_OPENING = "In a prior attempt, we failed with this failure message: "
PLACEHOLDER = re.compile(
    r"\{(?:summary_length|citation|text|question|context|example_citation"
    r"|prior_answer_prompt|answer_length)\}"
)
_SYSTEMS = (
    fixed_parts(SUMMARY_JSON_SYSTEM, PLACEHOLDER),
    fixed_parts(SUMMARY_JSON_MULTIMODAL_SYSTEM, PLACEHOLDER),
)
# Each template's fixed texts up to the question, and from it on (its tail, which opens right
# after the question)
SUMMARY_HEAD = SUMMARY.split("{citation}", 1)[0]
SUMMARY_TAIL = fixed_parts(SUMMARY.split("{question}", 1)[1], PLACEHOLDER)
QA_HEAD = QA.split("{context}", 1)[0]
QA_TAIL = fixed_parts(QA.split("{question}", 1)[1], PLACEHOLDER)
# How long a question may be: its marker is looked for this far before its end
QUESTION_SPAN = 16_384
# How far from the end of a text-only summary its fixed text after the question is looked for
# (its `{summary_length}`, "about 100 words" by default, at most 1 KiB)
SUMMARY_SPAN = sum(map(len, SUMMARY_TAIL)) + 1_024
# How far past its opening the answer's question is looked for (its context, the summaries,
# comes first): past it, read as written
WITHIN = 262_144


def question_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The content of `message`, the question inside it when it is one of paper-qa's
    summary or answer requests' user message, where paper-qa sends it (`_question`); any
    other content as it is, the very object. `system`: the system prompt of `messages`."""
    content = message.get("content") if isinstance(message, dict) else None
    question = _question(message, messages, system)
    return content if question is None else question


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is paper-qa's retry of a summary
    (`RETRY_OPENING`), the last of three messages after the summary's own two: its own words,
    not an ask. `system`: the system prompt of `messages`."""
    if index != 2 or len(messages) != 3:
        return False
    text = one_text(messages[2])
    if text is None or not text.startswith(RETRY_OPENING):
        return False
    return _question(messages[1], messages[:2], system) is not None


def _question(message: object, messages: Sequence[Any], system: System) -> str | None:
    """The question of `message` when it is the user message of paper-qa's summary or answer
    request `messages` (after its retry too: `passed_over`); None for any other."""
    if role(message) != "user":
        return None
    if len(messages) == 3 and passed_over(messages, 2, system):  # its retry: read its first try
        messages = messages[:2]
    if not messages or messages[-1] is not message or len(messages) > 2:
        return None
    if len(messages) == 2 and role(messages[0]) != "system":
        return None
    text = one_text(message)
    if text is None:
        return None
    if text.startswith(EXCERPT_OPENING):
        json_system = len(messages) == 2 and system.prompt is not None
        return _last_question(text, len(text)) if json_system and _json(system.prompt) else None
    if text.startswith(SUMMARY_HEAD):
        end = text.rfind(SUMMARY_TAIL[0], max(0, len(text) - SUMMARY_SPAN))
        return _before_tail(text, end, SUMMARY_TAIL)
    if text.startswith(QA_HEAD):
        start = len(QA_HEAD)
        return _before_tail(text, text.find(QA_TAIL[0], start, start + WITHIN), QA_TAIL)
    return None


def _json(prompt: str | None) -> bool:
    """Whether `prompt` is the JSON summary's system prompt (either of `_SYSTEMS`)."""
    return prompt is not None and any(fills(prompt, parts) for parts in _SYSTEMS)


def _before_tail(text: str, end: int, tail: tuple[str, ...]) -> str | None:
    """The question of `text` that ends at `end`, where the template's `tail` opens (-1: not
    found), when `tail` fills the rest; None otherwise."""
    if end < 0 or not fills(text[end:], tail):
        return None
    return _last_question(text, end)


def _last_question(text: str, end: int) -> str | None:
    """The text after the last `MARKER` before `end` in `text`, within `QUESTION_SPAN`; None
    without one, or for an empty question."""
    at = text.rfind(MARKER, max(0, end - QUESTION_SPAN - len(MARKER)), end)
    if at < 0:
        return None
    question = text[at + len(MARKER) : end]
    return question if question.strip() else None
