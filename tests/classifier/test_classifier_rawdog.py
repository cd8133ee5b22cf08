"""rawdog's requests ask for a Python script, whatever the ask is about (`classifier.rawdog`).

rawdog 0.1.6 (pypi `rawdog-ai`) sends each request under its system prompt, "You are a
command-line coding assistant called Rawdog that generates and auto-executes Python
scripts.", and runs the reply. Read by their topic, its asks went to the math or prose
cloud ("what is 3 to the power of 50" math 0.58, "now write a haiku about them" prose 0.85),
though each reply is a script. The bodies are rawdog's (`tests/fixtures/rawdog-ai-0.1.6.md`).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from classifier import classify
from classifier.fixed import CODE_ANSWER_READING
from classifier.rawdog import IDENTITY
from classifier.request import view
from classifier.rules import CODE_ANSWER
from tests.classifier.fixed_readings import assert_decided_by
from tests.recorded import loader

FIXTURES = Path(__file__).parents[1] / "fixtures" / "rawdog-ai-0.1.6"
BODIES = sorted(path.name for path in FIXTURES.glob("*.json"))


captured = loader(FIXTURES)


def test_the_fixtures_are_rawdogs() -> None:
    assert len(BODIES) == 8
    for name in BODIES:
        assert captured(name)["messages"][0]["content"].startswith(IDENTITY + "\n")


@pytest.mark.parametrize("name", BODIES)
def test_every_rawdog_request_is_coding_whatever_it_asks(name: str) -> None:
    """Its first ask, its follow-up asks and its own turns after a run ("LAST SCRIPT
    OUTPUT:", "Error: ...", "User chose not to run script") alike."""
    body = captured(name)
    assert_decided_by(body, CODE_ANSWER_READING, CODE_ANSWER, "coding")


@pytest.mark.parametrize(
    ("name", "ask"),
    [("pow-t1.json", "what is 3 to the power of 50"), ("followup-poem.json", None)],
)
def test_its_asks_alone_read_otherwise(name: str, ask: str | None) -> None:
    """The same asks without rawdog's prompt are read by their topic: the reading is the
    prompt's, not the ask's."""
    body = captured(name)
    users = [m for m in body["messages"] if m["role"] == "user"]
    text = ask if ask is not None else users[-1]["content"]
    alone = {"model": "auto", "messages": [{"role": "user", "content": text}]}
    assert view(alone).fixed is None
    assert classify(alone).label in {"math", "prose", "writing"}


@pytest.mark.parametrize(
    "system",
    [
        # the line typed inside another prompt, not at its start
        "Reply briefly. " + IDENTITY,
        # the line with more after it on the same line: not rawdog's prompt
        IDENTITY + " You also write poems.",
        # another name
        IDENTITY.replace("Rawdog", "Shellbot"),
    ],
)
def test_only_rawdogs_whole_first_line_counts(system: str) -> None:
    body = copy.deepcopy(captured("pow-t1.json"))
    body["messages"][0]["content"] = system
    assert view(body).fixed is None


def test_its_line_as_a_users_message_is_read_as_written() -> None:
    """No system prompt: the line pasted by a user into a chat asks nothing of a script."""
    body = {"model": "auto", "messages": [{"role": "user", "content": IDENTITY}]}
    assert view(body).fixed is None


def test_its_line_alone_and_in_a_part_still_counts() -> None:
    """The line as the whole prompt, and the prompt as one text part."""
    body = copy.deepcopy(captured("pow-t1.json"))
    body["messages"][0]["content"] = IDENTITY
    assert view(body).fixed == CODE_ANSWER_READING
    body["messages"][0]["content"] = [{"type": "text", "text": IDENTITY + "\n\nMore."}]
    assert view(body).fixed == CODE_ANSWER_READING
