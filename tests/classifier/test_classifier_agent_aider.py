"""Aider's example conversation and fixed pairs are not a session's first ask
(`classifier.aider`), and what the classifier reads as the first ask is what keys a
conversation (`first_ask`); a user's own words that start like Aider's are still read. Also
which requests the view says carry an agent's text or tools (`RequestView.harness_cut`)."""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.aider import REMINDER_OPENINGS
from classifier.asks import first_ask
from classifier.harness import own_words
from classifier.request import view
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
from tests.agent_shapes.aider import (
    ASK_REMINDER,
    EXAMPLES_END,
    NO_FILES,
    REFLECTIONS,
    WHOLE_REMINDER,
    aider_reflection,
)

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


# What each edit format's reminder starts with, then a stand-in for the rest (fences, rules)
REMINDERS = [f"{opening}\n```\n...\n```\n" for opening in REMINDER_OPENINGS]
SONNET = "Write a sonnet about autumn leaves falling on a quiet river."


@pytest.mark.parametrize("reminder", [WHOLE_REMINDER, *REMINDERS])
def test_aiders_reminder_after_the_current_message_is_not_the_ask(reminder: str) -> None:
    """With `reminder: user`, Aider appends its edit format's rules to the current message
    after a blank line: a sonnet read with them was prose 0.66 and coding by the rule of an
    agent's session (0.86), and a session's first request was keyed apart from its later
    ones (`tests/resilience/test_sticky_keys.py`). The ask is read as without them."""
    assert own_words(f"{SONNET}\n\n{reminder}") == SONNET
    body, plain = aider_body(SONNET), aider_body(SONNET)
    plain["messages"][-1]["content"] = SONNET
    body["messages"][-1]["content"] = f"{SONNET}\n\n{reminder}"
    assert view(body).latest == SONNET
    assert classify(body) == classify(plain)
    assert explain(body)["top_intents"] == explain(plain)["top_intents"]
    assert explain(body)["model_intent"] == "prose"
    later = aider_body(VERBOSE, FAIL)
    assert view(later).latest == FAIL and view(later).first == VERBOSE


def test_a_users_text_that_quotes_aiders_reminder_is_read() -> None:
    """Only a reminder that ends the text after a blank line is cut: one quoted inside a
    line, or followed by more of the user's words than Aider's reminder runs to, is read."""
    opening = REMINDER_OPENINGS[0]
    inline = f"Why does Aider tell the model '{opening.strip()}'?"
    assert own_words(inline) is inline
    far = f"Explain this rule of Aider's:\n\n{opening}\n{'What does it mean? ' * 500}"
    assert own_words(far) is far
    after_one_break = f"{SONNET}\n{opening}"
    assert own_words(after_one_break) is after_one_break


STORY = "Write a short story about a lighthouse keeper"


def bare(body: dict[str, Any], text: str) -> dict[str, Any]:
    """`body` with `text` as its current message, without the reminder Aider appended."""
    plain = {**body, "messages": list(body["messages"])}
    plain["messages"][-1] = {"role": "user", "content": text}
    return plain


@pytest.mark.parametrize("mode", ["ask", "context"])
@pytest.mark.parametrize("ask", [STORY, "what is 17*23"])
def test_aiders_ask_and_context_reminders_are_not_the_ask(mode: str, ask: str) -> None:
    """In `/ask` and `/context` mode Aider appends its mode's reminder to the current message
    after a blank line ("Reply in English.\n", "\nNEVER RETURN CODE!\n"), as it ends its
    system prompt: read with it, "Reply in English." was a constraint of the ask's (a short
    story coding 0.61, "what is 17*23" instruction). The ask is read as without it."""
    body = aider_body(ask, None, mode)
    assert body["messages"][-1]["content"] != ask  # Aider's reminder after it
    plain = bare(body, ask)
    assert view(body).latest == ask
    assert classify(body) == classify(plain)
    assert explain(body)["top_intents"] == explain(plain)["top_intents"]
    if ask == STORY:
        assert explain(body)["model_intent"] == "prose"


def test_reply_in_english_is_read_when_the_system_prompt_does_not_end_so() -> None:
    """The ask mode's words are a client's too: they are cut only when the system prompt
    (another message than the ask) ends with the same reminder, as Aider's does."""
    asked = f"Translate 'bonne nuit'\n\n{ASK_REMINDER}"
    other = {"messages": [{"role": "system", "content": "Be brief."}, *chat(asked)["messages"]]}
    assert view(other).latest == asked
    assert view(chat(asked)).latest == asked  # the one message, its own system prompt


@pytest.mark.parametrize("name", sorted(REFLECTIONS))
def test_aiders_reflections_are_not_the_ask(name: str) -> None:
    """When a reply's edits fail (or it names files Aider then adds, or lint fails after its
    edits), Aider sends its own text as the next user message, its mode's reminder after
    it: "No filename provided before ``` in file listing" was read as the ask. The turn is
    read from the user's last ask, as on the reply's own turn; after a commit too, with
    Aider's note of it and its files between."""
    mode, text = REFLECTIONS[name]
    for committed in (False, True):
        body = aider_reflection(STORY, [text], mode, committed)
        assert view(body).latest == STORY
        assert view(body).harness_cut
        assert explain(body)["model_intent"] == "prose"
        assert classify(body) == classify(aider_body(STORY, None, mode))
    again = aider_reflection(STORY, [text, text], mode)  # the model failed twice
    assert view(again).latest == STORY


def test_a_users_words_that_quote_a_reflection_are_read() -> None:
    """Only a text that starts like a reflection (or is one, or ends with a `diff` parse
    error) is Aider's: a question that quotes one is the user's."""
    quoted = "Why does Aider say 'No filename provided before ``` in file listing'?"
    assert own_words(quoted) is quoted
    assert view(aider_body(VERBOSE, quoted)).latest == quoted
