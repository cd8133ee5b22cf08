"""A Responses run that keeps its history on the server is one conversation to the router.

The OpenAI Agents SDK sends turn 1 whole and each later turn only its new items (a tool's
output), naming what the server stored: the response before (`auto_previous_response_id`)
or a conversation (`conversation_id=`). Keyed by what such a turn carries, every chained
turn of every session with the same instructions shared one conversation key, which a
sticky pin from any one of them held; its intent was unknown (the default route); and a
`conversation` turn went wherever that route led, to a backend that never held the
conversation (found in a live review with the Agents SDK 0.24). The official `openai` SDK
sends the SDK's requests here, to a real router over two simulators that store what they
answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.agent_apis.agent_stack import openai_client
from tests.agent_apis.test_agent_stored_responses import CODE, MATH, stack_config
from tests.harness import Collect, Running, RunningRouter, collected, router, simulator

INSTRUCTIONS = "You are a helpful assistant."  # the same in every session of the agent's
TOOLS: Any = [
    {
        "type": "function",
        "name": "calculator",
        "description": "Evaluate an arithmetic expression.",
        "parameters": {
            "type": "object",
            "properties": {"expression": {"type": "string"}},
            "required": ["expression"],
        },
    }
]
TOOL_OUTPUT: Any = [{"type": "function_call_output", "call_id": "call_1", "output": "391"}]
OTHER_MATH = "What is 17*23? Show the multiplication step by step."


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with (  # seeds of their own: one seed gives both the same ids, in the same order
        simulator(profile="vllm", model="local-model", seed=3) as local,
        simulator(profile="cloud", model="cloud-model", seed=4) as cloud,
    ):
        yield {"local": local, "cloud": cloud}


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """Math cloud first; coding, the default route, local first."""
    with router(stack_config(servers, tmp_path_factory.mktemp("threads"))) as running:
        yield running


def records_of(records: Collect, count: int) -> list[Any]:
    """The first `count` records finished (each after its reply was sent)."""
    deadline = time.monotonic() + 30.0  # a hang guard
    while len(records.records) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(records.records) >= count
    return records.records[:count]


def turn(proxy: RunningRouter, input: Any, model: str = "auto", **stored: Any) -> Any:
    """One turn of the agent's run, raw: the SDK's request with its instructions and tool."""
    return openai_client(proxy).responses.with_raw_response.create(
        model=model, instructions=INSTRUCTIONS, tools=TOOLS, input=input, **stored
    )


def sent(servers: dict[str, Running]) -> dict[str, int]:
    """How many Responses requests each backend has been sent."""
    return {name: s.stats()["by_path"].get("/v1/responses", 0) for name, s in servers.items()}


def chained_session(proxy: RunningRouter, ask: str) -> list[Any]:
    """`auto_previous_response_id`: the ask, then the tool's output alone, then another."""
    first = turn(proxy, ask)
    second = turn(proxy, TOOL_OUTPUT, previous_response_id=first.parse().id)
    third = turn(proxy, TOOL_OUTPUT, previous_response_id=second.parse().id)
    return [first, second, third]


def test_each_chained_session_keeps_its_own_key_and_its_intent(proxy: RunningRouter) -> None:
    """Turns 2 and 3 of two sessions all had one key, of the instructions alone (the
    ledger's `conversation` showed one for three runs), and the intent `unknown`."""
    records = collected(proxy)
    replies = chained_session(proxy, MATH) + chained_session(proxy, OTHER_MATH)
    rows = records_of(records, 6)
    assert [r.headers["x-smf-backend"] for r in replies] == ["cloud"] * 6
    assert [r.headers["x-smf-intent"] for r in replies] == ["math"] * 6
    assert [row.intent for row in rows] == ["math"] * 6
    first, second = rows[:3], rows[3:]
    assert len({row.conversation for row in first}) == 1
    assert len({row.conversation for row in second}) == 1
    assert first[0].conversation != second[0].conversation
    # the intent carried is the one turn 1 was read as, with its source and confidence
    assert {(row.intent_source, row.confidence) for row in first} == {
        (first[0].intent_source, first[0].confidence)
    }


def test_a_conversation_stays_where_its_first_turn_was_served(proxy: RunningRouter) -> None:
    """`conversation_id=`: turn 2, a tool's output alone, is no math to the classifier and
    went to the default route's local backend, which never held the conversation. Now it
    goes where the conversation lives, whatever its route says, as a stored response's turn
    does, with the intent and key of the turn before. The SDK names the conversation by id
    or by an object holding it: both are one conversation."""
    records = collected(proxy)
    first = turn(proxy, MATH, conversation="conv_math_1")
    assert first.headers["x-smf-backend"] == "cloud"
    follow = {
        "api": "responses",
        "model": "auto",
        "instructions": INSTRUCTIONS,
        "tools": TOOLS,
        "input": TOOL_OUTPUT,
        "conversation": "conv_math_1",
    }
    explained = httpx.post(f"{proxy.url}/router/explain", json=follow, trust_env=False).json()
    assert explained["intent"]["label"] == "math"
    assert [b["backend"] for b in explained["backends"]] == ["cloud"]
    assert explained["skipped"] == [{"backend": "local", "reason": "response_elsewhere"}]
    second = turn(proxy, TOOL_OUTPUT, conversation={"id": "conv_math_1"})
    assert second.headers["x-smf-backend"] == "cloud"  # was local
    assert second.headers["x-smf-intent"] == "math"  # was unknown
    assert second.headers["x-smf-attempts"] == "1"
    other = turn(proxy, MATH, conversation="conv_math_2")  # the same words, another one
    rows = records_of(records, 3)
    assert rows[0].conversation == rows[1].conversation != rows[2].conversation
    assert other.headers["x-smf-backend"] == "cloud"


def test_a_private_turn_of_a_cloud_conversation_is_refused_naming_the_conversation(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """No other backend holds it: a 400 naming the field the turn sent, nothing sent."""
    turn(proxy, MATH, conversation="conv_cloud_3")
    before = sent(servers)
    with pytest.raises(openai.BadRequestError) as refused:
        turn(
            proxy,
            TOOL_OUTPUT,
            conversation="conv_cloud_3",
            extra_headers={"x-smf-private": "1"},
        )
    assert refused.value.param == "conversation"
    assert "conversation names a conversation stored on 'cloud'" in refused.value.message
    assert sent(servers) == before


def test_a_backend_named_for_a_conversation_serves_it_and_becomes_its_home(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """The router never sees a conversation made (it has no /v1/conversations): its first
    turn here went where its route led (coding: local), and a turn whose model named the
    backend holding it was a 400 ("stored on 'local', which 'cloud' does not use"), for
    30 days, every turn renewing the pin; so was one naming the other model of one provider.
    Now the named backend serves it, and the conversation's later `auto` turns follow it."""
    first = turn(proxy, CODE, conversation="conv_moved")
    assert first.headers["x-smf-backend"] == "local"
    before = sent(servers)
    named = turn(proxy, TOOL_OUTPUT, model="cloud", conversation="conv_moved")
    assert named.headers["x-smf-backend"] == "cloud"  # was a 400
    assert sent(servers) == {**before, "cloud": before["cloud"] + 1}
    after = turn(proxy, TOOL_OUTPUT, conversation={"id": "conv_moved"})
    assert after.headers["x-smf-backend"] == "cloud"  # the home moved with it
    back = turn(proxy, TOOL_OUTPUT, model="local", conversation="conv_moved")
    assert back.headers["x-smf-backend"] == "local"
    assert turn(proxy, TOOL_OUTPUT, conversation="conv_moved").headers["x-smf-backend"] == "local"


def test_a_private_turn_naming_the_local_backend_is_served_there(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """The client names where its conversation lives; the router, which only saw it served
    on the cloud, does not know better, and nothing goes to the cloud."""
    turn(proxy, MATH, conversation="conv_cloud_4")
    before = sent(servers)
    private = {"x-smf-private": "1"}
    named = turn(
        proxy, TOOL_OUTPUT, model="local", conversation="conv_cloud_4", extra_headers=private
    )
    assert named.headers["x-smf-backend"] == "local"
    assert sent(servers) == {**before, "local": before["local"] + 1}


def test_a_backend_named_for_a_stored_response_it_does_not_hold_is_still_refused(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """Unlike a conversation's, a response id's home is known: the router relayed the reply
    that stored it. Sent elsewhere, it would meet that backend's 404."""
    first = turn(proxy, MATH)
    assert first.headers["x-smf-backend"] == "cloud"
    before = sent(servers)
    with pytest.raises(openai.BadRequestError) as refused:
        turn(proxy, TOOL_OUTPUT, model="local", previous_response_id=first.parse().id)
    assert refused.value.param == "previous_response_id"
    assert "stored on 'cloud', which 'local' does not use" in refused.value.message
    assert sent(servers) == before


def test_a_conversation_id_is_kept_hashed_however_long(proxy: RunningRouter) -> None:
    """The table kept `caller\0<id>` as sent: `sticky_max_entries` bounds entries, not
    bytes, and a 2 MB id stayed for 30 days. It keeps 32 hex digits now, and still pins
    the conversation (a tool's output alone takes the default route, local)."""
    long_id = "conv_" + "x" * 1_000_000
    assert turn(proxy, MATH, conversation=long_id).headers["x-smf-backend"] == "cloud"
    assert turn(proxy, TOOL_OUTPUT, conversation=long_id).headers["x-smf-backend"] == "cloud"
    slots = list(proxy.components.gateway.stored.conversations._entries)
    assert slots and {len(slot) for slot in slots} == {32}


def test_a_chain_continued_after_a_restart_is_keyed_by_the_response_it_continues(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """The new router knows none of the earlier responses: each session's first turn after
    the restart is keyed by the response it continues, and its later turns take that key,
    one per session still (the backend holds the responses; coding goes local, the default
    route, where they live)."""
    config = stack_config(servers, tmp_path)
    with router(config) as before:
        ids = [turn(before, ask).parse().id for ask in (CODE, CODE)]
    with router(config) as after:
        records = collected(after)
        for previous in ids:
            second = turn(after, TOOL_OUTPUT, previous_response_id=previous)
            turn(after, TOOL_OUTPUT, previous_response_id=second.parse().id)
        rows = records_of(records, 4)
    assert [row.backend for row in rows] == ["local"] * 4
    assert rows[0].conversation == rows[1].conversation
    assert rows[2].conversation == rows[3].conversation
    assert rows[0].conversation != rows[2].conversation
