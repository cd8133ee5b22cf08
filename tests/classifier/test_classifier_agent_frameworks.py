"""Agent frameworks' texts, where they are read and where they are not: crewAI's task frame
and its nudge after a tool (`classifier.crewai`), pydantic-ai's retry feedback
(`classifier.pydantic_ai`). The captured bodies go through the router in
`tests/agent_apis/test_agent_crewai.py` and `test_agent_pydantic_ai.py`; here, the edges of
their scope, on the classifier's view alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier.crewai import CRITERIA, CRITERIA_END, POST_TOOL
from classifier.pydantic_ai import BARE_END, RETRY_FRAMING
from classifier.request import ask_content, view

CREW_SYSTEM = (
    "You are Mathematician. You are good at arithmetic.\nYour personal goal is: Solve math"
)
TASK = f"\nCurrent Task: Compute 17 * 23{CRITERIA}The number{CRITERIA_END}"
FEEDBACK = (
    f"{RETRY_FRAMING}<pyai:retry_feedback>\nThe population must be positive\n</pyai:retry_feedback>"
)


def chat(*messages: tuple[str, str]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


@pytest.mark.parametrize(
    ("task", "read"),
    [
        (TASK + "\n\nProvide your complete response:", "Compute 17 * 23\nThe number"),
        # crewAI's additions after its sentence are no one's words to read
        (
            TASK + "\nYour final answer MUST be formatted in Markdown syntax.",
            "Compute 17 * 23\nThe number",
        ),
        # without its fixed last sentence, the text is no frame of crewAI's: read whole
        (f"\nCurrent Task: Compute 17 * 23{CRITERIA}The number", None),
        ("Current Task: Compute 17 * 23", None),
    ],
)
def test_a_crewai_task_is_read_by_its_words(task: str, read: str | None) -> None:
    body = chat(("system", CREW_SYSTEM), ("user", task))
    assert view(body).latest == (task if read is None else read)
    assert ask_content(body["messages"][1], body["messages"]) == (task if read is None else read)


def test_crewais_words_in_another_request_are_read_as_written() -> None:
    """A system prompt of another app, or a user's "Analyze the tool result..." after a reply
    in a chat of theirs, is read as written."""
    other = chat(("system", "You are a helpful assistant."), ("user", TASK))
    assert view(other).latest == TASK
    typed = chat(("user", "Compute 17 * 23"), ("assistant", "391"), ("user", POST_TOOL))
    assert view(typed).latest == POST_TOOL
    crews = chat(("system", CREW_SYSTEM), ("user", TASK), ("assistant", "391"), ("user", POST_TOOL))
    seen = view(crews)
    assert (seen.latest, seen.harness_cut) == ("Compute 17 * 23\nThe number", False)


@pytest.mark.parametrize(
    "feedback",
    [
        FEEDBACK,
        f"Validation feedback:\nThe population must be positive{BARE_END}",
        f'2 validation errors:\n```json\n[{{"type": "missing"}}]\n```{BARE_END}',
    ],
)
def test_pydantic_ais_feedback_after_a_reply_is_passed_over(feedback: str) -> None:
    body = chat(("user", "What is the largest city in France?"), ("assistant", "Paris"))
    body["messages"].append({"role": "user", "content": feedback})
    seen = view(body)
    assert (seen.latest, seen.harness_cut) == ("What is the largest city in France?", False)


@pytest.mark.parametrize(
    "messages",
    [
        # no response before it: a user's first message
        [("user", FEEDBACK)],
        # a user's words around it
        [("user", "Why?"), ("assistant", "Paris"), ("user", f"About this: {FEEDBACK}")],
        [("user", "Why?"), ("assistant", "Paris"), ("user", f"{FEEDBACK}\nWhat does it mean?")],
    ],
)
def test_its_words_otherwise_are_read_as_written(messages: list[tuple[str, str]]) -> None:
    assert view(chat(*messages)).latest == messages[-1][1]
