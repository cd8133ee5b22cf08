"""Claude Code's "Tool loaded." at the end of a tool search's turn is not the user's ask.

When a tool result holds the tools a ToolSearch loaded (`tool_reference` blocks), Claude Code
appends a text "Tool loaded." to the user message, after its other texts
(`TOOL_REFERENCE_TURN_BOUNDARY`): the router's view read it as the latest ask. Its note that
the date changed comes in a `<system-reminder>`, which was cut already.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.harness import has_words, own_words, turn_words
from classifier.request import view
from router.translate.view import chat_view
from tests.agent_shapes import (
    DATE_CHANGED,
    TODO_REMINDER,
    TOOL_LOADED,
    TOOL_REFERENCE,
    claude_code_body,
)

BIKE = "Why does my bike chain keep slipping when I climb hills?"
SEARCH = {
    "role": "assistant",
    "content": [
        {"type": "tool_use", "id": "toolu_search", "name": "ToolSearch", "input": {"query": "gh"}}
    ],
}


def claude_code(*turns: dict[str, Any]) -> dict[str, Any]:
    return chat_view("messages", claude_code_body(list(turns)))


def searched(*texts: str) -> dict[str, Any]:
    """The user turn that carries the tool search's result, then Claude Code's texts."""
    return {
        "role": "user",
        "content": [TOOL_REFERENCE, *({"type": "text", "text": t} for t in texts)],
    }


@pytest.mark.parametrize(
    "texts", [[TOOL_LOADED], [TODO_REMINDER, TOOL_LOADED], [f"{TODO_REMINDER}\n{TOOL_LOADED}"]]
)
def test_tool_loaded_after_a_tool_search_is_no_ask(texts: list[str]) -> None:
    """It was the latest ask, tool_calling 0.59; the question before it is again, reasoning
    0.82, as without it (alone, or after a reminder: a part of its own, or joined). The label
    is now the agent_session rule's; the model's reading is checked."""
    body = claude_code({"role": "user", "content": BIKE}, SEARCH, searched(*texts))
    assert view(body).latest == BIKE
    plain = claude_code({"role": "user", "content": BIKE}, SEARCH, searched())
    assert classify(body) == classify(plain)
    assert explain(body)["model_intent"] == "reasoning"
    assert turn_words(texts) == []


def test_tool_loaded_is_cut_only_where_it_ends_a_text_on_a_line_of_its_own() -> None:
    """Claude Code writes nothing after it: a user's text that starts with it, or has it
    mid-line, is read as written; on a line of its own at a text's end it is cut."""
    for text in ("Tool loaded. What does Claude Code mean by it?", "Why does it say Tool loaded."):
        assert own_words(text) is text
    assert own_words(f"  {TOOL_LOADED}\n") == ""
    assert own_words(f"{BIKE}\n{TOOL_LOADED}") == BIKE


def test_tool_loaded_is_cut_after_at_most_64_spaces_on_its_line() -> None:
    """As Claude Code's other notes are looked for: past 64 spaces (or tabs) on its line, it
    is the text's, read as written, at the text's start (where nothing tested it) as after
    a line break. 64 after a line break were not cut, though 64 at the start were."""
    for spaces in (" " * 64, "\t" * 64, " " * 63 + "\t"):
        assert own_words(f"{spaces}{TOOL_LOADED}") == ""
        assert own_words(f"{BIKE}\n{spaces}{TOOL_LOADED}") == BIKE
    for spaces in (" " * 65, "\t" * 65, " " * 200):
        for text in (f"{spaces}{TOOL_LOADED}", f"{BIKE}\n{spaces}{TOOL_LOADED}"):
            assert own_words(text) is text


def test_the_note_that_the_date_changed_is_no_ask() -> None:
    """Claude Code's note when the date changes mid-session comes in a reminder, which is cut
    whole: beside a tool's result it asks nothing, before the user's words it is not read."""
    assert not has_words(DATE_CHANGED)
    result = {"type": "tool_result", "tool_use_id": "toolu_search", "content": "ok"}
    body = claude_code(
        {"role": "user", "content": BIKE},
        SEARCH,
        {"role": "user", "content": [result, {"type": "text", "text": DATE_CHANGED}]},
    )
    assert view(body).latest == BIKE
    assert own_words(f"{DATE_CHANGED}\n{BIKE}") == BIKE
