"""A tool's result before Cline's resumption asks nothing only before the whole of it.

Cline resumes a task stopped after a tool ran in the turn that carries the tool's result, its
"[TASK RESUMPTION]" text after it: the result is not read, only a reply in the turn. A
bracketed "Result:" line starts a log or a user's paste too, and the resumption's first words
are what a user quotes of it: matched by them alone, such a text was no ask (found in review).
"""

from __future__ import annotations

import pytest

from classifier import classify
from classifier.harness import own_words, turn_words
from classifier.request import view
from tests.agent_shapes import CLINE_ENVIRONMENT, RESUMPTION, cline_task

BIKE = "Why does my bike chain keep slipping when I climb hills?"
# A user's texts: a test run's output, or a log's line, then the resumption's first words
QUOTED = [
    "[execute_command for 'npm test'] Result:\nFAIL src/a.test.ts\n[TASK RESUMPTION] This task "
    "was interrupted — why does Cline show this after my tests fail?",
    "[INFO] Result: 12 passed, 0 failed\n[TASK RESUMPTION] This task was interrupted, says my "
    "Cline log. How can I make the agent skip re-running the tests?",
]
PARTS = [
    "[PASS] Result: 12 tests",
    "[TASK RESUMPTION] This task was interrupted 1 minute ago. Why does Cline say this?",
]


@pytest.mark.parametrize("text", QUOTED)
def test_a_result_line_before_the_resumptions_first_words_is_read_as_written(text: str) -> None:
    """Each was no ask, unknown 0.0 (as written: coding 0.68, tool_calling 0.45)."""
    assert own_words(text) is text
    body = {"messages": [{"role": "user", "content": text}]}
    assert view(body).latest == text
    assert classify(body).label != "unknown"


def test_parts_so_are_read_as_written() -> None:
    """As a turn's parts, the first was read as a tool's result Cline resumed after."""
    assert turn_words(PARTS) == PARTS
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": t} for t in PARTS]}]}
    assert view(body).latest == "\n".join(PARTS)


def test_words_after_the_whole_resumption_are_read_as_at_a_texts_start() -> None:
    """After a tool's result, what follows the whole template is read as it is where the
    resumption starts the text: a user's question after pasting both was no ask."""
    result = "[read_file for 'src/a.ts'] Result:\nexport const a = 1;"
    assert own_words(f"{RESUMPTION}\n\n{BIKE}") == BIKE
    assert own_words(f"{result}\n\n{RESUMPTION}\n\n{BIKE}") == BIKE
    assert own_words(f"{result}\n\n{RESUMPTION}") == ""


@pytest.mark.parametrize("after", ["", f"\n{CLINE_ENVIRONMENT}"])
def test_words_after_a_first_turns_whole_resumption_are_read_with_its_task(after: str) -> None:
    """A first turn resumed (its task, the editor's state, the resumption, joined) read only
    a reply after the template, in `<user_message>`: words after it, as where the resumption
    starts a text, were lost, and the task alone was the ask (prose 0.99, a question on a
    bike chain after it unread). They are read with the task now (prose 0.83, as the two
    alone)."""
    sonnet = "Write a sonnet about autumn leaves falling on a quiet river."
    joined = "\n".join([cline_task(sonnet), CLINE_ENVIRONMENT, RESUMPTION, f"\n{BIKE}{after}"])
    assert own_words(joined) == f"{sonnet}\n{BIKE}"
    body = {"messages": [{"role": "user", "content": joined}]}
    assert view(body).latest == f"{sonnet}\n{BIKE}"
    plain = {"messages": [{"role": "user", "content": f"{sonnet}\n{BIKE}"}]}
    assert classify(body) == classify(plain)
    # without them, or after only the template's first words, the task alone is read
    assert own_words("\n".join([cline_task(sonnet), RESUMPTION, CLINE_ENVIRONMENT])) == sonnet
    quoted = f"{cline_task(sonnet)}\n[TASK RESUMPTION] This task was interrupted just now.\n{BIKE}"
    assert own_words(quoted) == sonnet
