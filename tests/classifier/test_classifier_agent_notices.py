"""An agent's notices in a user turn are not the user's words; the user's words in them are.

Cline and Roo Code reopen an interrupted task with a "[TASK RESUMPTION]" text, and the user's
new message after it in `<user_message>`, followed by a file it names; Roo Code puts the
file a tool read after the user's feedback on approving the read. Each was read as the
user's ask, or the user's words with the agent's around them, and gave the request another
label than the user's words alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.harness import has_words, own_words
from classifier.request import view
from tests.agent_shapes import (
    CLINE_ENVIRONMENT,
    PLAN_NO_MESSAGE,
    PLAN_RESUMPTION,
    RESUMPTION,
    cline_feedback,
    cline_task,
    resumed_with,
    roo_approved,
)

ASK = "Refactor parse_config in src/config.py to raise ValueError on unknown keys."
BIKE = "Why does my bike chain keep slipping when I climb hills?"
SONNET = "Write a sonnet about autumn leaves falling on a quiet river."
NAMED = f"'notes/ride.md' (see below for file content) {SONNET}"  # what `resumed_with` wraps


def texts(*items: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text} for text in items]


def cline(last: list[str], joined: bool, task: str = ASK) -> dict[str, Any]:
    """A Cline conversation: the task, a reply, and a user turn of `last` and the editor's
    state, as text parts or joined (the router's view of a Messages turn)."""
    turn = [*last, CLINE_ENVIRONMENT]
    first = {"role": "user", "content": texts(cline_task(task), CLINE_ENVIRONMENT)}
    reply = {"role": "assistant", "content": "<attempt_completion>"}
    content = "\n".join(turn) if joined else texts(*turn)
    return {"messages": [first, reply, {"role": "user", "content": content}]}


def sent(words: str, task: str = ASK) -> dict[str, Any]:
    """The same conversation with `words` sent alone as the last turn."""
    body = cline([], joined=False, task=task)
    body["messages"][-1] = {"role": "user", "content": words}
    return body


@pytest.mark.parametrize("joined", [False, True])
@pytest.mark.parametrize(
    "last",
    [
        [RESUMPTION, resumed_with(SONNET)],  # Cline: two parts
        [f"{RESUMPTION}\n\n{resumed_with(SONNET)}"],  # Roo Code: one text
        [PLAN_RESUMPTION, resumed_with(SONNET, plan=True)],  # Cline's plan mode
    ],
)
def test_the_users_message_on_resuming_a_task_is_read_alone(last: list[str], joined: bool) -> None:
    """Cline's resumption text was read as the ask, and the user's message with it: a
    sonnet asked for on resuming was writing 0.24 (plan mode instruction 0.26), alone prose
    0.87. The message is in the middle of its text: a file it names follows it."""
    body = cline(last, joined)
    assert view(body).latest == NAMED
    assert classify(body) == classify(sent(NAMED))
    assert classify(body).label == "prose"


@pytest.mark.parametrize("joined", [False, True])
@pytest.mark.parametrize("notice", [[RESUMPTION], [PLAN_RESUMPTION, PLAN_NO_MESSAGE]])
def test_resuming_a_task_without_a_message_leaves_the_task_the_ask(
    notice: list[str], joined: bool
) -> None:
    """Resumed with no new message, the resumption was the latest ask: a sonnet task was
    reasoning 0.28 (plan mode writing 0.45). The task is the latest again, prose 0.99."""
    body = cline(notice, joined, task=SONNET)
    assert not any(has_words(text) for text in notice)
    assert (view(body).latest, view(body).first) == (SONNET, "")
    assert classify(body) == classify({"messages": body["messages"][:1]})
    assert classify(body).label == "prose"


def test_a_first_turn_resumed_is_read_as_its_task() -> None:
    """A task stopped before any reply is resumed with its first turn's texts and the
    resumption after them: the router's view joins them into one text, which was read with
    the resumption, writing 0.28; the task alone is prose 0.99."""
    joined = "\n".join([cline_task(SONNET), CLINE_ENVIRONMENT, RESUMPTION, CLINE_ENVIRONMENT])
    assert own_words(joined) == SONNET
    with_message = "\n".join([cline_task(SONNET), RESUMPTION, resumed_with(BIKE)])
    named = f"'notes/ride.md' (see below for file content) {BIKE}"
    assert own_words(with_message) == f"{SONNET}\n{named}"
    body = {"messages": [{"role": "user", "content": joined}]}
    assert classify(body).label == "prose"


@pytest.mark.parametrize(
    "text",
    [
        f"Which tag holds this?\n<user_message>\n{SONNET}\n</user_message>\nand why?",
        f"New instructions for task continuation:\n<user_message>\n{SONNET}\n</user_message>\nOK?",
        f"{RESUMPTION[:17]} is what Cline sends. Explain it.",
    ],
)
def test_a_users_own_text_with_an_agents_tags_is_read_as_written(text: str) -> None:
    """Followed by words, not the agent's markup, a tagged message is the user's text."""
    assert own_words(text) is text


@pytest.mark.parametrize("joined", [False, True])
def test_feedback_on_approving_a_read_is_read_alone(joined: bool) -> None:
    """Roo Code puts the file it read after the user's feedback on approving the read: the
    feedback is not at its text's end, and was read with the tool's header and the file,
    coding 0.79; alone prose 0.83."""
    feedback = "Now write it as a limerick instead."
    body = cline(roo_approved(feedback), joined)
    assert view(body).latest == feedback
    assert classify(body) == classify(sent(feedback))
    assert classify(body).label == "prose"


def test_feedback_before_a_resumption_is_read_alone() -> None:
    """A turn with the user's feedback, reopened before any reply, has the resumption after
    the feedback in the router's joined view: read with it, coding 0.28; alone prose 0.95."""
    turn = [*cline_feedback(SONNET), CLINE_ENVIRONMENT, RESUMPTION]
    body = cline(turn, joined=True)
    assert view(body).latest == SONNET
    assert classify(body) == classify(sent(SONNET))
