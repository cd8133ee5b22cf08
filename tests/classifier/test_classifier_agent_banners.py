"""Claude Code's banners over its own user messages are its only with what it writes after them.

Claude Code heads a message from another session, or from an agent inside this one, with
"Another Claude session sent a message:" and the message's tag on the next line, and a Stop
hook's reason to go on with "Stop hook feedback:" and the reason on the next line. Matched
by their first words alone, a user's question that starts with them was no ask; and a
teammate's message to the lead of an agent team, under the same banner, was none either,
while the same message without it is read (`HARNESS_WRAPPERS`). Nor does a notice run past
its own text block in a Messages turn, which the router's view keeps as parts.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.harness import has_words, own_words
from classifier.request import view
from router.translate import anthropic_request, responses_request
from router.translate.view import chat_view
from tests.agent_shapes import PEER, claude_code_body, codex_body, teammate_messages, user_item

BIKE = "Why does my bike chain keep slipping when I climb hills?"
SONNET = "Write a sonnet about autumn leaves falling on a quiet river."
DONE = {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
CALLED = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}],
}
RESULT = {"type": "tool_result", "tool_use_id": "t", "content": "ok"}
BANNER = "Another Claude session sent a message:"
# A teammate's message to its lead, under the banner, with the note after it, as transcripts
# quoted in public repositories show it (a lead gets every teammate's report so)
NOTE = (
    "This came from another Claude session — not typed by your user, but very likely working "
    "on their behalf."
)
HOOK = "Stop hook feedback:\n[check.sh]: exit 2"
QUESTION = "Why is my hook failing?"
TEAMMATE = f'<teammate-message teammate_id="poet" color="pink">\n{SONNET}\n</teammate-message>'


def claude_code(*turns: dict[str, Any]) -> dict[str, Any]:
    return chat_view("messages", claude_code_body(list(turns)))


def user(*texts: str, before: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    """A Messages user turn of `before` (tool results) and text blocks."""
    return {"role": "user", "content": [*before, *({"type": "text", "text": t} for t in texts)]}


@pytest.mark.parametrize(
    "text",
    [
        f"{BANNER} it says the build is broken on main. Should I trust it and revert?",
        "Another Claude session sent a message while you were working: is this a bug in Claude "
        "Code? It appeared in my logs.",
        f"{BANNER} 这是什么意思？我只开了一个会话。",
        "Stop hook feedback: what does this mean and how do I configure the Stop hook?",
    ],
)
def test_a_question_starting_with_a_banners_words_is_read_as_written(text: str) -> None:
    """Each was no ask, unknown 0.0 (as written: reasoning 0.64, coding 0.69, prose 0.34,
    reasoning 0.47): the ask before it stayed the latest."""
    assert own_words(text) is text
    body = claude_code(user(BIKE), DONE, user(text))
    assert view(body).latest == text
    assert classify(claude_code(user(text))).label != "unknown"


def test_claude_codes_own_messages_under_the_banners_are_still_no_ask() -> None:
    """With the tag after the banner, or the reason on the line after the notice (a command's
    "[path]: stderr", or a JSON decision's reason as it is), the text is Claude Code's."""
    assert not has_words(PEER)
    assert not has_words(f'{BANNER} <cross-session-message from="a">hi</cross-session-message>')
    assert not has_words("Stop hook feedback:\n[~/.claude/hooks/check.sh]: run the tests first")
    assert not has_words("Stop hook feedback:\nUpdate the docs before you stop.")


@pytest.mark.parametrize("banner", [f"{BANNER}\n", ""])
def test_a_teammates_message_under_the_banner_is_read_as_a_bare_one(banner: str) -> None:
    """Under the banner, a teammate's message was no ask, and the bike chain's question before
    it the latest (reasoning); bare, the note after it was read with it. Its words alone are
    read either way, as if the lead had been sent them."""
    message = f"{banner}{TEAMMATE}\n\n{NOTE}"
    assert own_words(message) == SONNET
    body = claude_code(user(BIKE), DONE, user(message))
    assert view(body).latest == SONNET
    assert classify(body) == classify(claude_code(user(BIKE), DONE, user(SONNET)))
    assert classify(body).label == "prose"


@pytest.mark.parametrize("banner", [f"{BANNER}\n", ""])
def test_several_teammates_messages_in_one_text_are_all_read(banner: str) -> None:
    """Claude Code delivers a session's unread messages at once, in one text: only the
    first was unwrapped, and the others' tags (under the banner, the note too) were read as
    its words, prose 0.96 (0.82 with the note); all their words are read now, in their
    order, as if the lead had been sent them: none is answered yet, each may ask its own."""
    haiku = "Now write a haiku about the same river at night."
    note = f"\n\n{NOTE}" if banner else ""
    two = f"{banner}{teammate_messages(('poet', SONNET), ('editor', haiku))}{note}"
    body = claude_code(user(BIKE), DONE, user(two))
    assert view(body).latest == f"{SONNET}\n{haiku}"
    assert classify(body) == classify(claude_code(user(BIKE), DONE, user(f"{SONNET}\n{haiku}")))
    three = teammate_messages(("poet", SONNET), ("editor", haiku), ("rider", BIKE))
    assert own_words(f"{banner}{three}{note}") == f"{SONNET}\n{haiku}\n{BIKE}"
    # one not closed ends the run: it is read as written
    late = f'<teammate-message teammate_id="late">\n{haiku}'
    assert own_words(f"{three}\n\n{late}") == f"{SONNET}\n{haiku}\n{BIKE}\n{late}"


def test_a_teammates_summary_with_a_greater_than_sign_is_no_part_of_its_words() -> None:
    """Claude Code puts a teammate's summary in the opening's attributes: the first ">"
    ended the opening, so at `summary="rename foo -> bar"` the words read were
    `bar">` and the message. A ">" in a quoted value is the value's now, in the first
    message of a text as in those after it. A quote left open (an unescaped `"` in the
    summary) ends it at the first ">", as before, not at none."""
    rename = "Please rename the helper everywhere and update its tests."
    lint = "Then run the linter on the whole package."
    first = '<teammate-message teammate_id="lead" color="blue" summary="rename foo -> bar">'
    second = '<teammate-message teammate_id="qa" color="red" summary="don\'t map a=>b">'
    one = f"{first}\n{rename}\n</teammate-message>"
    assert own_words(one) == rename
    body = claude_code(user(BIKE), DONE, user(f"{BANNER}\n{one}\n\n{NOTE}"))
    assert view(body).latest == rename
    assert classify(body) == classify(claude_code(user(BIKE), DONE, user(rename)))
    two = f"{one}\n\n{second}\n{lint}\n</teammate-message>"
    assert view(claude_code(user(BIKE), DONE, user(two))).latest == f"{rename}\n{lint}"
    open_quote = f'<teammate-message teammate_id="lead" summary="say "hi">\n{rename}\n'
    assert own_words(f"{open_quote}</teammate-message>") == rename  # not read as written


def test_a_notice_in_a_messages_turn_ends_with_its_block() -> None:
    """The router's view joined a Messages user turn's text blocks into one text, and a
    notice that runs to its text's end took the blocks after it: a Stop hook's block, then
    the user's question, was no ask (as chat parts, the question is read: reasoning 0.96).
    The view asks of each block (`turn_asks`), so after a long tool loop it kept that turn
    as the latest ask, and the one before it fell out: the first message's sonnet was read
    as the latest. The blocks stay text parts in the view: the question is the ask."""
    hook, question = HOOK, QUESTION
    chat = {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": hook}, {"type": "text", "text": question}],
            }
        ]
    }
    assert view(chat).latest == question
    last = user(hook, question, before=(RESULT,))
    loop = [turn for i in range(100) for turn in (CALLED, user(before=(RESULT,)))]
    start = [user(SONNET), DONE, user(BIKE), *loop]
    for body in (claude_code(*start, CALLED, last), claude_code(user(BIKE), CALLED, last)):
        assert view(body).latest == question
    plain = claude_code(user(BIKE), CALLED, user(question, before=(RESULT,)))
    assert classify(claude_code(user(BIKE), CALLED, last)) == classify(plain)
    # what the backend gets is as before: the turn's texts joined
    forwarded = anthropic_request.to_chat(claude_code_body([user(BIKE), CALLED, last]))
    assert forwarded["messages"][-1] == {"role": "user", "content": f"{hook}\n{question}"}


def test_a_notice_in_a_responses_message_ends_with_its_part() -> None:
    """So too the text parts of a Responses user message: joined in the view, the question
    after a Stop hook's part was no ask (unknown 0.0), and the ask before it the latest."""
    parts = [{"type": "input_text", "text": text} for text in (HOOK, QUESTION)]
    item = {"type": "message", "role": "user", "content": parts}
    body = chat_view("responses", codex_body([user_item(BIKE), item]))
    assert view(body).latest == QUESTION
    assert classify(body).label != "unknown"
    forwarded = responses_request.to_chat(codex_body([item]))  # the backend's: as before
    assert forwarded["messages"][-1] == {"role": "user", "content": f"{HOOK}\n{QUESTION}"}
