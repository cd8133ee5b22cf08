"""Aider's fixed pairs and reflections are Aider's only in Aider's requests
(`classifier.aider.is_aiders`): their words are anyone's, and a client's user who writes
"I ran this command:" or "I committed the changes with git hash ..." asks in them.

Found in review: a chat of a poem's ask, then "I ran this command:\\n\\npython app.py\\n\\nAnd
got this output:\\n... What's wrong with my code?" was read from the poem (prose 0.9955, the
question no ask, an agent's session by `harness_cut`), the question alone as nothing
(coding 0.92 before); a note of a commit with a limerick's ask, an assistant's prefill after
it, was passed over as Aider's pair, the ask before it read instead.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.asks import first_ask
from classifier.request import view
from tests.agent_shapes.aider import (
    COMMITTED,
    FILES,
    REFLECTIONS,
    REPLY,
    WHOLE_SYSTEM,
    aider_reflection,
)

POEM = "Write a short poem about autumn leaves."
RAN = (
    "I ran this command:\n\npython app.py\n\nAnd got this output:\nTraceback (most recent call"
    " last):\n  File \"app.py\", line 3\nKeyError: 'x'\nWhat's wrong with my code?"
)
PIP = (
    "I ran this command:\n\npip install torch==2.9\n\nAnd got this output:\nERROR: Could not"
    " find a version that satisfies the requirement torch==2.9\nHow do I fix this?"
)
FIX = "Fix the failing test in tests/test_api.py"
LIMERICK = (
    "I committed the changes with git hash 3f2a1b9. Now write a short limerick celebrating the"
    " release for our team chat."
)


def chat(*texts: str) -> dict[str, Any]:
    """A chat of `texts`, the user's and the assistant's by turns."""
    roles = ("user", "assistant")
    return {
        "model": "auto",
        "messages": [{"role": roles[i % 2], "content": t} for i, t in enumerate(texts)],
    }


@pytest.mark.parametrize(
    "body", [chat(POEM, "Leaves fall...", RAN), chat(PIP)], ids=["after a poem", "alone"]
)
def test_a_users_command_and_its_output_are_their_ask(body: dict[str, Any]) -> None:
    """Aider's reflection after a failing test command starts so, and runs to the text's end;
    in another client's chat the text is the user's question, read as the latest ask, and
    nothing of an agent's was cut (`harness_cut`: no agent's session)."""
    text = body["messages"][-1]["content"]
    assert view(body).latest == text
    assert not view(body).harness_cut
    explained = explain(body)
    assert explained["read"]["latest_chars"] == len(text)
    assert explained["rule"] is None
    assert classify(body).label == "coding"


def test_the_same_text_in_aiders_request_is_its_reflection() -> None:
    """In Aider's request (its examples, its pairs) the text is its own: the turn is read from
    the user's ask before it, as for its other reflections."""
    for committed in (False, True):
        body = aider_reflection(POEM, [RAN], "whole", committed)
        assert view(body).latest == POEM
        assert view(body).harness_cut


@pytest.mark.parametrize(
    "note",
    [LIMERICK, "I updated the files.", "I edited the files myself."],
    ids=["commit", "updated", "edited"],
)
def test_a_note_like_aiders_before_a_prefill_is_the_ask(note: str) -> None:
    """An assistant's prefill (or a tool call) after the user's message makes it look like one
    of Aider's pairs, its note and "Ok."; outside Aider's requests it is the latest ask."""
    body = chat(FIX, "Done: the fixture now closes the client.", note, "There")
    assert view(body).latest == note
    assert view(body).first == FIX
    assert explain(body)["read"]["latest_chars"] == len(note)
    asked = first_ask(chat(note, "There")["messages"])
    assert isinstance(asked, dict) and asked["content"] == note


def test_aiders_request_is_told_by_its_files_after_a_long_history() -> None:
    """Without examples (its ask mode, or examples in the system prompt) and with no
    repository map, Aider's one pair on every request may be the files', which older
    versions send after the session's history, before the current messages: the request is
    Aider's by it, among its last messages, and its notes and reflections are passed over."""
    history = [m for n in range(12) for m in (chat(f"rename helper {n}", "Done.")["messages"])]
    committed = [{"role": "user", "content": COMMITTED}, {"role": "assistant", "content": "Ok."}]
    _, failure = REFLECTIONS["lint"]
    current = [{"role": "user", "content": POEM}, REPLY, {"role": "user", "content": failure}]
    messages = [{"role": "system", "content": WHOLE_SYSTEM}, *history, *committed]
    body = {"model": "auto", "messages": [*messages, *FILES, *current]}
    assert view(body).latest == POEM
    assert view(body).harness_cut
    assert explain(body)["model_intent"] == "prose"
