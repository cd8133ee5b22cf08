"""DSPy's requests, on the classifier's view and the conversation key alone
(`classifier.dspy`): what is read of each, which are a ReAct step's, and where DSPy's texts
are the user's. The captured runs go through the router in
`tests/agent_apis/test_agent_dspy.py`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.dspy import AGENT, FIELDS, OBJECTIVE, OUTPUTS, STRUCTURE, TAILS
from classifier.fixed import CODE_ANSWER_READING, TOOL_STEP_READING
from classifier.request import view
from router.conversation import conversation_key

FIXTURES = Path(__file__).parents[1] / "fixtures" / "dspy-3.4.1"
FIX = "Fix the bug in utils.py: the add function returns the wrong result."
SKY = "Explain why the sky is blue."
MATH = "Compute 17 * 23"
PYTHON = "Write a Python function that reverses a list"
HAIKU = "Write a haiku about autumn leaves."
# Each body and the ask read of it: the call's inputs but `trajectory`
TASKS = {
    "predict.json": MATH,
    "predict-json-fallback.json": MATH,
    "demos-haiku.json": HAIKU,
    "demos-python.json": PYTHON,
    "demos-python-json-fallback.json": PYTHON,
    "react-step-1.json": FIX,
    "react-step-2.json": FIX,
    "react-extract.json": FIX,
    "react-sky-step-1.json": SKY,
    "react-sky-step-2.json": SKY,
    "react-sky-extract.json": SKY,
    "xml-react-step.json": MATH,
}
STEPS = {"react-step-1.json", "react-step-2.json", "react-sky-step-1.json"}
STEPS |= {"react-sky-step-2.json", "xml-react-step.json"}
STEPS_OF_RUN = ("step-1", "step-2", "extract")  # `react-*.json`, in the order sent


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def test_dspys_texts_are_the_ones_it_sends() -> None:
    """The texts `classifier.dspy` matches, found in the bodies DSPy 3.4.1 sent: the system
    prompt's (`dspy/adapters/chat_adapter.py`, `format_field_description` and
    `format_field_structure`), each adapter's order to answer (`chat_adapter.py`,
    `json_adapter.py`, `xml_adapter.py`: `user_message_output_requirements`), ReAct's
    instructions (`dspy/predict/react.py`)."""
    for name in TASKS:
        system = captured(name)["messages"][0]["content"]
        assert system.startswith(FIELDS) and OUTPUTS in system and STRUCTURE in system
        assert OBJECTIVE in system
        assert (AGENT in system) == (name in STEPS)
    each = ("predict.json", "predict-json-fallback.json", "xml-react-step.json")
    for tail, name in zip(TAILS, each, strict=True):
        assert f"\n\n{tail}" in captured(name)["messages"][-1]["content"]


@pytest.mark.parametrize("name", TASKS)
def test_a_call_is_read_by_its_inputs(name: str) -> None:
    """Not DSPy's headers, its order to answer, a ReAct run's trajectory, nor a demo: the
    call's own inputs, as the latest and only ask."""
    seen = view(captured(name))
    assert (seen.latest, seen.first) == (TASKS[name], "")
    assert (seen.fixed == TOOL_STEP_READING) == (name in STEPS)
    assert (seen.harness_cut, seen.fixed == CODE_ANSWER_READING) == (False, False)


@pytest.mark.parametrize("name", sorted(STEPS))
def test_a_react_step_is_tool_calling(name: str) -> None:
    """Its reply must name a tool ("finish" among them), whatever the task."""
    intent = classify(captured(name))
    assert (intent.label, intent.source) == ("tool_calling", "rule")


@pytest.mark.parametrize(
    ("name", "intent"),
    [
        ("predict.json", "math"),
        ("predict-json-fallback.json", "math"),
        ("demos-haiku.json", "prose"),
        ("demos-python-json-fallback.json", "coding"),
        ("react-sky-extract.json", "reasoning"),
    ],
)
def test_any_other_call_is_what_its_ask_alone_is(name: str, intent: str) -> None:
    """The JSON adapter's retry of a haiku was read by its order to answer in JSON; now each
    call is read as its ask alone is."""
    alone = {"model": "auto", "messages": [{"role": "user", "content": TASKS[name]}]}
    assert classify(captured(name)).label == classify(alone).label == intent


def test_a_historys_first_turn_is_the_first_ask_past_the_demos() -> None:
    """A `dspy.History` chat: its demo (incomplete, DSPy's note first) is passed over, its
    first turn is the first ask, and every turn keys as the chat's first did."""
    body = captured("history.json")
    seen = view(body)
    assert (seen.latest, seen.first) == ("Now one about spring.", HAIKU)
    first = copy.deepcopy(body)
    first["messages"][4:] = []  # the chat's first call: the demo, then the haiku's turn
    assert view(first).latest == HAIKU
    assert conversation_key(first, {}, "c") == conversation_key(body, {}, "c")


def test_a_run_and_a_calls_retries_are_one_conversation() -> None:
    """A ReAct run's steps and its extract step, a call and its JSON adapter retry: one key
    each. Two calls of one compiled program with other inputs: two keys, though their demos
    are the same."""
    run = {conversation_key(captured(f"react-{kind}.json"), {}, "c") for kind in STEPS_OF_RUN}
    assert len(run) == 1
    calls = ("demos-python.json", "demos-python-json-fallback.json")
    assert len({conversation_key(captured(name), {}, "c") for name in calls}) == 1
    haiku = conversation_key(captured("demos-haiku.json"), {}, "c")
    assert haiku != conversation_key(captured("demos-python.json"), {}, "c")


def test_a_chat_asking_a_calls_inputs_is_another_conversation() -> None:
    """The key is the call's inputs, marked as DSPy's: not a chat's of the same words."""
    chat = {"model": "auto", "messages": [{"role": "user", "content": MATH}]}
    call = captured("predict.json")
    assert conversation_key(call, {}, "c") != conversation_key(chat, {}, "c")


@pytest.mark.parametrize(
    "system",
    [
        None,
        "You are a helpful assistant.",
        # DSPy's opening without the rest of its system prompt
        "Your input fields are:\n1. `question` (str):",
    ],
)
def test_dspys_layout_in_another_request_is_read_as_written(system: str | None) -> None:
    """Field headers, an order to answer and a user message before a reply, without DSPy's
    system prompt: a user's words, read and keyed as written, no ReAct step."""
    call = captured("react-step-1.json")["messages"][1]["content"]
    messages = [
        {"role": "user", "content": "[[ ## question ## ]]\nWhat is 2 + 2?"},
        {"role": "assistant", "content": "[[ ## answer ## ]]\n4"},
        {"role": "user", "content": call},
    ]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    seen = view({"model": "auto", "messages": messages})
    assert (seen.latest, seen.first) == (call, "[[ ## question ## ]]\nWhat is 2 + 2?")
    assert seen.fixed != TOOL_STEP_READING


def test_a_message_not_laid_out_as_dspys_is_read_as_written() -> None:
    """In DSPy's request, a user message that opens with no input field's section (a caller
    that wrote its own messages after DSPy's system prompt) is read whole."""
    body = captured("predict.json")
    body["messages"][1]["content"] = f"Please: {MATH}"
    assert view(body).latest == f"Please: {MATH}"
