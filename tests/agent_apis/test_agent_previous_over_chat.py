"""A Responses turn continuing by id (`previous_response_id`) a response the router made over a
chat backend reaches the backend as the whole conversation (`router.stored_items`).

pydantic-ai (`openai_previous_response_id="auto"`), LangChain (`use_previous_response_id`)
and the OpenAI Agents SDK (`auto_previous_response_id`) send only a turn's new items and the
id of the response before. At OpenAI that is the conversation so far: the response's own
input (its chain, recursively), its output, then the new items; `instructions` and tools are
the turn's own. Over chat every such turn was a 400, as no backend held the id. The official
`openai` SDK against a real router over simulators that keep the body they were sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from router.config import parse
from tests.agent_apis.stored_stack import TOOLS, WEATHER, client, config, received, seeded
from tests.harness import Running, RunningRouter, collected, router

ASK = "Write a Python function that reverses a list."
FOLLOW = "Now add type hints to it."
THIRD = "And a docstring, please."


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with seeded(31) as running:
        yield running


@pytest.fixture(scope="module")
def over_chat(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    with router(parse(config(servers, tmp_path_factory.mktemp("prev"), ["chat"]))) as running:
        yield running


def sent(servers: dict[str, Running]) -> dict[str, dict[str, int]]:
    return {name: dict(s.stats()["by_path"]) for name, s in servers.items()}


def turn(sdk: openai.OpenAI, stream: bool, **ask: Any) -> tuple[Any, str]:
    """One turn, whole or streamed: the response as the SDK read it, and who served it. It
    echoes the `previous_response_id` it continues, in every event that carries it, as
    OpenAI's does (the router takes the id out of what it sends: it echoed none)."""
    if not stream:
        raw = sdk.responses.with_raw_response.create(**ask)
        reply = raw.parse()
        assert reply.previous_response_id == ask.get("previous_response_id")
        return reply, raw.headers["x-smf-backend"]
    with sdk.responses.with_streaming_response.create(stream=True, **ask) as raw:
        events = list(raw.parse())
        backend = raw.headers["x-smf-backend"]
    assert events[-1].type == "response.completed"
    carried = [e.response for e in events if hasattr(e, "response")]  # type: ignore[union-attr]
    assert {r.previous_response_id for r in carried} == {ask.get("previous_response_id")}
    return events[-1].response, backend  # type: ignore[union-attr]


@pytest.mark.parametrize("stream", [False, True])
def test_three_chained_turns_reach_the_chat_backend_as_one_conversation(
    over_chat: RunningRouter, servers: dict[str, Running], stream: bool
) -> None:
    """Each turn sends its own ask, instructions and the id before: the backend gets the
    conversation in order, and only the last turn's instructions. Was a 400 at turn 2."""
    sdk, records = client(over_chat), collected(over_chat)
    first, _ = turn(sdk, stream, model="auto", input=ASK, instructions="Be terse.")
    second, _ = turn(
        sdk,
        stream,
        model="auto",
        input=FOLLOW,
        instructions="Be kind.",
        previous_response_id=first.id,
    )
    third, backend = turn(
        sdk,
        stream,
        model="auto",
        input=THIRD,
        instructions="Be brief.",
        previous_response_id=second.id,
    )
    assert third.id not in (first.id, second.id)
    body = received(servers[backend])
    assert "previous_response_id" not in body
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": first.output_text},
        {"role": "user", "content": FOLLOW},
        {"role": "assistant", "content": second.output_text},
        {"role": "user", "content": THIRD},
    ]
    keys = {record.conversation for record in records.records}
    assert len(records.records) == 3 and len(keys) == 1  # one conversation, as turn 1 keyed it


@pytest.mark.parametrize("stream", [False, True])
def test_a_tool_loop_by_id_pairs_the_call_with_its_output(
    over_chat: RunningRouter, servers: dict[str, Running], stream: bool
) -> None:
    """The Agents SDK's next step: only the tool's output, and the id of the response that
    called it. The chat backend gets the call as the assistant's and the output after it."""
    sdk = client(over_chat)
    first, _ = turn(sdk, stream, model="cloud", input=WEATHER, tools=TOOLS, tool_choice="required")
    (call,) = [item for item in first.output if item.type == "function_call"]
    output = {"type": "function_call_output", "call_id": call.call_id, "output": "22 C"}
    _, backend = turn(
        sdk, stream, model="cloud", input=[output], tools=TOOLS, previous_response_id=first.id
    )
    assert backend == "cloud"
    messages = received(servers["cloud"])["messages"]
    assert messages[0] == {"role": "user", "content": WEATHER}
    assert messages[-2]["role"] == "assistant"
    assert messages[-2]["tool_calls"] == [
        {
            "id": call.call_id,
            "type": "function",
            "function": {"name": "weather", "arguments": call.arguments},
        }
    ]
    assert messages[-1] == {"role": "tool", "tool_call_id": call.call_id, "content": "22 C"}


def refused(
    proxy: RunningRouter, servers: dict[str, Running], caller: str, previous: str
) -> openai.BadRequestError:
    """The 400 refusing a turn continuing `previous`, which reached no backend."""
    before = sent(servers)
    with pytest.raises(openai.BadRequestError) as error:
        client(proxy, caller).responses.create(
            model="cloud", input=FOLLOW, previous_response_id=previous
        )
    assert error.value.param == "previous_response_id"
    assert not error.value.response.headers.get("x-smf-backend")  # none was tried
    assert sent(servers) == before
    return error.value


@pytest.mark.parametrize("stored", [False, None])
def test_an_id_held_nowhere_is_refused_as_openai_refuses_it(
    over_chat: RunningRouter, servers: dict[str, Running], stored: bool | None
) -> None:
    """No backend speaks Responses itself, so an id the router does not hold (asked not to
    be stored, or never made) is held nowhere it can reach: OpenAI's 400. It was the
    plan's refusal, telling the client to send it to a model whose backends speak
    Responses, which the router had none of (found in a live run of the openai SDK)."""
    previous = "resp_doesnotexist123"
    if stored is False:
        previous = client(over_chat).responses.create(model="cloud", input=ASK, store=False).id
    error = refused(over_chat, servers, "alice", previous)
    assert error.body == {  # the same as another caller's id: neither tells the other apart
        "message": f"Previous response with id '{previous}' not found.",
        "type": "invalid_request_error",
        "param": "previous_response_id",
        "code": "previous_response_not_found",
    }


def test_an_id_unknown_where_a_backend_speaks_responses_is_told_to_go_there(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """`local` speaks Responses and may hold an id the router never saw (made before a
    restart): `cloud`'s refusal names the model to send it to, as before."""
    with router(parse(config(servers, tmp_path, ["chat", "responses"]))) as proxy:
        error = refused(proxy, servers, "alice", "resp_doesnotexist123")
    assert error.code is None
    assert "to a model whose backends speak Responses" in error.message


def test_another_callers_response_is_one_the_router_does_not_hold(
    over_chat: RunningRouter, servers: dict[str, Running]
) -> None:
    """bob continuing alice's response gets OpenAI's refusal of an unknown id; alice goes on."""
    first = client(over_chat, "alice").responses.create(model="cloud", input=ASK)
    error = refused(over_chat, servers, "bob", first.id)
    assert error.body == {  # the refusal of an id no one made: no owner named
        "message": f"Previous response with id '{first.id}' not found.",
        "type": "invalid_request_error",
        "param": "previous_response_id",
        "code": "previous_response_not_found",
    }
    mine = client(over_chat, "alice").responses.with_raw_response.create(
        model="cloud", input=FOLLOW, previous_response_id=first.id
    )
    assert mine.status_code == 200
    assert received(servers["cloud"])["messages"][0] == {"role": "user", "content": ASK}


def test_a_link_the_router_no_longer_holds_is_a_400_naming_it(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """Three entries kept: turn 2 keeps its answer and its input, and turn 1's input goes.
    Continued without it, the model would answer a conversation cut short."""
    with router(parse(config(servers, tmp_path, ["chat"], entries=3))) as proxy:
        sdk = client(proxy)
        first = sdk.responses.create(model="cloud", input=ASK)
        second = sdk.responses.create(model="cloud", input=FOLLOW, previous_response_id=first.id)
        error = refused(proxy, servers, "alice", second.id)
    assert f"{second.id!r} continues {first.id!r}, which the router made" in error.message
    assert "whole input" in error.message and "store: false" in error.message
    assert error.code == "previous_response_not_found"


def test_a_backend_speaking_responses_gets_the_conversation_without_the_id(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """Turn 1 on the chat cloud, turn 2 on `local`, which speaks Responses and holds no such
    response: it gets the conversation whole, as a client not storing sends it."""
    with router(parse(config(servers, tmp_path, ["chat", "responses"]))) as proxy:
        sdk = client(proxy)
        first = sdk.responses.create(model="cloud", input=ASK, instructions="Be terse.")
        second = sdk.responses.with_raw_response.create(
            model="local", input=FOLLOW, previous_response_id=first.id
        )
    assert second.headers["x-smf-backend"] == "local"
    body = received(servers["local"])
    assert "previous_response_id" not in body and "instructions" not in body
    said, answer, follow = body["input"]
    assert said == {"type": "message", "role": "user", "content": ASK}
    assert answer["id"] == first.output[0].id and answer["role"] == "assistant"
    assert answer["content"][0]["text"] == first.output_text
    assert follow == {"type": "message", "role": "user", "content": FOLLOW}


@pytest.mark.parametrize("stream", [False, True])
def test_a_backend_speaking_responses_echoes_the_id_the_router_took_out(
    servers: dict[str, Running], tmp_path: Path, stream: bool
) -> None:
    """Sent the conversation without the id, `local`'s own reply said `previous_response_id:
    null`, whole and in each streamed event carrying the Response; the client sent the id.
    Only that field changes: the reply is vLLM's otherwise, its fields in its order."""
    with router(parse(config(servers, tmp_path, ["chat", "responses"]))) as proxy:
        sdk = client(proxy)
        first = sdk.responses.create(model="cloud", input=ASK)
        plain = json.loads(sdk.responses.with_raw_response.create(model="local", input=FOLLOW).text)
        # `turn` asserts the echo, in every event that carries the Response when streamed
        second, backend = turn(
            sdk, stream, model="local", input=FOLLOW, previous_response_id=first.id
        )
        chained = json.loads(
            sdk.responses.with_raw_response.create(
                model="local", input=FOLLOW, previous_response_id=first.id
            ).text
        )
    assert backend == "local" and "previous_response_id" not in received(servers["local"])
    assert second.previous_response_id == first.id
    assert list(chained) == list(plain)  # vLLM's own fields, none added nor moved
    assert chained["previous_response_id"] == first.id and plain["previous_response_id"] is None
    assert "kv_transfer_params" in chained  # vLLM's, passed through
