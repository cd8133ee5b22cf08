"""A turn sent whole that begins with a conversation the router made over a chat backend is
kept as that conversation's next turn, and continued by id (`router.stored_items.related`).

The OpenAI Agents SDK chains a run's turns by id (`Runner.run(..., previous_response_id=)`),
but its tool loop sends the step after a call whole, without the id: the ask, the router's
`function_call` as the SDK read it, the tool's output. That turn was kept as nothing, and the
next run, continuing its answer by id, was a 400 saying the client had sent a conversation
whole from the start (found running the Agents SDK 0.24.0). The official `openai` SDK against
a real router over simulators that keep the body they were sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from router.config import parse
from tests.agent_apis.stored_stack import TOOLS, WEATHER, client, config, received, seeded
from tests.agent_apis.test_agent_previous_over_chat import turn
from tests.harness import Running, RunningRouter, router

FOLLOW = "Now write a Python function that computes it."
ASK = {"role": "user", "content": WEATHER}  # as the Agents SDK writes a run's input


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with seeded(41) as running:
        yield running


@pytest.fixture(scope="module")
def over_chat(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    with router(parse(config(servers, tmp_path_factory.mktemp("whole"), ["chat"]))) as running:
        yield running


def tool_loop(sdk: openai.OpenAI, stream: bool) -> tuple[Any, Any]:
    """The Agents SDK's run: the ask alone, the model calls the tool, the next step whole,
    each item of the answer written back as the SDK's model holds it (every field, nulls
    too), and answered. The call's item, and the run's answer."""
    first, _ = turn(sdk, stream, model="cloud", input=[ASK], tools=TOOLS, tool_choice="required")
    (call,) = [item for item in first.output if item.type == "function_call"]
    output = {"type": "function_call_output", "call_id": call.call_id, "output": "22 C"}
    replayed = [ASK, *(item.model_dump(mode="json") for item in first.output), output]
    # `turn` asserts the reply echoes no previous_response_id: the client named none
    answer, _ = turn(sdk, stream, model="cloud", input=replayed, tools=TOOLS)
    return call, answer


@pytest.mark.parametrize("stream", [False, True])
def test_the_answer_of_a_tool_loop_sent_whole_is_continued_by_id(
    over_chat: RunningRouter, servers: dict[str, Running], stream: bool
) -> None:
    """The next run names the loop's answer: the chat backend gets the whole conversation,
    the call and its output in their places. Was a 400 (`previous_response_not_found`)."""
    sdk = client(over_chat)
    call, answer = tool_loop(sdk, stream)
    assert answer.output_text
    _, backend = turn(
        sdk, stream, model="cloud", input=FOLLOW, tools=TOOLS, previous_response_id=answer.id
    )
    body = received(servers[backend])
    assert "previous_response_id" not in body
    assert body["messages"] == [
        {"role": "user", "content": WEATHER},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call.call_id,
                    "type": "function",
                    "function": {"name": "weather", "arguments": call.arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call.call_id, "content": "22 C"},
        {"role": "assistant", "content": answer.output_text},
        {"role": "user", "content": FOLLOW},
    ]


def test_a_turn_sent_whole_beginning_with_no_held_response_is_refused_saying_why(
    over_chat: RunningRouter,
) -> None:
    """An input whose earlier turns the router never made (another server's answer): kept as
    nothing, and continuing its answer by id is a 400 that says what the router keeps and
    what to do, not that the client sent its conversation whole from the start."""
    sdk = client(over_chat)
    elsewhere = {"type": "message", "role": "assistant", "content": "It is sunny."}
    first = sdk.responses.create(model="cloud", input=[ASK, elsewhere, {**ASK, "content": "And?"}])
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.responses.create(model="cloud", input=FOLLOW, previous_response_id=first.id)
    error = refused.value
    assert (error.param, error.code) == ("previous_response_id", "previous_response_not_found")
    assert "no conversation the router made and still holds" in error.message
    assert "whole input" in error.message and "auto_previous_response_id=True" in error.message
    assert "sent alone" not in error.message


UNREAD = {
    "no text": ({"type": "input_text"}, "input[0].content[0].text"),
    "a list type": ({"type": ["input_text"], "text": WEATHER}, "input[0].content[0].type"),
    "an object type": ({"type": {"of": "input_text"}, "text": WEATHER}, "input[0].content[0].type"),
    "a text no string": ({"type": "input_text", "text": 5}, "input[0].content[0].text"),
}


@pytest.mark.parametrize(("part", "path"), UNREAD.values(), ids=UNREAD)
def test_a_turn_sent_whole_with_a_part_of_no_text_is_refused_naming_it(
    over_chat: RunningRouter, part: dict[str, Any], path: str
) -> None:
    """A text part with no text, or a `type` that is no string, in a turn ending with the
    router's call: read as text, it was a 500 (KeyError 'text', TypeError unhashable list;
    found in review); then answered with the part dropped unread; now a 400 naming the part
    (`router.content_checks`), before any backend is asked."""
    sdk = client(over_chat)
    first = sdk.responses.create(model="cloud", input=[ASK], tools=TOOLS, tool_choice="required")
    (call,) = [item for item in first.output if item.type == "function_call"]
    output = {"type": "function_call_output", "call_id": call.call_id, "output": "22 C"}
    sent = [{"role": "user", "content": [part]}, call.model_dump(mode="json"), output]
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.responses.create(model="cloud", input=sent, tools=TOOLS)  # type: ignore[arg-type]
    assert refused.value.param == path
