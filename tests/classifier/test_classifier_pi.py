"""The pi coding agent's summarization requests are read as the conversation they summarise,
its summary in a later turn passed over for the turn's latest ask (`classifier.pi`).

Found in a live review of pi 0.73.1 through the router: its compaction request (its
summarization system prompt, the session in `<conversation>` tags, then its template "## Goal
... Preserve exact file paths, function names, and error messages.") was read by the template,
and a math session's compaction was coding 0.549, on the local model; after it, pi's turns open
with the summary as a user message, read as the first ask (the summary's code). The bodies are
the recorded ones (`tests/fixtures/pi-coding-agent-0.73.1.md`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.ask_text import ask_content
from classifier.asks import first_ask
from classifier.pi import (
    BRANCH_OPENING,
    BRANCH_PROMPT,
    COMPACTION_OPENING,
    CONVERSATION_END,
    ENTRY_WITHIN,
    FOCUS,
    SUMMARIZATION_PROMPT,
    TURN_PREFIX_PROMPT,
    UPDATE_PROMPT,
)
from classifier.request import view
from router.config import parse
from router.target import Target, route_for
from tests.recorded import body as body_at

FIXTURES = Path(__file__).parents[1] / "fixtures/pi-coding-agent-0.73.1"
CODING_ASK = "Open src/main.py and fix add() so it returns a + b."
MATH_ASK = (
    "Prove that there are infinitely many primes, and compute the sum of the first 10 primes."
)
INTEGRAL = "What is the integral of x^2 * e^x dx? Show the steps."
HAIKU = "Write a haiku about autumn rain on a tin roof."
# The default routes: coding to the local backend first, math to the cloud
CONFIG = parse(
    {
        "backends": [
            {"name": "local", "tier": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
            {"name": "cloud", "tier": "cloud", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
        ]
    }
)


def recorded(name: str) -> dict[str, Any]:
    return body_at(FIXTURES / f"{name}.json")


def text_of(body: dict[str, Any]) -> str:
    """The one text of a summarization request's user message."""
    text = body["messages"][1]["content"][0]["text"]
    assert isinstance(text, str)
    return text


def with_text(body: dict[str, Any], text: str) -> dict[str, Any]:
    body = copy.deepcopy(body)
    body["messages"][1]["content"][0]["text"] = text
    return body


def route(body: dict[str, Any]) -> tuple[str, str]:
    """The request's label and the first backend of the route it takes."""
    intent = classify(body)
    return intent.label, CONFIG.routes[route_for(intent, Target("auto"), CONFIG)][0]


@pytest.mark.parametrize(
    ("name", "ask", "routed"),
    [
        ("compaction-math", MATH_ASK, ("math", "cloud")),
        ("compaction-coding", CODING_ASK, ("coding", "local")),
    ],
)
def test_a_compaction_is_read_as_the_conversation_it_summarises(
    name: str, ask: str, routed: tuple[str, str]
) -> None:
    """The math session's was coding 0.549 and local, read by pi's template."""
    body = recorded(name)
    shown = view(body)
    assert (shown.first, shown.latest) == ("", ask)
    assert not shown.harness_cut  # a math conversation's stays math
    assert route(body) == routed
    assert first_ask(body["messages"]) == {"role": "user", "content": ask}
    assert ask_content(body["messages"][1], body["messages"]) == ask  # the ledger's prompt


@pytest.mark.parametrize(
    ("name", "routed"),
    [("compaction-math", ("math", "cloud")), ("compaction-coding", ("coding", "local"))],
)
def test_a_compaction_with_a_developer_message_is_read_the_same(
    name: str, routed: tuple[str, str]
) -> None:
    """pi sends its system prompt as a developer message whenever the model is marked
    reasoning: the math session's compaction was coding 0.549 and local again."""
    body = recorded(name)
    body["messages"][0]["role"] = "developer"
    assert not view(body).harness_cut
    assert route(body) == routed
    assert ask_content(body["messages"][1], body["messages"]) == view(recorded(name)).latest


def test_a_prose_compaction_is_no_coding() -> None:
    assert classify(recorded("compaction-prose")).label in ("prose", "writing")


def test_a_long_conversation_reads_its_first_and_latest_user_entries() -> None:
    """Its first ask in its head, its latest in its tail, pi's own summary entry passed over,
    however long the tool loop between (bounded: the middle is not read)."""
    body = recorded("compaction-coding")
    text = text_of(body)
    loop = "\n\n[Tool result]: " + "x = 1\n" * 400
    summary = "[User]: The conversation history before this point was compacted into the"
    conversation = (
        f"<conversation>\n{summary} following summary:\n\n<summary>\nold\n</summary>\n\n"
        f"[User]: {CODING_ASK}{loop * (2 * ENTRY_WITHIN // len(loop))}\n\n[User]: {INTEGRAL}"
        "\n\n[Assistant]: By parts."
    )
    read = view(with_text(body, conversation + text[text.index(CONVERSATION_END) :]))
    assert (read.first, read.latest) == (CODING_ASK, INTEGRAL)


@pytest.mark.parametrize("prompt", [UPDATE_PROMPT, TURN_PREFIX_PROMPT, BRANCH_PROMPT])
def test_every_template_of_pis_is_read_by_the_conversation(prompt: str) -> None:
    body = recorded("compaction-math")
    text = text_of(body)
    cut = text.index(CONVERSATION_END) + len(CONVERSATION_END)
    previous = "<previous-summary>\n## Goal\nFix add()\n</previous-summary>\n\n"
    head = text[:cut] + (previous if prompt is UPDATE_PROMPT else "")
    assert view(with_text(body, head + prompt)).latest == MATH_ASK
    assert view(with_text(body, head + prompt + FOCUS + "the proof")).latest == MATH_ASK


def test_words_after_the_template_are_read_as_written() -> None:
    """Not pi's template whole: a user's own words after it are asked."""
    body = with_text(recorded("compaction-math"), text_of(recorded("compaction-math")) + " Thanks")
    assert view(body).latest.endswith("Thanks")
    assert SUMMARIZATION_PROMPT in text_of(recorded("compaction-math"))


def test_a_conversation_end_sharing_the_openings_newline_is_read_as_written() -> None:
    """pi writes an empty conversation "<conversation>\n\n</conversation>": a text whose
    end's newline is the opening's own is none of pi's, and was read as an empty ask (the
    overlap `classifier.templates.framed` tells apart)."""
    body = recorded("compaction-math")
    text = f"<conversation>\n</conversation>\n\n{SUMMARIZATION_PROMPT}"
    assert view(with_text(body, text)).latest == text
    empty = f"<conversation>\n\n</conversation>\n\n{SUMMARIZATION_PROMPT}"
    assert view(with_text(body, empty)).latest == ""  # pi's own: its conversation, empty


def test_the_template_under_another_system_prompt_is_read_as_written() -> None:
    body = recorded("compaction-math")
    body["messages"][0]["content"] = "You are a helpful assistant."
    assert view(body).latest.startswith("<conversation>")


def post_compaction(ask: str) -> dict[str, Any]:
    """The recorded turn after a compaction, `ask` its latest."""
    body = recorded("post-compaction")
    assert body["messages"][-1]["content"][0]["text"] == "Is the function correct now?"
    body["messages"][-1]["content"][0]["text"] = ask
    return body


def test_a_turn_after_a_compaction_passes_its_summary_over() -> None:
    """The summary (the simulator's code) was read as the first ask."""
    shown = view(recorded("post-compaction"))
    assert shown.first == "Now add a type hint to add()."
    assert shown.latest == "Is the function correct now?"
    assert shown.harness_cut  # pi's own text: an agent's session
    assert first_ask(recorded("post-compaction")["messages"])["content"][0]["text"] == (
        "Now add a type hint to add()."
    )


@pytest.mark.parametrize(("ask", "label"), [(INTEGRAL, "math"), (HAIKU, "prose")])
def test_a_turn_after_a_compaction_is_read_by_its_latest_ask(ask: str, label: str) -> None:
    """Coding by the summary's code before (0.53 and 0.64)."""
    assert classify(post_compaction(ask)).label == label


def test_a_summary_with_no_ask_after_it_is_read_as_written() -> None:
    """A split turn compacted mid-run: the summary is the only trace of the task."""
    body = recorded("post-compaction")
    del body["messages"][2:]
    assert view(body).latest.startswith("The conversation history before this point")


def test_a_branch_summary_is_passed_over() -> None:
    body = recorded("post-compaction")
    summary = f"{BRANCH_OPENING}The user explored a different conversation branch.</summary>"
    body["messages"][1]["content"][0]["text"] = summary
    assert view(body).first == "Now add a type hint to add()."


def test_a_summary_with_the_users_words_after_its_end_is_read_as_written() -> None:
    """Only the summary whole is passed over: its opening and its end, as pi sends it."""
    body = recorded("post-compaction")
    text = body["messages"][1]["content"][0]["text"]
    assert text.endswith("</summary>")
    body["messages"][1]["content"][0]["text"] = text + "\n\nAlso rename add() to plus()."
    assert view(body).first.endswith("Also rename add() to plus().")


def test_a_summary_shorter_than_its_opening_and_end_is_read_as_written() -> None:
    """The opening's last newline is the end's first: the bare opening and end pair read
    the opening and "</summary>" as a summary of nothing, and passed it over."""
    body = recorded("post-compaction")
    text = f"{COMPACTION_OPENING}</summary>"
    body["messages"][1]["content"][0]["text"] = text
    assert view(body).first == text
