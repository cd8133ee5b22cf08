"""A Responses turn that names earlier output by reference (`item_reference`) reaches a chat
backend as the items it names, when the router made them (`router.stored_items`).

The Vercel AI SDK's `openai(model)` (ai 6, @ai-sdk/openai 3) stores its responses by
default and sends a second turn's earlier answer, and a tool loop's text or reasoning before
its call, as `{"type": "item_reference", "id": "msg_…"}`: ids the router minted
translating a chat answer. Every such turn was a 400 telling the client to use a backend
speaking Responses, which holds no such id either (found running the AI SDK against the
router). The official `openai` SDK sends those turns here, to a real router over simulators
that keep the body they were sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from router.config import parse
from tests.agent_apis.agent_stack import openai_client
from tests.agent_apis.stored_stack import TOOLS, WEATHER, client, config, received, seeded
from tests.harness import Running, RunningRouter, router

ASK = "Write a Python function that reverses a list."
FOLLOW = "Now add type hints to it."


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with seeded(11) as running:
        yield running


@pytest.fixture(scope="module")
def over_chat(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """Both backends chat only, and two callers, each with a key."""
    with router(parse(config(servers, tmp_path_factory.mktemp("refs"), ["chat"]))) as running:
        yield running


@pytest.fixture(scope="module")
def beside_native(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """`local` speaks Responses itself."""
    with router(
        parse(config(servers, tmp_path_factory.mktemp("native"), ["chat", "responses"], keys=False))
    ) as running:
        yield running


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "input_text", "text": text}]}


def reference(item_id: str) -> dict[str, str]:
    return {"type": "item_reference", "id": item_id}


def first_turn(sdk: openai.OpenAI, stream: bool, **ask: Any) -> list[dict[str, Any]]:
    """Turn 1 on the chat-only cloud: the output items the router made, as the SDK read them."""
    if stream:
        events = list(sdk.responses.create(model="cloud", stream=True, **ask))
        assert events[-1].type in ("response.completed", "response.incomplete")
        response = events[-1].response  # type: ignore[union-attr]
    else:
        response = sdk.responses.create(model="cloud", **ask)
    return [item.model_dump(exclude_none=True) for item in response.output]


@pytest.mark.parametrize("stream", [False, True])
def test_a_second_turn_naming_the_answer_reaches_the_chat_backend_with_it(
    over_chat: RunningRouter, servers: dict[str, Running], stream: bool
) -> None:
    """The AI SDK's second turn: the first answer by reference, between the two asks."""
    sdk = client(over_chat)
    (answer,) = first_turn(sdk, stream, input=[user(ASK)], max_output_tokens=30)
    assert answer["type"] == "message" and answer["id"].startswith("msg_")
    text = answer["content"][0]["text"]
    second = sdk.responses.with_raw_response.create(
        model="cloud", input=[user(ASK), reference(answer["id"]), user(FOLLOW)]
    )
    assert second.status_code == 200
    assert second.headers["x-smf-backend"] == "cloud"
    assert received(servers["cloud"])["messages"] == [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": text},
        {"role": "user", "content": FOLLOW},
    ]


def test_a_tool_loop_step_naming_the_text_and_reasoning_before_its_call(
    over_chat: RunningRouter, servers: dict[str, Running]
) -> None:
    """The AI SDK's next step of a tool loop: the text and reasoning the model wrote before
    its call by reference, the call and its output whole. The text joins the call in one
    assistant message, as the chat backend wrote it; the router's own reasoning, held or
    not, reaches no backend (translation drops reasoning)."""
    sdk = client(over_chat)
    (said,) = first_turn(sdk, False, input=[user(WEATHER)], max_output_tokens=30)
    call = {
        "type": "function_call",
        "call_id": "call_471012d8",
        "name": "weather",
        "arguments": '{"city":"Paris"}',
    }
    output = {"type": "function_call_output", "call_id": "call_471012d8", "output": "22 C"}
    steps = [user(WEATHER), reference("rs_smf_chatcmpl-19a0"), reference(said["id"]), call, output]
    step = sdk.responses.with_raw_response.create(model="cloud", input=steps, tools=TOOLS)
    assert step.status_code == 200
    messages = received(servers["cloud"])["messages"]
    assert messages[1:] == [
        {
            "role": "assistant",
            "content": said["content"][0]["text"],
            "tool_calls": [
                {
                    "id": "call_471012d8",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_471012d8", "content": "22 C"},
    ]


def test_a_call_by_reference_reaches_the_chat_backend_as_the_call(
    over_chat: RunningRouter, servers: dict[str, Running]
) -> None:
    """A client storing its responses may name the call too (OpenAI resolves any item)."""
    sdk = client(over_chat)
    (call,) = first_turn(sdk, True, input=[user(WEATHER)], tools=TOOLS, tool_choice="required")
    assert call["type"] == "function_call"
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "22 C"}
    step = sdk.responses.with_raw_response.create(
        model="cloud", input=[user(WEATHER), reference(call["id"]), output], tools=TOOLS
    )
    assert step.status_code == 200
    assistant, tool = received(servers["cloud"])["messages"][1:]
    assert assistant["tool_calls"] == [
        {
            "id": call["call_id"],
            "type": "function",
            "function": {"name": "weather", "arguments": call["arguments"]},
        }
    ]
    assert tool == {"role": "tool", "tool_call_id": call["call_id"], "content": "22 C"}


def refused(proxy: RunningRouter, servers: dict[str, Running], caller: str, item_id: str) -> str:
    """The message of the 400 refusing a turn naming `item_id`, which reached no backend."""
    before = {name: s.stats()["by_path"] for name, s in servers.items()}
    with pytest.raises(openai.BadRequestError) as error:
        client(proxy, caller).responses.create(
            model="cloud", input=[user(ASK), reference(item_id), user(FOLLOW)]
        )
    assert error.value.param == "input"
    assert not error.value.response.headers.get("x-smf-backend")  # none was tried
    assert {name: s.stats()["by_path"] for name, s in servers.items()} == before
    return error.value.message


def says_what_to_do(message: str) -> None:
    assert "an item this router does not hold" in message
    # the likeliest cause: a restart, or a replica (Mastra's threads after one, found in review)
    assert "before a restart or from another router process" in message
    assert "store: false" in message and "providerOptions.openai.store = false" in message
    assert "chat completions" in message


def test_a_reference_the_router_does_not_hold_is_a_400_saying_what_to_do(
    over_chat: RunningRouter, servers: dict[str, Running]
) -> None:
    """It sent the client to a backend speaking Responses, which holds no such id either."""
    says_what_to_do(refused(over_chat, servers, "alice", "msg_chatcmpl-8a449ebe89d9bf02"))


def test_an_answer_not_stored_cannot_be_named(
    over_chat: RunningRouter, servers: dict[str, Running]
) -> None:
    (answer,) = first_turn(client(over_chat), False, input=[user(ASK)], store=False)
    says_what_to_do(refused(over_chat, servers, "alice", answer["id"]))


def test_another_callers_item_is_one_the_router_does_not_hold(
    over_chat: RunningRouter, servers: dict[str, Running]
) -> None:
    """bob naming alice's answer gets the refusal of an unknown id, and nothing of hers."""
    (answer,) = first_turn(client(over_chat, "alice"), False, input=[user(ASK)])
    says_what_to_do(refused(over_chat, servers, "bob", answer["id"]))
    mine = client(over_chat, "alice").responses.with_raw_response.create(
        model="cloud", input=[user(ASK), reference(answer["id"]), user(FOLLOW)]
    )
    assert mine.status_code == 200


def test_a_backend_speaking_responses_gets_its_own_references_as_sent(
    beside_native: RunningRouter, servers: dict[str, Running]
) -> None:
    """An id the router does not hold is the native backend's: it goes there untouched (the
    chat-only cloud, first on the route, is skipped); the router's own reasoning does not."""
    turn = [user(ASK), reference("rs_smf_chatcmpl-19a0"), reference("msg_6a1f"), user(FOLLOW)]
    answer = openai_client(beside_native).responses.with_raw_response.create(
        model="auto", input=turn
    )
    assert answer.status_code == 200
    assert answer.headers["x-smf-backend"] == "local"
    assert received(servers["local"])["input"] == [turn[0], turn[2], turn[3]]


def test_a_backend_speaking_responses_gets_the_item_the_router_made(
    beside_native: RunningRouter, servers: dict[str, Running]
) -> None:
    """Turn 1 on the chat cloud, turn 2 on the native backend: it holds no such item, so it
    gets the item whole, as a client not storing its responses sends it."""
    sdk = openai_client(beside_native)
    (answer,) = first_turn(sdk, False, input=[user(ASK)], max_output_tokens=30)
    second = sdk.responses.with_raw_response.create(
        model="local", input=[user(ASK), reference(answer["id"]), user(FOLLOW)]
    )
    assert second.status_code == 200
    sent = received(servers["local"])["input"]
    assert sent[1]["id"] == answer["id"] and sent[1]["type"] == "message"
    assert sent[1]["content"][0]["text"] == answer["content"][0]["text"]
