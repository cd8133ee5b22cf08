"""The OpenAI Agents SDK's nested handoff history, on the classifier's view and the conversation
key alone (`classifier.openai_agents`): where its user lines are read and where they are not.
The captured bodies go through the router in `tests/agent_apis/test_agent_openai_agents.py`;
here the edges of the reader's scope, its texts quoted from the SDK's source (0.24.0,
`agents/handoffs/history.py`), not taken from the module under test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify, openai_agents
from classifier.asks import first_ask
from classifier.request import view
from router.conversation import conversation_key, prompt_text

FIXTURES = Path(__file__).parents[1] / "fixtures" / "openai-agents-0.24.0"
# `_CONVERSATION_HISTORY_PREAMBLE`, the legacy one it reads too, and the default markers
PREAMBLE = "For context, here is the conversation so far between the user and the previous agent:"
LEGACY = "For context, here is the conversation so far:"
START, END = "<CONVERSATION HISTORY>", "</CONVERSATION HISTORY>"
SYSTEM = {"role": "system", "content": "You solve math problems step by step."}
HANDOFF = (
    '{"arguments": "{}", "call_id": "call_1", "name": "transfer_to_math_agent", "type":'
    ' "function_call", "id": "__fake_id__"}'
)
MATH = "Compute the integral of x^2 from 0 to 3."


def history(*lines: str, preamble: str = PREAMBLE, start: str = START, end: str = END) -> str:
    """The SDK's history message's text (`_build_summary_message`): numbered lines."""
    numbered = [f"{number}. {line}" for number, line in enumerate(lines, 1)]
    return "\n".join([preamble, start, *numbered, end])


def handed(text: str, *after: dict[str, Any]) -> dict[str, Any]:
    """A specialist's chat body: its instructions, the history, and `after`."""
    messages = [SYSTEM, {"role": "assistant", "content": text}, *after]
    return {"model": "auto", "messages": messages}


def key(body: dict[str, Any]) -> str:
    return conversation_key(body, {}, "caller", b"secret")


def test_the_sdks_texts_are_the_ones_it_sends() -> None:
    body = json.loads((FIXTURES / "run-0-math-agent.json").read_text(encoding="utf-8"))
    sent = body["messages"][1]["content"]
    assert sent.startswith(f"{PREAMBLE}\n{START}\n1. user: Solve for x: 2x^2 - 8 = 0.\n2. {{")
    assert sent.endswith(f"\n{END}")
    assert view(body).latest == "Solve for x: 2x^2 - 8 = 0."


@pytest.mark.parametrize(
    "line",
    [
        f"user: {MATH}",
        f"user (alice): {MATH}",  # a message with a `name`
        json.dumps({"content": MATH, "role": "user"}),
        json.dumps({"role": "user", "content": [{"type": "input_text", "text": MATH}]}),
    ],
)
def test_a_user_line_is_read_as_the_ask(line: str) -> None:
    body = handed(history(line, HANDOFF))
    assert (view(body).latest, view(body).first) == (MATH, "")
    assert classify(body).label == "math"


def test_the_legacy_preamble_is_read_too() -> None:
    """The SDK reads a history under its older preamble when it nests one again."""
    assert view(handed(history(f"user: {MATH}", preamble=LEGACY))).latest == MATH


def test_the_first_and_the_latest_user_line_are_the_first_and_the_latest_ask() -> None:
    lines = ("user: Solve for x: 2x^2 - 8 = 0.", "assistant: x = 2 or x = -2.", f"user: {MATH}")
    body = handed(history(*lines, HANDOFF))
    read = view(body)
    assert (read.latest, read.first) == (MATH, "Solve for x: 2x^2 - 8 = 0.")
    assert first_ask(body["messages"]) == {"role": "user", "content": "Solve for x: 2x^2 - 8 = 0."}


def test_a_user_message_after_the_history_is_the_latest_ask() -> None:
    """A user message sent after it (an app that adds one): the latest ask; the history's
    first user line is still the conversation's first."""
    body = handed(
        history(f"user: {MATH}", HANDOFF), {"role": "user", "content": "And from 0 to 4?"}
    )
    assert (view(body).latest, view(body).first) == ("And from 0 to 4?", MATH)
    assert key(body) == key(handed(history(f"user: {MATH}", HANDOFF)))


def test_one_runs_specialist_keys_by_its_first_ask() -> None:
    """Two runs' specialists under the same instructions are two conversations; a specialist's
    later call, after its tool ran, is its first's."""
    one, other = handed(history(f"user: {MATH}")), handed(history("user: Solve 2x = 4."))
    assert key(one) != key(other)
    call = {"id": "c1", "type": "function", "function": {"name": "multiply", "arguments": "{}"}}
    tool = [{"role": "assistant", "tool_calls": [call]}, {"role": "tool", "tool_call_id": "c1"}]
    assert key(handed(history(f"user: {MATH}"), *tool)) == key(one)
    assert prompt_text(one) == ""  # the ledger's prompt: the triage call's, kept already


@pytest.mark.parametrize(
    "messages",
    [
        # in a user message: pasted by a user, read as written
        [SYSTEM, {"role": "user", "content": history(f"user: {MATH}")}],
        # not opening the conversation: a reply of the model's, no history of the SDK's
        [
            SYSTEM,
            {"role": "user", "content": "hi, what can you do?"},  # "hi" alone is no ask
            {"role": "assistant", "content": history(f"user: {MATH}")},
        ],
    ],
)
def test_the_history_elsewhere_is_not_read(messages: list[dict[str, Any]]) -> None:
    body = {"model": "auto", "messages": messages}
    assert view(body).latest == messages[1]["content"]


@pytest.mark.parametrize(
    "text",
    [
        history(f"user: {MATH}", start="<HISTORY>", end="</HISTORY>"),  # an app's own markers
        history(f"user: {MATH}") + "\nGo on.",  # not ending as the SDK's does
        history("(no previous turns recorded)"),
        history(HANDOFF, "user:    "),  # no words
        history(json.dumps({"type": "message", "data": {"role": "user", "content": MATH}})),
    ],
)
def test_a_history_holding_no_users_line_asks_nothing(text: str) -> None:
    body = handed(text)
    assert (view(body).latest, view(body).first) == ("", "")
    assert classify(body).source == "default"
    assert key(body) == key(handed(history("(no previous turns recorded)")))


def test_the_history_is_read_at_its_ends() -> None:
    """A user line past `WITHIN` of both ends of the history is not read: the latest read is
    the last found before it, as a message past the classifier's bound is not read."""
    output = json.dumps({"call_id": "c", "output": "x" * 70_000, "type": "function_call_output"})
    lines = ("user: Solve 2x = 4.", output, f"user: {MATH}", output, "user: And from 0 to 4?")
    assert view(handed(history(*lines))).latest == "And from 0 to 4?"
    assert view(handed(history(*lines[:-1]))).latest == "Solve 2x = 4."
    assert openai_agents.WITHIN == 65_536


def test_the_history_is_parsed_once_per_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """Classified, keyed and its prompt kept, a request's history is read once
    (`classifier.message.per_text`), not for each who asks it: its one line, once."""
    calls: list[int] = []
    said = openai_agents._said

    def counted(text: str, line: Any, end: int) -> str | None:
        calls.append(end)
        return said(text, line, end)

    monkeypatch.setattr(openai_agents, "_said", counted)
    body = handed(history(f"user: {MATH}"))
    classify(body)
    key(body)
    prompt_text(body)
    assert len(calls) == 1
    assert view(body).latest == MATH and len(calls) == 1


def test_a_long_item_of_the_users_is_read() -> None:
    """An ask of several lines longer than `WITHIN`: its item's JSON names its role at its
    end, as the SDK writes an ask it was given as a string."""
    ask = "Fix this:\n" + "x = 1\n" * 20_000
    item = json.dumps({"content": ask, "role": "user"})
    assert len(item) > openai_agents.WITHIN
    assert view(handed(history(item, HANDOFF))).latest.startswith("Fix this:\nx = 1")


def test_a_line_nested_too_deep_for_json_is_passed_over() -> None:
    """A line of a user's item nested past the parser's depth: json raised RecursionError,
    the request took the default route and was keyed as sent; now the line is no user's."""
    deep = '{"role": "user", "content": ' + "[" * 50_000
    body = handed(history(f"user: {MATH}", deep))
    assert view(body).latest == MATH
    assert classify(body).label == "math"
    assert key(body) == key(handed(history(f"user: {MATH}")))
