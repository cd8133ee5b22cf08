"""mem0's memory calls are instruction by one rule, whatever the chat they hold
(`classifier.mem0`).

Read as written, mem0 2.2.1's extraction on each `Memory.add()` followed the chat inside its
sections: a user's facts tool_calling 0.42 (local), a proof chat math, on the cloud, at some
7,800 prompt tokens a call (found in a live review of mem0 against the router). The bodies
are the ones mem0 sent, and 1.x's two calls built with 2.2.1's own functions
(`tests/fixtures/mem0ai-2.2.1.md`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier.fixed import MEMORY_EXTRACTION_READING
from classifier.rules import MEMORY_EXTRACTION
from tests import recorded
from tests.classifier.fixed_readings import (
    assert_decided_by,
    assert_explained_by,
    assert_read_by_model,
)

FIXTURES = recorded.FIXTURES / "mem0ai-2.2.1"
CAPTURED = [
    "extraction-first.json",
    "extraction-second.json",
    "extraction-agent.json",
    "procedural.json",
    "v1-facts.json",
    "v1-update.json",
]
FACTS = "I'm a vegetarian and I'm allergic to nuts. I live in Lisbon."
PROOF = "Prove that the square root of 2 is irrational."


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


def instruction_by_rule(body: dict[str, Any]) -> None:
    """`body` is instruction by `MEMORY_EXTRACTION`."""
    assert_decided_by(body, MEMORY_EXTRACTION_READING, MEMORY_EXTRACTION, "instruction", 0.97)
    assert_explained_by(body, MEMORY_EXTRACTION, "instruction")


def read_as_written(body: dict[str, Any]) -> None:
    """`body` is no request of mem0's: no rule decides it, the model does."""
    assert_read_by_model(body, MEMORY_EXTRACTION_READING)


def with_chat(name: str, old: str, new: str) -> dict[str, Any]:
    """The recorded `name` with the words `old` of its chat replaced by `new`."""
    body = copy.deepcopy(captured(name))
    message = body["messages"][-1]
    assert old in message["content"]
    message["content"] = message["content"].replace(old, new)
    return body


@pytest.mark.parametrize("name", CAPTURED)
def test_every_request_is_instruction_by_the_rule(name: str) -> None:
    instruction_by_rule(captured(name))


@pytest.mark.parametrize("ask", [PROOF, "Write a Python function that reverses a linked list."])
def test_the_chats_topic_does_not_route_it(ask: str) -> None:
    """A proof chat's extraction was math, on the cloud (found in review)."""
    instruction_by_rule(with_chat("extraction-first.json", FACTS, ask))
    instruction_by_rule(with_chat("v1-facts.json", FACTS, ask))


def test_the_bodies_are_mem0s() -> None:
    """Its texts, quoted from mem0 2.2.1's `mem0/configs/prompts.py`, where it puts them."""
    first = captured("extraction-first.json")["messages"]
    assert first[0]["content"].startswith("\n\n# ROLE\n\nYou are a Memory Extractor")
    assert len(first[0]["content"]) == 33_653
    assert first[1]["content"].startswith("## Summary\n")
    assert first[1]["content"].endswith("\n\n# Output:")
    assert captured("extraction-first.json")["response_format"] == {"type": "json_object"}
    procedural = captured("procedural.json")["messages"]
    assert procedural[-1] == {
        "role": "user",
        "content": "Create procedural memory of the above conversation.",
    }
    update = captured("v1-update.json")["messages"]
    assert len(update) == 1 and update[0]["content"].startswith("You are a smart memory manager")


def test_its_texts_elsewhere_are_read_as_written() -> None:
    """Only mem0's texts where it puts them: the chat without mem0's system prompt, its
    system prompt over a user's own question, its procedural prompt without its ask last,
    its update's instructions with words after them."""
    sections = captured("extraction-first.json")["messages"][1]
    read_as_written({"model": "auto", "messages": [sections]})
    other = {"role": "system", "content": "You are a helpful assistant."}
    read_as_written({"model": "auto", "messages": [other, sections]})
    asked = copy.deepcopy(captured("extraction-first.json"))
    asked["messages"][1]["content"] = PROOF
    read_as_written(asked)
    unasked = copy.deepcopy(captured("procedural.json"))
    unasked["messages"] = unasked["messages"][:-1]
    read_as_written(unasked)
    more = copy.deepcopy(captured("v1-update.json"))
    more["messages"][0]["content"] += "\nAlso, what is 17 * 23?"
    read_as_written(more)
