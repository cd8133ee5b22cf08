"""Aider's example conversation and fixed pairs are not a session's first ask
(`classifier.aider`), and what the classifier reads as the first ask is what keys a
conversation (`first_ask`); a user's own words that start like Aider's are still read. Also
which requests the view says carry an agent's text or tools (`RequestView.harness_cut`)."""

from __future__ import annotations

from typing import Any

import pytest

from classifier.request import first_ask, view
from tests.agent_shapes import (
    CLAUDE_MD_REMINDER,
    CODEX_TOOLS,
    GOOSE_NOTE,
    WORKSPACE,
    aider_body,
    goose_body,
    openhands_body,
    openhands_user,
)
from tests.agent_shapes.aider import EXAMPLES_END, NO_FILES

VERBOSE = "add a --verbose flag to app/cli.py"
FAIL = "now the tests fail:\n\nE   NameError: name 'logging' is not defined"


def chat(*texts: str) -> dict[str, Any]:
    """A chat of `texts`, the user's and the assistant's by turns."""
    roles = ("user", "assistant")
    return {"messages": [{"role": roles[i % 2], "content": t} for i, t in enumerate(texts)]}


@pytest.mark.parametrize("mode", ["whole", "diff", "ask"])
def test_the_first_ask_of_an_aider_session_is_its_own(mode: str) -> None:
    body = aider_body(VERBOSE, FAIL, mode)
    assert view(body).first == VERBOSE
    asked = first_ask(body["messages"])
    assert isinstance(asked, dict) and asked["content"] == VERBOSE


def test_aider_images_and_a_note_of_no_files_are_its_pairs() -> None:
    """A pair of images (a caption a file) and the note that no file is added, each with
    Aider's reply after it."""
    images = {
        "role": "user",
        "content": [
            {"type": "text", "text": "Image file: docs/screenshot.png"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        ],
    }
    reply = {"role": "assistant", "content": "Ok, I will use these images as references."}
    ask, later = {"role": "user", "content": VERBOSE}, {"role": "user", "content": FAIL}
    said = {"role": "assistant", "content": "Done."}
    body = {"messages": [images, reply, *NO_FILES, ask, said, later]}
    assert view(body).first == VERBOSE


def test_a_users_words_that_start_like_aiders_are_read() -> None:
    """Aider's pairs have its reply after them: the latest message never has, nor does a
    message of the user's that quotes the switch of code base later in a chat."""
    pasted = "Here are some READ ONLY files, provided for your reference.\nWhat does that mean?"
    assert view(chat(VERBOSE, "Done.", pasted)).latest == pasted
    switch = str(EXAMPLES_END[0]["content"])
    turns = [VERBOSE, "Done."] * 9  # the examples end within the first 16 messages
    assert view(chat(*turns, switch, "Ok.", FAIL)).first == VERBOSE


def test_an_agents_text_or_tools_mark_the_request_as_an_agents() -> None:
    """`harness_cut`: an agent's text cut from an ask or passed over, Aider's messages, or an
    agent's built-in tools; not a chat of a user's own words."""
    marked = [
        aider_body(VERBOSE, FAIL),
        aider_body(VERBOSE, None, "ask"),
        goose_body([{"role": "user", "content": GOOSE_NOTE + VERBOSE}]),
        openhands_body([openhands_user(VERBOSE), openhands_user(WORKSPACE)]),
        {"messages": [{"role": "user", "content": [CLAUDE_MD_REMINDER, VERBOSE]}]},
        {"messages": [{"role": "user", "content": VERBOSE}], "tools": CODEX_TOOLS},
    ]
    for body in marked:
        assert view(body).harness_cut
    assert not view(chat(VERBOSE, "Done.", FAIL)).harness_cut
    assert not view(goose_body([{"role": "user", "content": VERBOSE}])).harness_cut
