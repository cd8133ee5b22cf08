"""Which user messages are asks: not the texts an agent adds to a user turn.

Claude Code puts `<system-reminder>` blocks in user turns (its claudeMd context before the
first ask, reminders beside tool results); Codex sends AGENTS.md and its environment as user
items before the task. The classifier read them as the user's words (found in review).
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.request import HARNESS_CHARS, SCAN_MESSAGES, has_words, own_words, view
from tests.agent_shapes import (
    AGENTS_MD,
    AGENTS_MD_NEW,
    CLAUDE_MD_REMINDER,
    ENVIRONMENT,
    TODO_REMINDER,
)

ASK = "Refactor parse_config in src/config.py to raise ValueError on unknown keys."
SONNET = "Write a sonnet about autumn leaves falling on a quiet river."
CALL = {"id": "c1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}
TOOL_ROUND: list[dict[str, Any]] = [
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "def parse_config(d):"},
]


@pytest.mark.parametrize(
    "text",
    [
        TODO_REMINDER,
        f"\n  {TODO_REMINDER}\n\n{CLAUDE_MD_REMINDER}\n",
        AGENTS_MD,
        AGENTS_MD_NEW,
        ENVIRONMENT,
        f"{AGENTS_MD}\n{ENVIRONMENT}",
        "   ",
        "",
    ],
)
def test_a_text_of_harness_blocks_alone_has_no_words(text: str) -> None:
    assert not has_words(text)
    assert own_words(text) in ("", text)


@pytest.mark.parametrize(
    "text",
    [
        f"{CLAUDE_MD_REMINDER}{ASK}",
        f"{ASK}\n{TODO_REMINDER}",
        f"{CLAUDE_MD_REMINDER}\n{ASK}\n\n{TODO_REMINDER}\n",
        f"{ENVIRONMENT}\n{ASK}",
    ],
)
def test_harness_blocks_at_either_end_are_cut_from_the_users_words(text: str) -> None:
    """Claude Code's first turn is its claudeMd context, the ask, and sometimes a reminder
    after it; the router's view joins a turn's texts into one string."""
    assert own_words(text) == ASK
    assert view({"messages": [{"role": "user", "content": text}]}).latest == ASK


@pytest.mark.parametrize(
    "text",
    [
        f"{ASK}\n{TODO_REMINDER}\nand keep the old name as an alias.",  # inside: as written
        f"What does a {ENVIRONMENT[:21]} tag hold in Codex?",
        f"<system-reminder>{ASK}",  # never closed
        f"<system-reminder>{'x' * HARNESS_CHARS}</system-reminder>{ASK}",  # closed too far on
    ],
)
def test_other_texts_are_read_as_written(text: str) -> None:
    assert own_words(text) is text
    assert has_words(text)


def test_a_reminder_beside_a_tool_result_is_no_ask() -> None:
    """Claude Code's tool result with a reminder beside it reaches chat as a tool message
    and a user message of the reminder, which was read as the latest ask: tool_calling
    0.90, where the conversation without it is coding (found in review)."""
    plain = [{"role": "user", "content": ASK}, *TOOL_ROUND]
    reminded = [*plain, {"role": "user", "content": TODO_REMINDER}]
    parts = [*plain, {"role": "user", "content": [{"type": "text", "text": TODO_REMINDER}]}]
    for messages in (reminded, parts):
        v = view({"messages": messages})
        assert (v.latest, v.first, v.after_tool_result) == (ASK, "", True)
        assert classify({"messages": messages}) == classify({"messages": plain})
        assert explain({"messages": messages})["read"] == explain({"messages": plain})["read"]


@pytest.mark.parametrize("agents_md", [AGENTS_MD, AGENTS_MD_NEW])
def test_codexs_own_items_are_no_first_ask(agents_md: str) -> None:
    """Codex's AGENTS.md was read as the first user message, weighing as much as half the
    latest: a sonnet asked for then "continue"d was coding 0.82 (found in review)."""
    opening = [{"role": "user", "content": agents_md}, {"role": "user", "content": ENVIRONMENT}]
    after = [
        {"role": "user", "content": SONNET},
        {"role": "assistant", "content": "Shall I go on?"},
        {"role": "user", "content": "continue"},
    ]
    v = view({"messages": [*opening, *after]})
    assert (v.first, v.latest) == (SONNET, "continue")
    assert classify({"messages": [*opening, *after]}) == classify({"messages": after})
    alone = view({"messages": [*opening, after[0]]})
    assert (alone.first, alone.latest) == ("", SONNET)


def test_an_agents_text_alone_is_the_default_route() -> None:
    body = {"messages": [{"role": "user", "content": TODO_REMINDER}]}
    assert classify(body).source == "default"


def test_the_search_past_user_messages_that_ask_nothing_is_bounded() -> None:
    """Each is read for words, dearer than a role: past `SCAN_MESSAGES` of them the search
    stops, and the first ask is read alone, as past `SCAN_ROLES` messages."""
    ask = {"role": "user", "content": ASK}
    reminders = [{"role": "user", "content": TODO_REMINDER}]
    near = view({"messages": [ask, *reminders * (SCAN_MESSAGES - 1)]})
    assert near.latest == ASK
    far = view({"messages": [ask, *reminders * SCAN_MESSAGES]})
    assert (far.latest, far.first) == ("", ASK)


IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def test_a_tool_results_image_is_no_ask_and_the_result_is_still_the_last() -> None:
    """Chat's tool messages carry text only, so a tool result's image follows them as a user
    message of the image alone, which was read as the latest ask: no text, so the first
    message decided alone, tool_calling 0.27 where the loop without it is coding 0.63
    (found in review). It is not an ask, and the tool result is still the last message."""
    plain = [{"role": "user", "content": ASK}, *TOOL_ROUND]
    shown = [*plain, {"role": "user", "content": [IMAGE]}]
    v = view({"messages": shown})
    assert (v.latest, v.first, v.after_tool_result) == (ASK, "", True)
    assert classify({"messages": shown}) == classify({"messages": plain})
    assert explain({"messages": shown})["read"] == explain({"messages": plain})["read"]


def test_an_image_sent_alone_after_an_ask_leaves_the_ask_the_latest() -> None:
    messages = [{"role": "user", "content": SONNET}, {"role": "user", "content": [IMAGE]}]
    v = view({"messages": messages})
    assert (v.latest, v.first, v.after_tool_result) == (SONNET, "", False)
