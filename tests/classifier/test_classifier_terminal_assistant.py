"""Terminal assistants' own follow-up turns are no asks (`classifier.terminal_assistant`).

Open Interpreter 0.4.3 in its text mode sends a code run's output back as a user message
("Code output: ...", or "The code above was executed on my machine. It produced no text
output. ..."), and gptme 0.35.1 (`-n`) answers a reply with no tool call with "<system>No
tool call detected in last message. ...</system>". Each was read as the latest ask: one
Open Interpreter conversation read coding 0.43, math 0.62, then tool_calling 0.46 on a
request without tools, and gptme's task coding 0.67 instead of 1.00 (found running both
against the router). The bodies are theirs (`tests/fixtures/open-interpreter-0.4.3.md`,
`tests/fixtures/gptme-0.35.1.md`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify, explain
from classifier.asks import first_ask
from classifier.request import view
from classifier.terminal_assistant import (
    CODE_OUTPUT,
    CODE_OUTPUT_END,
    FINISH,
    NO_OUTPUT,
    NUDGE,
    STUCK,
    STUCK_END,
    TODOS,
    TODOS_END,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"
OI_ASK = "What is 2 to the power of 100? Compute it with code."
GPTME_ASK = (
    "Write a Python function that checks whether a string is a palindrome. Just show the "
    "code, do not save it."
)
MATH = "What is 17 * 23?"


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def oi_turns() -> list[dict[str, Any]]:
    """Open Interpreter's three requests of the review's conversation: the ask, then after
    a run with output, then after one without (each a prefix of the last one's messages)."""
    body = captured("open-interpreter-0.4.3/after-two-runs.json")
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert body["messages"][1]["content"] == OI_ASK
    return [{**body, "messages": body["messages"][:n]} for n in (2, 4, 6)]


def gptme_turns() -> tuple[dict[str, Any], dict[str, Any]]:
    """gptme's first request and the one after its nag (three system messages, the ask, a
    tool round, a reply with no tool call, the nag as one text part)."""
    nagged = captured("gptme-0.35.1/no-tool-nag.json")
    messages = nagged["messages"]
    assert [m["role"] for m in messages][3:] == ["user", "assistant", "tool", "assistant", "user"]
    assert messages[3]["content"] == [{"type": "text", "text": GPTME_ASK}]
    assert messages[-1]["content"] == [{"type": "text", "text": FINISH}]
    return {**nagged, "messages": messages[:4]}, nagged


def test_the_recorded_texts_are_the_templates() -> None:
    """The fixtures hold the texts as the sources write them (`interpreter/core/core.py`,
    `gptme/tools/complete.py`)."""
    messages = oi_turns()[2]["messages"]
    assert messages[3]["content"].startswith(CODE_OUTPUT)
    assert messages[3]["content"].endswith(CODE_OUTPUT_END)
    assert messages[5]["content"] == NO_OUTPUT


def test_open_interpreters_turns_after_a_run_read_the_users_ask() -> None:
    """Every turn of the conversation reads the ask, as its first did (coding 0.43 on the
    model; before, math 0.62, then tool_calling 0.46), and none reads as a coding agent's
    session: its first turn had none of its texts."""
    first, *later = oi_turns()
    for body in later:
        v = view(body)
        assert (v.latest, v.first, v.harness_cut) == (OI_ASK, "", False)
        assert classify(body) == classify(first)
        assert explain(body)["top_intents"] == explain(first)["top_intents"]
    assert classify(first).label == "coding"


def test_gptmes_nag_reads_the_users_task() -> None:
    first, nagged = gptme_turns()
    assert view(nagged).latest == GPTME_ASK
    assert classify(nagged) == classify(first)
    assert classify(nagged).label == "coding"


def in_oi(*turns: str) -> dict[str, Any]:
    """An Open Interpreter conversation of `turns` (user, assistant, user...), its system
    prompt first."""
    system = oi_turns()[0]["messages"][0]
    roles = ["user", "assistant"] * len(turns)
    return {"model": "auto", "messages": [system, *map(_message, roles, turns)]}


def _message(role: str, content: str) -> dict[str, str]:
    return {"role": role, "content": content}


RUN = "```python\nprint(17 * 23)\n```"


@pytest.mark.parametrize(
    "template",
    [
        f"{CODE_OUTPUT}391{CODE_OUTPUT_END}",
        NO_OUTPUT,
        FINISH,
        f"{TODOS}- [ ] write tests\n- [ ] update docs{TODOS_END}",
        NUDGE,
        f"{STUCK}shell`) was repeated 3 times without progress.{STUCK_END}",
    ],
)
def test_a_math_ask_stays_math_after_each_template(template: str) -> None:
    """Read past to the ask, a follow-up turn reads as the first did: math, not coding by
    the agent session's rule (these texts do not make one: the first turn has none)."""
    first = in_oi(MATH)
    later = in_oi(MATH, RUN, template)
    assert view(later).latest == MATH
    assert classify(later) == classify(first)
    assert classify(later).label == "math"


def test_the_users_words_after_a_template_are_the_ask() -> None:
    """Open Interpreter joins a user message sent right after a run to the run's output
    (" " for the last message), gptme with a blank line: the words after it are the ask."""
    alone = in_oi("Write a function that sorts a list", RUN, MATH)
    for joined in (
        f"{CODE_OUTPUT}391{CODE_OUTPUT_END} {MATH}",
        f"{NO_OUTPUT}\n{MATH}",
        f"{FINISH}\n\n{MATH}",
    ):
        body = in_oi("Write a function that sorts a list", RUN, joined)
        assert view(body).latest == MATH
        assert classify(body) == classify(alone)


@pytest.mark.parametrize(
    "text",
    [
        # starts like a template, without its end: the user's
        f"{CODE_OUTPUT}391\n\nWhy is it 391 and not 390?",
        "The code above was executed on my machine. Why did it print nothing?",
        "<system>No tool call detected in last message.</system> what does this mean?",
        # the template's end, quoted mid-text
        f"Explain OI's prompt{CODE_OUTPUT_END}",
    ],
)
def test_a_users_text_that_only_looks_like_a_template_is_read_as_written(text: str) -> None:
    body = in_oi("Write a function that sorts a list", RUN, text)
    assert view(body).latest == text


def test_a_template_before_any_ask_is_a_users_paste() -> None:
    """Both send the user's prompt first: a template that opens the conversation, or comes
    after one that does, is the user's paste, read as written, and keys it."""
    pasted = f"{CODE_OUTPUT}Traceback (most recent call last){CODE_OUTPUT_END}"
    alone = {"messages": [{"role": "user", "content": pasted}]}
    assert view(alone).latest == pasted
    assert first_ask(alone["messages"]) is alone["messages"][0]
    again = in_oi(pasted, "It failed.", NO_OUTPUT)
    assert view(again).latest == NO_OUTPUT
    words = in_oi(pasted, "It failed.", f"{NO_OUTPUT} {MATH}")
    assert view(words).latest == f"{NO_OUTPUT} {MATH}"


def test_a_template_in_parts_of_several_texts_is_read_as_written() -> None:
    """One text, as both send it (gptme a single text part): a turn of more parts is no
    template of theirs."""
    body = in_oi("Write a function that sorts a list", RUN, "x")
    parts = [{"type": "text", "text": FINISH}, {"type": "text", "text": MATH}]
    body["messages"][-1] = {"role": "user", "content": parts}
    assert view(body).latest == f"{FINISH}\n{MATH}"


def test_the_templates_are_read_past_to_a_bound() -> None:
    """At most eight templates in one text, and an end looked for within 100,000 characters
    of its opening: past either, the text is read as written."""
    many = "\n".join([NO_OUTPUT] * 9)
    body = in_oi(MATH, RUN, many)
    assert view(body).latest != MATH
    assert view(in_oi(MATH, RUN, "\n".join([NO_OUTPUT] * 8))).latest == MATH
    long = f"{CODE_OUTPUT}{'x' * 100_001}{CODE_OUTPUT_END}"
    assert view(in_oi(MATH, RUN, long)).latest != MATH
    fits = in_oi(MATH, RUN, f"{CODE_OUTPUT}{'x' * 99_000}{CODE_OUTPUT_END}")
    assert view(fits).latest == MATH


TEMPLATES = [
    f"{CODE_OUTPUT}391{CODE_OUTPUT_END}",
    NO_OUTPUT,
    FINISH,
    f"{TODOS}- [ ] write tests{TODOS_END}",
    NUDGE,
    f"{STUCK}shell`) was repeated 3 times without progress.{STUCK_END}",
]


@pytest.mark.parametrize("template", TEMPLATES)
@pytest.mark.parametrize("system", [None, "You are a helpful assistant."])
def test_a_template_in_another_apps_chat_is_the_users(template: str, system: str | None) -> None:
    """Pasted after a greeting in a chat that is neither's (no system prompt opening with
    Open Interpreter's or gptme's name), a template is the user's ask, alone or with their
    words after it: each was read as "hi" (found in review)."""
    opening = [{"role": "system", "content": system}] if system else []
    for pasted in (template, f"{template}\n\nWhat does this mean?"):
        turns = ["hi", "Hello! How can I help you today?", pasted]
        body = {
            "model": "auto",
            "messages": [*opening, *map(_message, ["user", "assistant", "user"], turns)],
        }
        assert view(body).latest == pasted


def test_gptmes_own_prompt_frames_its_nag() -> None:
    """Its recorded request opens with its system prompt, its version after "You are gptme
    v": the nag is passed over there, and read as written under another prompt."""
    _, nagged = gptme_turns()
    assert view(nagged).latest == GPTME_ASK
    other = {
        **nagged,
        "messages": [{"role": "system", "content": "Be brief."}, *nagged["messages"][1:]],
    }
    assert view(other).latest == FINISH
