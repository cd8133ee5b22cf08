"""A DSPy 2.x call (dsp's template, STORM's) is answered in the fields it asks for, as dsp
parses a reply: the first field's value, then each next field's prefix opening a line.

The simulator answered prose alone: dsp took it for a ChainOfThought's rationale, found no
`Question:` and asked again at temperature 0, so each call of a STORM run was sent twice
(found in a live review). The bodies are dspy_ai 2.4.9's renderings of STORM 1.1.1's
signatures (`tests/fixtures/storm-1.1.1.md`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from router.simulator import SimThread
from tests.recorded import FIXTURES, loader
from tests.simulator.calls import client

MODEL = "tiny"
storm = loader(FIXTURES / "storm-1.1.1")
QUESTION = "\n\nQuestion: "  # the output after AskQuestionWithPersona's rationale


def answer(sim: SimThread, body: dict[str, Any]) -> str:
    """The simulator's reply to a recorded chat body, sent as the client sent it."""
    sdk = client(sim)
    reply = sdk.chat.completions.create(**(body | {"model": MODEL}))
    return reply.choices[0].message.content or ""


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_a_chain_of_thought_call_is_answered_with_its_rationale_and_its_output(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """The prompt ends with the rationale's prefix: the reply is its value, then the
    `Question:` field dsp looks for on a line of its own, and its value."""
    text = answer(start_sim(profile=profile), storm("question.json"))
    assert text.count(QUESTION) == 1
    rationale, question = text.split(QUESTION)
    assert rationale.strip() and question.strip()
    assert "Reasoning:" not in text  # its prefix ends the prompt: not written again


@pytest.mark.parametrize(
    "name",
    ["question-retry.json", "section-history.json", "outline.json"],
)
def test_a_call_asking_one_field_is_answered_with_its_value_alone(
    start_sim: Callable[..., SimThread], name: str
) -> None:
    """dsp's retry, whose prompt ends with `Question:`, and a single-output call: the
    value, no prefix of a field."""
    text = answer(start_sim(profile="vllm"), storm(name))
    assert text.strip()
    assert not any(
        prefix in text for prefix in ("Question:", "Reasoning:", "Write the section", "outline:")
    )


def test_the_value_is_the_answer_to_the_calls_ask(start_sim: Callable[..., SimThread]) -> None:
    """A `Predict("question -> answer")` with demos asked for a Python function: the value
    is the code answer to its question, not to its demos, without `Answer:`."""
    text = answer(start_sim(profile="vllm"), storm("dspy-demos-python.json"))
    assert text.startswith("Here is") and "```python" in text
    assert "Answer:" not in text and "France" not in text
