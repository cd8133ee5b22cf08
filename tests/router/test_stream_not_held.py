"""Streamed chunks reach the client as the upstream sends them, not when the stream ends
(chat, Messages and Responses alike).

The upstream sends its first two tokens and then falls silent for a minute (the `stall`
fault) while the router's idle deadline is longer still. A router that held chunks back (to
buffer the answer, to wait for usage, to cork the first chunk with the next: in chat the
first token is that chunk) would leave the client without a token until the stall ends; the
client here gives up reading after a few seconds, so such a router fails the test instead of
making it slow. The margin is a minute against seconds: no timing is asserted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import anthropic
import openai
import pytest

from tests.harness import Running, RunningRouter, config_for, router, simulator

STALL_S = 60
CLIENT_READ_S = 8.0  # per read (not in total); far below the stall: a held chunk times out
PATIENT = {"connect_s": 2, "first_token_s": 5, "idle_s": STALL_S + 30, "total_s": STALL_S + 60}


@pytest.fixture(scope="module")
def stalling(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    with simulator(profile="vllm", model="local-model") as local:
        config = config_for({"local": local}, tmp_path_factory.mktemp("held")).model_dump()
        config["backends"][0]["timeouts"] = PATIENT
        from router.config import parse

        with router(parse(config)) as running:
            yield local, running


@pytest.fixture
def stall(stalling: tuple[Running, RunningRouter]) -> Iterator[RunningRouter]:
    local, running = stalling
    local.control("faults", {"fault": f"stall:{STALL_S}"})
    try:
        yield running
    finally:
        local.control("faults", {"fault": None})


def test_chat_tokens_before_a_stall_reach_the_client_during_it(stall: RunningRouter) -> None:
    client = openai.OpenAI(base_url=stall.url, api_key="none", max_retries=0, timeout=CLIENT_READ_S)
    text = None
    with client.chat.completions.create(
        model="local",
        messages=[{"role": "user", "content": "Write a Python function that adds numbers."}],
        stream=True,
    ) as stream:
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                text = chunk.choices[0].delta.content
                break  # a token arrived while the upstream is still silent
    assert text, "no token reached the client before the upstream's stall ended"


def event_types_until(stream: Iterable[Any], token_event: str) -> list[str]:
    """The event types read up to the first one that carries a token."""
    seen: list[str] = []
    for event in stream:
        seen.append(event.type)
        if event.type == token_event:
            break
    return seen


def test_messages_tokens_before_a_stall_reach_the_client_during_it(stall: RunningRouter) -> None:
    client = anthropic.Anthropic(
        base_url=stall.root, api_key="none", max_retries=0, timeout=CLIENT_READ_S
    )
    with client.messages.stream(
        model="local",
        max_tokens=64,
        messages=[{"role": "user", "content": "Write a Python function that adds numbers."}],
    ) as stream:
        seen = event_types_until(stream, "content_block_delta")
    assert seen[0] == "message_start" and seen[-1] == "content_block_delta"


def test_responses_tokens_before_a_stall_reach_the_client_during_it(stall: RunningRouter) -> None:
    client = openai.OpenAI(base_url=stall.url, api_key="none", max_retries=0, timeout=CLIENT_READ_S)
    with client.responses.create(
        model="local", input="Write a Python function that adds numbers.", stream=True
    ) as stream:
        seen = event_types_until(stream, "response.output_text.delta")
    assert seen[0] == "response.created" and seen[-1] == "response.output_text.delta"
