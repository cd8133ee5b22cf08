"""A message the user types while Claude Code works is the latest ask, read alone.

Claude Code queues a message typed while a reply runs and hands it to the model beside the
next tool's result, between a header and a footer of its own (`classifier.queued`): older
versions in a `<system-reminder>`, which was cut whole as the agent's (the ask before it
stayed the latest), newer ones as a text or a system turn of its own, read with the header
and the footer. A turn's texts joined (the router's view of a Messages turn had them so),
another session's message before it, a notice read to the text's end, swallowed it too
(found in review).
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.harness import has_words, own_words, turn_words
from classifier.request import view
from router.translate.view import chat_view
from tests.agent_shapes import (
    PEER_MID_TURN,
    QUEUED_NEWER,
    QUEUED_OLDER,
    SHELL_NOTIFICATION,
    TODO_REMINDER,
    claude_code_body,
    queued,
)

ASK = "Refactor parse_config in src/config.py to raise ValueError on unknown keys."
SKY = "Explain why the sky is blue."
HEADER = "The user sent a new message while you were working:"
CALL = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest -q"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "2 failed, 14 passed"}
CACHED = {"type": "ephemeral"}


def loop(*last: dict[str, Any]) -> dict[str, Any]:
    """The classifier's view of Claude Code's conversation: the ask, a tool's call, `last`."""
    ask = {"role": "user", "content": [{"type": "text", "text": ASK}]}
    called = {"role": "assistant", "content": [CALL]}
    return chat_view("messages", claude_code_body([ask, called, *last]))


def beside_result(*texts: str) -> dict[str, Any]:
    """A user turn of the tool's result and `texts`, the last marked for the cache, as Claude
    Code marks a request's last block."""
    blocks = [{"type": "text", "text": text} for text in texts]
    if blocks:
        blocks[-1]["cache_control"] = CACHED
    return {"role": "user", "content": [RESULT, *blocks]}


SHAPES = {
    "older, in a reminder": [beside_result(queued(SKY, QUEUED_OLDER, reminder=True))],
    "newer, in a reminder": [beside_result(queued(SKY, QUEUED_NEWER, reminder=True))],
    "newer, a text": [beside_result(queued(SKY))],
    "newer, a system turn": [beside_result(), {"role": "system", "content": queued(SKY)}],
    "newer, a system turn's block": [
        beside_result(),
        {
            "role": "system",
            "content": [{"type": "text", "text": queued(SKY), "cache_control": CACHED}],
        },
    ],
}


@pytest.mark.parametrize("turns", SHAPES.values(), ids=SHAPES)
def test_a_message_typed_while_claude_code_works_is_the_latest_ask(
    turns: list[dict[str, Any]],
) -> None:
    """In a reminder, the message was cut with it: the refactoring stayed the latest ask,
    coding 0.87. As a text or a system turn (newer Claude Code sends one, after the result),
    it was read with the header and the footer, coding 0.44. Alone beside the result, as a
    message the user sent there, it was reasoning 0.53 (the agent_session rule made it
    coding). The model's reading is checked to be that of the message alone: the same
    probabilities, none of the header's or the footer's words among its features."""
    body = loop(*turns)
    assert view(body).latest == SKY
    assert not view(body).after_tool_result
    assert classify(body) == classify(loop(beside_result(SKY)))
    shown, alone = explain(body), explain(loop(beside_result(SKY)))
    assert shown["top_intents"] == alone["top_intents"]
    assert shown["read"]["latest_chars"] == len(SKY)


AROUND = {
    # another session's message first, a notice that was read to the joined text's end
    "after a peer's": [PEER_MID_TURN, queued(SKY)],
    "before a peer's": [queued(SKY), PEER_MID_TURN],
    "between reminders": [TODO_REMINDER, queued(SKY, QUEUED_OLDER, reminder=True), TODO_REMINDER],
    "after a notification": [SHELL_NOTIFICATION, queued(SKY, reminder=True)],
}


@pytest.mark.parametrize("texts", AROUND.values(), ids=AROUND)
def test_the_message_is_read_without_the_agents_texts_around_it(texts: list[str]) -> None:
    """The texts of the turn as parts (a chat request), joined (one string), and through
    the view: the user's words alone."""
    assert turn_words(texts) == [SKY]
    assert own_words("\n".join(texts)) == SKY
    body = loop(beside_result(*texts))
    assert view(body).latest == SKY
    assert classify(body) == classify(loop(beside_result(SKY)))


def test_each_message_typed_is_read_in_order() -> None:
    """Two messages in one turn (joined): both are the user's, the older first."""
    more = "Keep it under three sentences."
    assert own_words(f"{queued(SKY)}\n{queued(more, reminder=True)}") == f"{SKY}\n{more}"
    assert not has_words(queued(""))


QUOTED = [
    f"What does '{HEADER}' mean in Claude Code?",  # mid-line
    f"{HEADER}\nWhy does Claude Code show me this line?",  # no footer
    f"I keep seeing this in the transcript:\n{queued(SKY)}",  # the user's words before it
    f"{queued(SKY)}\nWhy does Claude Code add the last paragraph?",  # ...or after it
    f"<system-reminder>\n{queued(SKY)}",  # a reminder not closed
]


@pytest.mark.parametrize("text", QUOTED)
def test_a_users_text_that_quotes_the_message_is_read_as_written(text: str) -> None:
    """Claude Code's message is matched whole, through its footer, where it starts a text
    (past the agent's texts) or in a reminder: a user's text that quotes the header, or
    pastes the whole message with words of their own, keeps all its words."""
    assert own_words(text) is text
    assert view({"messages": [{"role": "user", "content": text}]}).latest == text


def test_a_reminder_holding_the_message_after_the_users_words_is_read() -> None:
    """A reminder's tags are the agent's wherever they are: after the user's words in the
    same turn (a message typed before the reply began, folded in after the prompt), the
    reminder was cut as a block at the text's end, and the message with it."""
    text = f"{ASK}\n{queued(SKY, reminder=True)}"
    assert own_words(text) == f"{ASK}\n{SKY}"
