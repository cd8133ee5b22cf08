"""What Cline appends to the user's words for each @-mention in them is not the ask.

Cline replaces a mention with a note ("'src/config.py' (see below for file content)") and
appends, after the user's words in its tags, what the mention names: a file's content, a
folder's, a web page, the editor's problems, the terminal's output, git's working state or a
commit (`parseMentions`, cline/cline src/core/mentions/index.ts). Read with the task, they
made a sonnet coding; the task's words alone are read now, as are a reply's.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.harness import own_words
from classifier.request import view
from router.translate.view import chat_view
from tests.agent_shapes import CLINE_ENVIRONMENT, RESUMPTION, cline_task

SONNET = "Write a sonnet about autumn leaves falling on a quiet river."
REFACTOR = "Refactor parse_config in src/config.py to raise ValueError on unknown keys."
CODE = (
    "def parse_config(d):\n    for key in d:\n        if key not in KEYS:\n"
    '            raise ValueError(f"unknown key: {key}")\n    return dict(d)'
)
# Each mention as Cline writes it in the user's words, and what it appends for it (after a
# blank line: a folder's listing is followed by its files' content, each in `file_content`)
MENTIONS = {
    "file": (
        "'notes/ride.md' (see below for file content)",
        f'<file_content path="notes/ride.md">\n{CODE}\n</file_content>',
    ),
    "folder": (
        "'src/' (see below for folder content)",
        '<folder_content path="src/">\n├── cli.py\n└── config.py\n\n<file_content path="src/'
        f'config.py">\n{CODE}\n</file_content>\n</folder_content>',
    ),
    "url": (
        "'https://example.com/chains' (see below for site content)",
        '<url_content url="https://example.com/chains">\n# Chains\n\nA worn chain skips under '
        "load. Measure it with a gauge: 0.75% stretch means replace it.\n</url_content>",
    ),
    "problems": (
        "Workspace Problems (see below for diagnostics)",
        '<workspace_diagnostics>\nsrc/config.py\n- [Pylance Error] Line 3: "KEYS" is not '
        "defined\n</workspace_diagnostics>",
    ),
    "terminal": (
        "Terminal Output (see below for output)",
        "<terminal_output>\n$ pytest -q\nFAILED tests/test_config.py::test_unknown_key - "
        "NameError: name 'KEYS' is not defined\n1 failed, 4 passed in 0.12s\n</terminal_output>",
    ),
    "git-changes": (
        "Working directory changes (see below for details)",
        "<git_working_state>\nWorking directory changes:\n M src/config.py\n\ndiff --git "
        "a/src/config.py b/src/config.py\n+    raise ValueError(key)\n</git_working_state>",
    ),
    "commit": (
        "Git commit 'a1b2c3d' (see below for commit info)",
        '<git_commit hash="a1b2c3d">\ncommit a1b2c3d\nAuthor: Ann <ann@example.com>\n\n    '
        "Validate config keys\n\n src/config.py | 4 ++++\n</git_commit>",
    ),
}
# pytest's output of a long run: what Cline's tool result holds before the user's feedback
OUTPUT = "".join(f"tests/test_config.py::test_key_{i} PASSED [{i:3d}%]\n" for i in range(60))


def texts(*items: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text} for text in items]


def first_turn(text: str, joined: bool) -> dict[str, Any]:
    """Cline's first request: the task's text and the editor's state, as text parts or
    joined into one string."""
    parts = [text, CLINE_ENVIRONMENT]
    return {
        "messages": [{"role": "user", "content": "\n".join(parts) if joined else texts(*parts)}]
    }


@pytest.mark.parametrize("joined", [False, True])
@pytest.mark.parametrize("mention", MENTIONS)
def test_what_a_task_mentions_is_not_read_with_it(mention: str, joined: bool) -> None:
    """Read with the task, a sonnet that names a code file was coding 0.90 (a folder 0.95,
    the terminal's output 0.60, a commit 0.87); its words alone are prose 0.96. The label
    is now the agent_session rule's where it decides; the model's reading is checked."""
    note, block = MENTIONS[mention]
    words = f"{note} {SONNET}"
    body = first_turn(f"{cline_task(words)}\n\n{block}", joined)
    assert view(body).latest == words
    read, alone = explain(body), explain({"messages": [{"role": "user", "content": words}]})
    assert read["top_intents"] == alone["top_intents"]
    assert read["model_intent"] == "prose"


@pytest.mark.parametrize("mention", MENTIONS)
def test_a_block_after_a_task_that_names_no_mention_is_the_users(mention: str) -> None:
    """Cline appends a mention's block only to words with its note ("(see below for"): a
    user's own task tags with such a block after them were read without it ("<task>Explain
    this</task>\n<terminal_output>...</terminal_output>\nand propose a fix", coding 0.77,
    was "Explain this\nand propose a fix", reasoning 0.41)."""
    _, block = MENTIONS[mention]
    text = f"<task>Explain this</task>\n{block}\nand propose a fix"
    assert own_words(text) == f"Explain this\n{block}\nand propose a fix"
    assert view(first_turn(text, joined=True)).latest.startswith(f"Explain this\n{block[:20]}")


def test_several_mentions_and_a_resumption_after_a_task_are_not_read() -> None:
    """Cline appends one block a mention, in the order they come; a first turn resumed has
    the resumption after them, and the message sent with it is read with the task."""
    notes = " ".join(note for note, _ in MENTIONS.values())
    blocks = "\n\n".join(block for _, block in MENTIONS.values())
    task = f"{cline_task(f'{notes} {SONNET}')}\n\n{blocks}"
    assert own_words(f"{task}\n{CLINE_ENVIRONMENT}") == f"{notes} {SONNET}"
    resumed = (
        f"{task}\n{CLINE_ENVIRONMENT}\n[TASK RESUMPTION] This task was interrupted just now."
        "\n\nNew instructions for task continuation:\n<user_message>\nMake it rhyme.\n"
        f"</user_message>\n\n{MENTIONS['file'][1]}"
    )
    assert own_words(resumed) == f"{notes} {SONNET}\nMake it rhyme."


@pytest.mark.parametrize("joined", [False, True])
def test_feedback_after_a_long_output_is_read_without_what_it_mentions(joined: bool) -> None:
    """Feedback on a command still running follows its output, more than 2,000 characters
    into the text, where a reply is looked for only at the text's end: with the file it
    names after it, the text was read whole, coding 0.51; the feedback alone is prose 0.98."""
    feedback = f"{MENTIONS['file'][0]} {SONNET}"
    result = (
        f"Command is still running in the user's terminal.\nHere's the output so far:\n{OUTPUT}"
        f"\n\nThe user provided the following feedback:\n<feedback>\n{feedback}\n</feedback>"
        f"\n\n{MENTIONS['file'][1]}"
    )
    turn = ["[execute_command for 'pytest -v'] Result:", result, CLINE_ENVIRONMENT]
    body = {
        "messages": [
            {"role": "user", "content": texts(cline_task(SONNET), CLINE_ENVIRONMENT)},
            {"role": "assistant", "content": "<execute_command>"},
            {"role": "user", "content": "\n".join(turn) if joined else texts(*turn)},
        ]
    }
    assert len(OUTPUT) > 2_000
    assert view(body).latest == feedback
    assert classify(body).label == "prose"


def test_a_messages_body_is_read_so_too() -> None:
    """Through the router's view of a Messages body, which keeps a turn's text blocks."""
    note, block = MENTIONS["file"]
    turn = texts(f"{cline_task(f'{note} {SONNET}')}\n\n{block}", CLINE_ENVIRONMENT)
    body = chat_view(
        "messages",
        {"model": "auto", "max_tokens": 64, "messages": [{"role": "user", "content": turn}]},
    )
    assert view(body).latest == f"{note} {SONNET}"
    assert classify(body).label == "prose"


@pytest.mark.parametrize("mention", ["file", "terminal"])
def test_feedback_before_a_resumption_is_read_without_what_follows_it(mention: str) -> None:
    """A task reopened before any reply to the user's feedback has the resumption after the
    feedback's text and the editor's state: joined (the router's view of a chat string), the
    reply was looked for at the end of the text before the resumption, which the editor's
    state ends, and then only within 2,000 characters of its start, where a long output's
    feedback is not: it was lost, the turn no ask, and the task before it the latest (a
    sonnet asked for as feedback on a refactor was coding 0.94). What ends the text before
    the resumption is cut first (the editor's state, then the mentions): the feedback is
    read alone, as in the turn's parts, prose 0.87. The label is now the agent_session
    rule's; the model's reading is checked."""
    note, block = MENTIONS[mention]
    feedback = f"{note} {SONNET}"
    result = (
        f"Command is still running in the user's terminal.\nHere's the output so far:\n{OUTPUT}"
        f"\n\nThe user provided the following feedback:\n<feedback>\n{feedback}\n</feedback>"
        f"\n\n{block}"
    )
    turn = ["[execute_command for 'pytest -v'] Result:", result, CLINE_ENVIRONMENT, RESUMPTION]
    assert own_words("\n".join(turn)) == feedback
    body = {
        "messages": [
            {"role": "user", "content": texts(cline_task(REFACTOR), CLINE_ENVIRONMENT)},
            {"role": "assistant", "content": "<execute_command>"},
            {"role": "user", "content": "\n".join(turn)},
        ]
    }
    assert view(body).latest == feedback
    assert explain(body)["model_intent"] == "prose"
