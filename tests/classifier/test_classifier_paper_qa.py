"""paper-qa's evidence summaries and its answer are read by the question they quote, its
retry of a summary passed over (`classifier.paper_qa`).

Read as written (paper-qa 2026.8.12 against the router), the summaries followed their
excerpt (a biology chunk writing, a Rust chunk coding, a proof math, whatever the question)
and the answer was instruction, local, for every question. The bodies are the ones
paper-qa sent (`tests/fixtures/paper-qa-2026.8.12.md`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify, explain
from classifier.paper_qa import (
    PLACEHOLDER,
    QA,
    QUESTION_SPAN,
    RETRY_OPENING,
    SUMMARY,
    SUMMARY_JSON_MULTIMODAL_SYSTEM,
    SUMMARY_JSON_SYSTEM,
)
from classifier.request import view
from classifier.templates import fills, fixed_parts
from router.conversation import conversation_key
from tests import recorded

FIXTURES = recorded.FIXTURES / "paper-qa-2026.8.12"
QUESTION = (
    "Which material degrades faster in vivo, the boronate hydrogel or the zinc-doped PCL scaffold?"
)
# The excerpt's first line in `summary-json.json` (its chunk of the Okafor paper)
EXCERPT = "Title: 3D-printed PCL scaffolds with zinc doping accelerate bone and cartilage"
SUMMARIES = ["summary-json.json", "summary-json-retry.json", "summary-text.json"]
READ_BY_QUESTION = [*SUMMARIES, "answer.json"]
MATH = "Prove that the square root of 2 is irrational."
CODE = "Write a Python function that parses the CSV format the paper describes."
RUST = (
    "fn steal(&self) -> Option<Task> {\n    let t = self.top.load(Ordering::Acquire);\n"
    "    if t >= self.bottom.load(Ordering::Acquire) { return None; }\n    Some(task)\n}"
)

captured = recorded.loader(FIXTURES)


def asked(name: str, question: str) -> dict[str, Any]:
    """The recorded `name` asking `question` in place of the one it asked."""
    body = copy.deepcopy(captured(name))
    for message in body["messages"]:
        if message["role"] == "user" and QUESTION in message["content"]:
            message["content"] = message["content"].replace(QUESTION, question)
    return body


def alone(name: str, question: str) -> dict[str, Any]:
    """`question` asked alone under the recorded `name`'s system prompt."""
    system = captured(name)["messages"][0]
    return {"model": "auto", "messages": [system, {"role": "user", "content": question}]}


@pytest.mark.parametrize("name", READ_BY_QUESTION)
def test_each_request_is_read_by_its_question(name: str) -> None:
    body = captured(name)
    assert view(body).latest == QUESTION
    assert classify(body) == classify(alone(name, QUESTION))


@pytest.mark.parametrize("name", READ_BY_QUESTION)
@pytest.mark.parametrize(("question", "label"), [(MATH, "math"), (CODE, "coding")])
def test_a_math_or_code_question_routes_its_summaries_and_answer(
    name: str, question: str, label: str
) -> None:
    """Read as written, the summaries went by their excerpt (writing, cloud) and the answer
    was instruction (local), a math question's too (found in review)."""
    body = asked(name, question)
    assert view(body).latest == question
    assert classify(body).label == label


@pytest.mark.parametrize("excerpt", [RUST, MATH])
def test_the_excerpt_does_not_route_a_summary(excerpt: str) -> None:
    """A chunk of Rust went local as coding, a proof to the cloud as math, whatever the
    question: one question's summaries went to both backends."""
    for name in SUMMARIES:
        body = copy.deepcopy(captured(name))
        message = body["messages"][1]
        assert EXCERPT in message["content"]
        message["content"] = message["content"].replace(EXCERPT, excerpt)
        assert view(body).latest == QUESTION
        assert classify(body) == classify(captured(name))


def test_the_multimodal_summary_is_read_by_its_question() -> None:
    """paper-qa's JSON summary under its multimodal system prompt (a chunk with images,
    `summary_json_multimodal_system_prompt`) is read by its question as the text one is, a
    math question's too; the module reads it, and no recorded body held it."""
    multimodal = SUMMARY_JSON_MULTIMODAL_SYSTEM.replace("{summary_length}", "about 100 words")
    body = recorded.with_system(captured("summary-json.json"), multimodal)
    assert view(body).latest == QUESTION
    assert classify(body) == classify(captured("summary-json.json"))
    math = recorded.with_system(asked("summary-json.json", MATH), multimodal)
    assert view(math).latest == MATH
    assert classify(math).label == "math"


def test_the_retry_is_read_as_its_first_try() -> None:
    """Its failure message was read as the latest ask (coding 0.40, found in review)."""
    retry = captured("summary-json-retry.json")
    assert retry["messages"][2]["content"].startswith(RETRY_OPENING)
    assert classify(retry) == classify(captured("summary-json.json"))
    assert classify(asked("summary-json-retry.json", MATH)).label == "math"


def test_one_questions_summaries_are_one_conversation() -> None:
    """Keyed by the question they are read by: each chunk's summary was a conversation of
    its own, and a fallback pinned it alone (finding 6 of the review); another question's
    are another."""
    first = captured("summary-json.json")
    other_chunk = copy.deepcopy(first)
    other_chunk["messages"][1]["content"] = other_chunk["messages"][1]["content"].replace(
        EXCERPT, RUST
    )
    key = conversation_key(first, {}, "c")
    assert conversation_key(other_chunk, {}, "c") == key
    assert conversation_key(captured("summary-json-retry.json"), {}, "c") == key
    assert conversation_key(asked("summary-json.json", MATH), {}, "c") != key


def test_the_agents_tool_choice_is_read_as_written() -> None:
    body = captured("agent-tool-choice.json")
    assert view(body).latest.startswith("Use the tools to answer the question: " + QUESTION)
    intent = classify(body)
    assert (intent.label, intent.source) == ("tool_calling", "rule")
    assert explain(body)["rule"] == "tool_choice forces a call"


def test_the_bodies_are_paper_qas() -> None:
    """Its templates, quoted from paper-qa 2026.8.12's `prompts.py`, fill the requests it
    sent, where it sent them."""
    json_summary = captured("summary-json.json")["messages"]
    assert fills(json_summary[0]["content"], fixed_parts(SUMMARY_JSON_SYSTEM, PLACEHOLDER))
    assert json_summary[1]["content"].startswith("Excerpt from Okafor2024 chunk 1: ")
    assert json_summary[1]["content"].endswith("\n\n---\n\nQuestion: " + QUESTION)
    text = captured("summary-text.json")["messages"]
    assert fills(text[1]["content"], fixed_parts(SUMMARY, PLACEHOLDER))
    answer = captured("answer.json")["messages"]
    assert fills(answer[1]["content"], fixed_parts(QA, PLACEHOLDER))


def test_its_texts_elsewhere_are_read_as_written() -> None:
    """Only paper-qa's requests whole, where it sends them: a chat that pastes a template
    after earlier turns, or adds words after it; a JSON summary's user message under another
    system prompt; a question past `QUESTION_SPAN`; a retry's words after no summary."""
    for name in READ_BY_QUESTION:
        chat = copy.deepcopy(captured(name))
        chat["messages"][1:1] = [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello! How can I help?"},
        ]
        assert view(chat).latest != QUESTION
    for name in ("summary-text.json", "answer.json"):
        more = copy.deepcopy(captured(name))
        more["messages"][1]["content"] += "\nAlso, what is 17 * 23?"
        assert view(more).latest != QUESTION
    other = recorded.with_system(captured("summary-json.json"), "You are a helpful assistant.")
    assert view(other).latest != QUESTION
    long = asked("summary-json.json", "Why? " * (QUESTION_SPAN // 4))
    assert view(long).latest.startswith("Excerpt from ")
    retry = captured("summary-json-retry.json")["messages"][2]
    lone = {"model": "auto", "messages": [{"role": "user", "content": "Hi"}, retry]}
    assert view(lone).latest == retry["content"]


def test_a_prior_answer_in_the_answers_template_is_no_question() -> None:
    """paper-qa's answer iteration puts the prior answer after its instructions
    (`answer_iteration_prompt_template`): the question is still the one before them."""
    body = copy.deepcopy(captured("answer.json"))
    content = body["messages"][1]["content"]
    prior = (
        "You are iterating on a prior answer, with a potentially different context:\n\n"
        f"{RUST}\n\n---\n\nQuestion: {MATH}\n\n"
        "Create a new answer only using context keys and data from the included context."
        " You can not use context keys from the prior answer which are not "
        "also included in the above context.\n\n"
    )
    at = content.rindex("Answer (")
    body["messages"][1]["content"] = content[:at] + prior + content[at:]
    assert view(body).latest == QUESTION
