"""code-puppy's texts (`classifier.code_puppy`): a compaction's summary before its prompt, read
past; its summarizer and title requests, side requests, the title read by its digest's first
user entry. Bodies as code-puppy 0.0.946 sent them (`tests/fixtures/code-puppy-0.0.946.md`)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.ask_text import ask_content
from classifier.code_puppy import (
    DIGEST_OPENING,
    SUMMARY_OPENING,
    TITLE_SYSTEM,
    side_requests,
    title_ask,
    without_summary,
)
from classifier.message import read_system

FIXTURES = Path(__file__).parents[1] / "fixtures" / "code-puppy-0.0.946"
FIRST = "Use read_file to read calc.py and add a docstring"  # both titles' first user entry


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def test_the_summary_is_read_past_to_the_identity() -> None:
    before = captured("before-compaction.json")["messages"][0]["content"]
    after = captured("after-compaction.json")["messages"][0]["content"]
    assert "\n\n" in after[len(SUMMARY_OPENING) : after.index("You are Rex")].strip()
    read = without_summary(after)
    assert read.startswith("You are Rex") and read[:2048] == before[:2048]
    assert without_summary(before) is before


@pytest.mark.parametrize(
    "system",
    [
        SUMMARY_OPENING + "It ran.\n\nYou are Helios, a transcendent agent.\n",  # another agent
        SUMMARY_OPENING + "You are Rex, the most loyal digital puppy, alone.",  # no line's end
        "Notes.\n\n" + SUMMARY_OPENING + "x\n\nYou are Rex, the most loyal digital puppy,"
        " helping your owner T get coding stuff done!\n",  # not at the prompt's head
    ],
)
def test_a_prompt_without_code_puppys_identity_after_a_summary_is_as_sent(system: str) -> None:
    assert without_summary(system) is system


@pytest.mark.parametrize("name", ["title-first.json", "title-later.json"])
def test_a_title_request_is_read_by_its_digests_first_user_entry(name: str) -> None:
    body = captured(name)
    messages = body["messages"]
    system = read_system(messages)
    assert title_ask(messages[1], messages, system) == FIRST
    assert ask_content(messages[1], messages) == FIRST
    assert side_requests(messages, system)
    intent = classify(body)
    assert (intent.label, intent.side_request) == ("coding", True)


def test_a_renaming_reads_the_digest_since_the_previous_title() -> None:
    """The namer's `build_prompt` with a previous title: the first user entry after it."""
    body = captured("title-first.json")
    previous = '{"title": "Docstring for calc", "subtitle": "", "tags": []}'
    digest = "assistant: Done.\nuser: Write a haiku about autumn leaves.\nassistant: Leaves."
    body["messages"][1]["content"] = (
        f"Previous summary:\n{previous}\n\nConversation since then:\n{digest}"
    )
    messages = body["messages"]
    assert ask_content(messages[1], messages) == "Write a haiku about autumn leaves."


@pytest.mark.parametrize(
    "text",
    [
        "Conversation digest:\nassistant: Hello.",  # no user entry
        "Name this session.\n" + DIGEST_OPENING + "user: hi",  # words of the user's first
    ],
)
def test_a_title_request_without_its_digest_is_read_as_sent(text: str) -> None:
    body = captured("title-first.json")
    body["messages"][1]["content"] = text
    messages = body["messages"]
    assert ask_content(messages[1], messages) is text
    assert not side_requests(messages, read_system(messages))


def test_only_the_naming_prompt_makes_a_title_request() -> None:
    body = captured("title-first.json")
    chat = copy.deepcopy(body)
    chat["messages"][0]["content"] = "You are a helpful assistant."
    messages = chat["messages"]
    assert ask_content(messages[1], messages) == messages[1]["content"]
    assert not side_requests(messages, read_system(messages))
    assert body["messages"][0]["content"].startswith(TITLE_SYSTEM)


def test_the_summarizer_is_a_side_request_read_as_before() -> None:
    body = captured("summarizer.json")
    messages = body["messages"]
    assert side_requests(messages, read_system(messages))
    assert classify(body).side_request
    edited = copy.deepcopy(body)
    edited["messages"][1]["content"] = "Summarize: " + messages[1]["content"]
    assert not side_requests(edited["messages"], read_system(edited["messages"]))
