"""jupyter-ai's `%%ai` cells are read by the user's prompt, not the format's sentence the magic
appends to it (`classifier.jupyter_ai`).

Found running jupyter-ai-magics 2.31.7 against the router: every cell of the default format
ends "\\n\\nProduce output in markdown format only.", which read as an output constraint, so
"What is the average of 12, 15 and 30?" (math 0.944 asked alone) and "Write a short story
about a lighthouse keeper" (prose 0.994) were instruction, served locally; and a `-f code`
cell asks for code alone, yet "Plot a bar chart of revenue by country with matplotlib" was
instruction 0.54. The bodies are the magic's (`tests/fixtures/jupyter-ai-magics-2.31.7.md`).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from classifier import classify
from classifier.ask_text import ask_content
from classifier.asks import first_ask
from classifier.fixed import CODE_ANSWER_READING
from classifier.jupyter_ai import CODE, SENTENCES, SUFFIXES
from classifier.request import view
from classifier.rules import CODE_ANSWER
from tests import recorded as recordings
from tests.classifier.fixed_readings import assert_decided_by

FIXTURES = recordings.FIXTURES
RECORDED = FIXTURES / "jupyter-ai-magics-2.31.7"
MARKDOWN = "\n\nProduce output in markdown format only."
AVERAGE = "What is the average of 12, 15 and 30?"
STORY = "Write a short story about a lighthouse keeper"


def recorded(name: str) -> dict[str, Any]:
    """A request the magic sent, as recorded."""
    return recordings.body(RECORDED / name)


def cell(prompt: str, system: str | None = None) -> dict[str, Any]:
    """A first cell's request as the magic sends it (`system`: a system prompt put first,
    which the magic never sends)."""
    head = [] if system is None else [{"role": "system", "content": system}]
    return {"model": "auto", "stream": False, "messages": [*head, user(prompt)]}


def user(content: object) -> dict[str, Any]:
    return {"content": content, "role": "user"}


@pytest.mark.parametrize(
    ("name", "ask", "label"),
    [
        ("story.json", STORY, "prose"),
        ("average.json", AVERAGE, "math"),
        ("session-3.json", AVERAGE, "math"),
        ("format-math.json", "What is the integral of x^2 from 0 to 3?", "math"),
        ("format-html.json", "Write a short poem about the sea", "prose"),
        ("format-json.json", "List three prime numbers with their squares", "math"),
    ],
)
def test_a_cell_is_read_without_its_formats_sentence(name: str, ask: str, label: str) -> None:
    """Each was instruction, read with the sentence."""
    body = recorded(name)
    seen = view(body)
    assert (seen.latest, seen.fixed == CODE_ANSWER_READING, seen.harness_cut) == (ask, False, False)
    intent = classify(body)
    assert (intent.label, intent.source) == (label, "model")


@pytest.mark.parametrize(
    ("name", "ask"),
    [
        ("session-1.json", "Write a pandas function that returns the top 3 countries by total"),
        ("session-2.json", AVERAGE),
        ("session-6.json", "Plot a bar chart of revenue by country with matplotlib"),
        ("average-code.json", AVERAGE),
    ],
)
def test_a_code_cell_is_coding_whatever_it_asks(name: str, ask: str) -> None:
    """`-f code` asks for source code alone, as Shell-GPT's code role does: the user asked
    for code (session-6 was instruction 0.54, average-code instruction 0.80)."""
    body = recorded(name)
    seen = view(body)
    assert seen.latest.startswith(ask) and not seen.latest.endswith(CODE)
    assert_decided_by(body, CODE_ANSWER_READING, CODE_ANSWER, "coding")


def test_the_history_is_read_without_the_sentences_too() -> None:
    """The cells before are resent with their sentences: the first ask, which the
    conversation key hashes and the ledger keeps, is the user's prompt alone; a `text` cell,
    which appends none, reads as sent."""
    body = recorded("session-5.json")  # a text cell after a code and a markdown cell
    messages = body["messages"]
    assert view(body).first == AVERAGE
    assert ask_content(first_ask(messages), messages) == AVERAGE
    assert view(body).latest == "Write a haiku about dataframes"
    assert classify(body).label == "prose"


def test_every_template_of_the_fixture_is_known() -> None:
    """The magic's templates as its source writes them (the fixture's page) are the reader's:
    each format's but `text`'s appends one of `SUFFIXES` to "{prompt}"."""
    page = (FIXTURES / "jupyter-ai-magics-2.31.7.md").read_text(encoding="utf-8")
    templates = dict(re.findall(r"^- `(\w+)`: `(\{prompt\}[^`]*)`$", page, re.MULTILINE))
    assert set(templates) == {*SENTENCES, "md", "text"}
    assert templates.pop("text") == "{prompt}"
    assert {t.removeprefix("{prompt}").replace("\\n", "\n") for t in templates.values()} == {
        *SUFFIXES
    }


@pytest.mark.parametrize(
    "text",
    [
        AVERAGE + MARKDOWN + " ",  # anything after it
        AVERAGE + MARKDOWN + "\n",
        AVERAGE + MARKDOWN.replace("\n\n", "\n"),  # not after a blank line
        AVERAGE + MARKDOWN.replace("\n\n", " "),
        AVERAGE + MARKDOWN.lower(),
        AVERAGE + MARKDOWN.replace("only.", "only"),
        MARKDOWN.lstrip() + "\n\n" + AVERAGE,  # not at the end
        MARKDOWN,  # no words of the user's before it
    ],
)
def test_a_sentence_not_as_the_magic_appends_it_is_read_as_written(text: str) -> None:
    assert view(cell(text)).latest == text


@pytest.mark.parametrize("system", ["You are a helpful assistant.", ""])
def test_the_sentence_under_a_system_prompt_is_the_users(system: str) -> None:
    """The magic sends no system prompt: under one, the sentence is a user's, read as
    written, the code sentence too."""
    assert view(cell(AVERAGE + MARKDOWN, system)).latest == AVERAGE + MARKDOWN
    seen = view(cell(AVERAGE + CODE, system))
    assert (seen.latest, seen.fixed == CODE_ANSWER_READING) == (AVERAGE + CODE, False)


def test_only_the_magics_shape_of_request_is_read_so() -> None:
    """User and assistant messages alternating from a user's, each one string, the last a
    user's: any other shape is another client's, its sentence read as written."""
    two_users = cell(STORY)
    two_users["messages"].append(user(AVERAGE + MARKDOWN))
    parts = cell(STORY)
    parts["messages"] = [user([{"type": "text", "text": AVERAGE + CODE}])]
    tool = cell(STORY)
    tool["messages"] += [
        {"role": "assistant", "content": None, "tool_calls": []},
        user(AVERAGE + MARKDOWN),
    ]
    for body in (two_users, parts, tool):
        seen = view(body)
        assert seen.latest.endswith(("only.", "after it.")), body
        assert seen.fixed != CODE_ANSWER_READING


def test_a_user_typing_the_sentence_in_a_plain_chat_is_read_as_the_magics_user() -> None:
    """The boundary: the very sentence after a blank line, at the end, in a request of the
    magic's shape, is read as the magic's (a plain chat with no system prompt has that
    shape): the user's ask without it."""
    body = cell(STORY + MARKDOWN)
    body["messages"][:0] = [user("hi"), {"role": "assistant", "content": "Hello!"}]
    assert view(body).latest == STORY
    assert classify(body).label == "prose"
