"""Two conversations whose chat backends answered with the same completion id are still two
conversations to a turn naming the router's Responses items or response by id.

The router named the items and the response it made from a chat answer after the backend's
completion id (`msg_chatcmpl-7`, `resp_chatcmpl-7`) and keeps them by that id
(`router.stored_items`). A backend may repeat its ids (Ollama draws `chatcmpl-<n>` from 999
values; two simulators of one seed give the same ids in the same order, as here): the later
answer replaced the earlier one, and a turn of one conversation naming its answer got the
other conversation's, of the same caller (found running VoltAgent, one server for many
users). The official `openai` SDK sends the turns, to a real router over two chat-only
simulators of one seed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router.config import parse
from tests.agent_apis.stored_stack import client, config, received
from tests.harness import Running, RunningRouter, router, simulator

ASKS = {
    "cloud": "My account number is 1111. Remember it.",
    "local": "My secret is bob-password-xyz. Remember it.",
}
ANSWERS = {"cloud": "Noted: account 1111.", "local": "Noted: the secret bob-password-xyz."}
FOLLOW = "What did you say just now?"
WHOLE = ("response.created", "response.in_progress", "response.completed")  # carry it all


@pytest.fixture
def servers() -> Iterator[dict[str, Running]]:
    """Two simulators of one seed and profile: the same completion ids, in the same order
    (new for each test: how many ids an answer draws depends on the answer)."""
    replies = {ASKS[name]: ANSWERS[name] for name in ASKS}
    with (
        simulator(profile="cloud", model="cloud-model", seed=5, replies=replies) as cloud,
        simulator(profile="cloud", model="local-model", seed=5, replies=replies) as local,
    ):
        yield {"cloud": cloud, "local": local}


@pytest.fixture
def over_chat(servers: dict[str, Running], tmp_path: Path) -> Iterator[RunningRouter]:
    """Both backends chat only: the router makes the Responses and keeps them."""
    with router(parse(config(servers, tmp_path, ["chat"]))) as running:
        yield running


def same_next_id(servers: dict[str, Running]) -> None:
    """The backends give the same completion id, asked straight: each one's next answer (the
    router's) then has the same id as the other's."""
    ids = {
        httpx.post(
            f"{server.url}/chat/completions",
            json={"model": f"{name}-model", "messages": [{"role": "user", "content": "hi"}]},
        ).json()["id"]
        for name, server in servers.items()
    }
    assert len(ids) == 1, ids


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "input_text", "text": text}]}


def answered(sdk: openai.OpenAI, stream: bool, **ask: Any) -> Any:
    """The Response to one turn, whole or as the stream's last event carried it. A stream
    names its response and each item alike from first event to last."""
    if not stream:
        return sdk.responses.create(**ask)
    events: list[Any] = list(sdk.responses.create(stream=True, **ask))
    assert events[-1].type == "response.completed"
    final = events[-1].response
    assert {e.response.id for e in events if e.type in WHOLE} == {final.id}
    added = [e.item.id for e in events if e.type == "response.output_item.added"]
    done = [e.item.id for e in events if e.type == "response.output_item.done"]
    assert added == done == [item.id for item in final.output]
    return final


def first_turns(
    servers: dict[str, Running], over_chat: RunningRouter, stream: bool
) -> dict[str, Any]:
    """Each conversation's first turn, one on each backend, by one caller (one agent server
    for many users): answers with the same backend id."""
    same_next_id(servers)
    sdk = client(over_chat)
    return {name: answered(sdk, stream, model=name, input=[user(ASKS[name])]) for name in ASKS}


def said_before(server: Running) -> list[dict[str, Any]]:
    """The conversation the backend was sent, as chat messages."""
    messages: list[dict[str, Any]] = received(server)["messages"]
    return messages


@pytest.mark.parametrize("stream", [False, True])
def test_a_reference_to_the_answer_is_its_own_conversations(
    servers: dict[str, Running], over_chat: RunningRouter, stream: bool
) -> None:
    """VoltAgent's second turn over the AI SDK: the answer by `item_reference`. Each
    conversation's reaches its backend as its own answer, not the other's."""
    first = first_turns(servers, over_chat, stream)
    items = {name: first[name].output[0].id for name in first}
    assert items["cloud"] != items["local"]
    sdk = client(over_chat)
    for name, item_id in items.items():
        reference = {"type": "item_reference", "id": item_id}
        answered(sdk, stream, model=name, input=[user(ASKS[name]), reference, user(FOLLOW)])
        assert said_before(servers[name]) == [
            {"role": "user", "content": ASKS[name]},
            {"role": "assistant", "content": ANSWERS[name]},
            {"role": "user", "content": FOLLOW},
        ]


@pytest.mark.parametrize("stream", [False, True])
def test_a_turn_continuing_a_response_continues_its_own_conversation(
    servers: dict[str, Running], over_chat: RunningRouter, stream: bool
) -> None:
    """`previous_response_id`: each conversation continues from its own first turn, and the
    id the stream announced is the one kept."""
    first = first_turns(servers, over_chat, stream)
    assert first["cloud"].id != first["local"].id
    sdk = client(over_chat)
    for name, response in first.items():
        answered(sdk, stream, model=name, input=FOLLOW, previous_response_id=response.id)
        assert said_before(servers[name]) == [
            {"role": "user", "content": ASKS[name]},
            {"role": "assistant", "content": ANSWERS[name]},
            {"role": "user", "content": FOLLOW},
        ]
