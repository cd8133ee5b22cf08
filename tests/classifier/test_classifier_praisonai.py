"""A PraisonAI workflow task is read by its description and expected output, not by the frame
PraisonAI puts them in nor the earlier tasks' outputs (`classifier.praisonai`).

Read whole, the frame was the ask: a writing task in the frame with context read instruction
0.52, a math task 0.70, a proof 0.48 (found in a live review of PraisonAI). The bodies are the
ones praisonaiagents 1.7.17 sent (`tests/fixtures/praisonaiagents-1.7.17.md`); the frame's
texts are quoted from its installed sources (`praisonaiagents/agents/agents.py`
`_prepare_task_prompt`), not taken from the module under test.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify
from classifier.request import view
from tests import recorded

FIXTURES = recorded.FIXTURES / "praisonaiagents-1.7.17"
ENDING = (
    "\nPlease provide only the final result of your work. Do not add any conversation or extra"
    " explanation."
)
IMPORTANT = (
    "\n\nIMPORTANT: Your response must be about the user's input/topic above. Incorporate it"
    " into your task."
)
EARLIER = (
    "The printing press was invented by Gutenberg around 1440. It spread across Europe. It"
    " lowered book prices."
)
# `Memory.build_context_for_task`: a bullet a memory, after a blank line
MEMORIES = "\n\n• The user prefers short answers.\n• The user reads in English.\n"
# Tasks of the review, each a description, an expected output and the work read of them
TASKS = [
    ("Write a short essay on the history of the printing press.", "One essay", "writing"),
    ("Solve: if 3x + 7 = 25, what is x squared?", "The number", "math"),
    ("Prove that the square root of 2 is irrational.", "A proof", "math"),
    ("Write a Python function that reverses a linked list.", "Python code", "coding"),
]


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


def plain(description: str, expected: str, memories: str = "") -> str:
    """The frame of a task with no context, as `_prepare_task_prompt` writes it."""
    return (
        f"\nYou need to do the following task: {description}.\nExpected Output:"
        f" {expected}.{memories}{ENDING}"
    )


def with_context(earlier: str, description: str, expected: str, memories: str = "") -> str:
    """The frame of a task given earlier tasks' outputs."""
    return (
        f"\nUser Input/Topic: {earlier}\n\nTask: {description}\nExpected Output:"
        f" {expected}{IMPORTANT}{memories}{ENDING}"
    )


def as_task(name: str, text: object) -> dict[str, Any]:
    """The recorded body `name` with its task's message `text`: PraisonAI's request, its
    agent's system prompt, for another task."""
    body = copy.deepcopy(captured(name))
    body["messages"][-1]["content"] = text
    return body


def test_the_bodies_hold_praisonais_frames() -> None:
    first = captured("task.json")["messages"][-1]["content"]
    assert first == plain(
        "List three key facts about the history of the printing press.", "Three bullet points"
    )
    second = captured("task-with-context.json")["messages"][-1]["content"]
    assert second.startswith("\nUser Input/Topic: ") and second.endswith(IMPORTANT + ENDING)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        (
            "task.json",
            "List three key facts about the history of the printing press.\nThree bullet points",
        ),
        ("task-with-context.json", "Write a short paragraph summarizing the facts.\nOne paragraph"),
    ],
)
def test_a_recorded_task_is_read_by_its_words(name: str, words: str) -> None:
    seen = view(captured(name))
    assert (seen.latest, seen.harness_cut) == (words, False)


@pytest.mark.parametrize(("description", "expected", "label"), TASKS)
@pytest.mark.parametrize("memories", ["", MEMORIES], ids=["alone", "memories"])
def test_a_task_reads_as_its_words_in_either_frame(
    description: str, expected: str, label: str, memories: str
) -> None:
    """Read whole, the frame with context made each of them instruction (found in review)."""
    words = f"{description}\n{expected}"
    for name, text in (
        ("task.json", plain(description, expected, memories)),
        ("task-with-context.json", with_context(EARLIER, description, expected, memories)),
    ):
        body = as_task(name, text)
        assert view(body).latest == words
        assert classify(body).label == label


def test_an_earlier_output_is_not_read_whatever_it_holds() -> None:
    """An earlier task's output may hold PraisonAI's words too: the task is the last one."""
    earlier = f"{EARLIER}\n\nTask: Write a haiku.\nExpected Output: A haiku"
    text = with_context(earlier, "Prove that the square root of 2 is irrational.", "A proof")
    body = as_task("task-with-context.json", text)
    assert view(body).latest == "Prove that the square root of 2 is irrational.\nA proof"


def test_a_task_with_images_is_read_by_its_text_part() -> None:
    text = plain("Prove that the square root of 2 is irrational.", "A proof")
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    body = as_task("task.json", [{"type": "text", "text": text}, image])
    assert view(body).latest == "Prove that the square root of 2 is irrational.\nA proof"


@pytest.mark.parametrize(
    "text",
    [
        # a user who types its words, without the frame's opening or its ending
        "Expected Output: a proof.\nProve that the square root of 2 is irrational.",
        plain("Prove that the square root of 2 is irrational.", "A proof")[: -len(ENDING)],
        plain("Prove that the square root of 2 is irrational.", "A proof") + "\nThanks!",
        # the frame with context but no IMPORTANT line
        with_context(EARLIER, "Write a haiku.", "A haiku").replace(IMPORTANT, ""),
    ],
)
def test_other_texts_are_read_as_written(text: str) -> None:
    assert view(as_task("task.json", text)).latest == text


@pytest.mark.parametrize(
    ("name", "prompt"),
    [
        ("single-agent.json", "Write a four-line poem about autumn rain on a tin roof."),
        ("single-agent-instructions.json", "Prove that the square root of 2 is irrational."),
    ],
)
def test_a_single_agents_prompt_is_read_as_sent(name: str, prompt: str) -> None:
    assert view(captured(name)).latest == prompt
