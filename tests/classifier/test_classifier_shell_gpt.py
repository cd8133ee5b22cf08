"""Shell-GPT's shell, code and shell-describing roles ask for code, whatever the ask is about
(`classifier.shell_gpt`).

Shell-GPT 1.5.1 (MIT; `sgpt/role.py`, rendered by `SystemRole.create_defaults` on Debian 12
with bash) sends each ask under its role's system prompt. Under the `--shell` role "what is
17% of 2300" was math 0.85 and went to the cloud, under the `--code` role "solve x^2 - 5x + 6
= 0" math 0.996, though the user asked for a command or code (found running sgpt against the
router). Its default role is a general assistant's: its asks are read as they are.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.fixed import CODE_ANSWER_READING
from classifier.request import view
from classifier.rules import CODE_ANSWER
from tests.classifier.fixed_readings import assert_decided_by

# sgpt 1.5.1's roles as it sent them (`ROLE_TEMPLATE` "You are {name}\n{role}")
SHELL = (
    "You are Shell Command Generator\nProvide only bash commands for Linux/Debian GNU/Linux 12"
    " (bookworm) without any description.\nIf there is a lack of details, provide most logical"
    " solution.\nEnsure the output is a valid shell command.\nIf multiple steps required try to"
    " combine them together using &&.\nProvide only plain text without Markdown formatting.\nDo"
    " not provide markdown formatting such as ```.\n"
)
CODE = (
    "You are Code Generator\nProvide only code as output without any description.\nProvide only"
    " code in plain text format without Markdown formatting.\nDo not include symbols such as ```"
    " or ```python.\nIf there is a lack of details, provide most logical solution.\nYou are not"
    ' allowed to ask for more details.\nFor example if the prompt is "Hello world Python", you'
    " should return \"print('Hello world')\"."
)
DESCRIBE = (
    "You are Shell Command Descriptor\nProvide a terse, single sentence description of the"
    " given shell command.\nDescribe each argument and option of the command.\nProvide short"
    " responses in about 80 words.\nAPPLY MARKDOWN formatting when possible."
)
DEFAULT = (
    "You are ShellGPT\nYou are programming and system administration assistant.\nYou are"
    " managing Linux/Debian GNU/Linux 12 (bookworm) operating system with bash shell.\nProvide"
    " short responses in about 100 words, unless you are specifically asked for more details.\n"
    "If you need to store any data, assume it will be stored in the conversation.\nAPPLY"
    " MARKDOWN formatting when possible."
)
PERCENT = "what is 17% of 2300"


def asked(system: str | None, ask: str) -> dict[str, Any]:
    """sgpt's body: its role's system prompt, then the ask."""
    head = [] if system is None else [{"role": "system", "content": system}]
    return {"model": "auto", "stream": True, "messages": [*head, {"role": "user", "content": ask}]}


@pytest.mark.parametrize(
    ("system", "ask"),
    [
        (SHELL, PERCENT),
        (SHELL, "write a haiku about git into haiku.txt"),
        (CODE, "solve x^2 - 5x + 6 = 0"),
        (CODE, "generate a random haiku"),
        (DESCRIBE, "echo $((17*2300/100))"),
        (DESCRIBE, "find . -name '*.py' -mtime 0"),
    ],
)
def test_a_code_role_makes_any_ask_coding(system: str, ask: str) -> None:
    seen = view(asked(system, ask))
    assert (seen.latest, seen.fixed == CODE_ANSWER_READING) == (ask, True)
    assert_decided_by(asked(system, ask), CODE_ANSWER_READING, CODE_ANSWER, "coding")


@pytest.mark.parametrize("system", [DEFAULT, None, "You are a helpful assistant."])
def test_the_default_role_and_no_role_read_the_ask(system: str | None) -> None:
    """The default role is a general assistant's: math stays math, as asked alone."""
    seen = view(asked(system, PERCENT))
    assert seen.fixed != CODE_ANSWER_READING
    assert classify(asked(system, PERCENT)).label == "math"


@pytest.mark.parametrize(
    "system",
    [
        # the role's name typed by a user, not at the prompt's start
        "Reply briefly. You are Shell Command Generator\n",
        # another name that starts alike
        "You are Code Generator Pro, a friendly tutor.\n",
        # no system prompt: the role's opening typed as the user's ask
        None,
    ],
)
def test_only_the_roles_opening_of_the_system_prompt_counts(system: str | None) -> None:
    ask = PERCENT if system is not None else SHELL + PERCENT
    assert view(asked(system, ask)).fixed != CODE_ANSWER_READING


def test_a_role_in_parts_and_later_turns_still_ask_for_code() -> None:
    """The role's prompt as a content part, and a follow-up turn of a `--repl` chat under it."""
    parts = asked(None, PERCENT)
    parts["messages"].insert(0, {"role": "system", "content": [{"type": "text", "text": SHELL}]})
    assert view(parts).fixed == CODE_ANSWER_READING
    chat = asked(SHELL, PERCENT)
    chat["messages"] += [
        {"role": "assistant", "content": "echo $((17*2300/100))"},
        {"role": "user", "content": "and 23% of it"},
    ]
    assert classify(chat).label == "coding"


def test_a_role_as_a_developer_message_asks_for_code_too() -> None:
    """A client may send the role's prompt as a developer message (OpenAI takes either): the
    readers of a system prompt's opening took a system message alone, while those of its one
    text took both (found in review)."""
    body = asked(SHELL, PERCENT)
    body["messages"][0]["role"] = "developer"
    assert view(body).fixed == CODE_ANSWER_READING
