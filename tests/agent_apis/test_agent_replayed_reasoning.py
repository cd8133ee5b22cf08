"""The router's own reasoning items (ids `rs_smf_…`, a chat backend's reasoning as the
Responses translation shows it) coming back in a later turn's `input`, as Codex and the
`openai` SDK's users send each turn's output: dropped where the turn is translated to chat,
left out for a backend that speaks Responses itself (OpenAI answers 404 for an item it never
made), and an `input` of nothing else refused by the router before any attempt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

from router import request
from router.config import parse
from router.errors import BadRequest
from router.translate import native_responses, responses_request
from tests.agent_apis.agent_stack import openai_client
from tests.agent_apis.chat_chunks import ASK
from tests.harness import Running, collected, config_for, router, simulator


def test_a_replayed_reasoning_item_with_its_text_and_no_encrypted_content_is_dropped() -> None:
    """Codex sends each turn's reasoning items back in the next one's `input`; chat has no
    place for them (and a backend given its own thinking back may refuse it)."""
    body = {
        "model": "auto",
        "input": [
            {"role": "user", "content": "What is 2 + 2?"},
            {
                "type": "reasoning",
                "id": "rs_c",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "Two and two."}],
                "status": "completed",
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "4"}],
            },
            {"role": "user", "content": "And 3 + 3?"},
        ],
    }
    messages = responses_request.to_chat(body)["messages"]
    assert messages == [
        {"role": "user", "content": "What is 2 + 2?"},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "And 3 + 3?"},
    ]


def test_the_routers_own_reasoning_items_stay_behind_when_forwarded_natively() -> None:
    """Only the items the router made (`rs_smf_…`): OpenAI's own, with or without their
    `encrypted_content`, and every other item go as sent; a body without one is itself."""
    own = {"type": "reasoning", "id": "rs_smf_chatcmpl-1_0", "summary": [], "content": []}
    openai_own = {"type": "reasoning", "id": "rs_68ab01", "summary": []}
    encrypted = {**openai_own, "id": "rs_68ab02", "encrypted_content": "gAAAA"}
    message = {"type": "message", "role": "assistant", "id": "rs_smf_x", "content": "4"}
    asked = {"role": "user", "content": "And 3 + 3?"}
    body = {"model": "auto", "input": [own, openai_own, encrypted, message, asked]}
    assert native_responses.for_native(body, openai=False) == {
        "model": "auto",
        "input": [openai_own, encrypted, message, asked],
    }
    assert [item["id"] for item in body["input"][:2]] == [own["id"], openai_own["id"]]  # kept
    plain = {"model": "auto", "input": [openai_own, asked]}
    assert native_responses.for_native(plain, openai=False) is plain
    assert native_responses.for_native({"input": "hi"}, openai=False) == {"input": "hi"}


@pytest.mark.usefixtures("short_grace")
def test_a_turn_replaying_the_routers_reasoning_item_to_a_native_backend_leaves_it_out(
    chat_sims: dict[str, Running], tmp_path: Path
) -> None:
    """Turn 1 came from a chat backend (its reasoning an item the router made); the client
    appends `response.output` to its next input, as OpenAI documents, and turn 2 goes to a
    backend that speaks Responses itself. OpenAI answers 404 for a reasoning item it never
    made, and the router forwarded it: the turn failed. Now that backend gets the turn
    without it, and with OpenAI's own reasoning item (its `encrypted_content`) as sent."""
    data = config_for(chat_sims, tmp_path).model_dump(mode="json")
    data["backends"][0]["apis"] = ["chat"]  # local: translated
    data["backends"][1]["apis"] = ["chat", "responses"]  # cloud: Responses itself
    with router(parse(data)) as running:
        sdk = openai_client(running)
        chat_sims["local"].control("faults", {"fault": "thinking:2"})
        try:
            with sdk.responses.stream(model="local", input=ASK, store=False) as stream:
                list(stream)
                first = stream.get_final_response()
        finally:
            chat_sims["local"].control("faults", {"fault": None})
        assert [item.type for item in first.output] == ["reasoning", "message"]
        theirs = {"type": "reasoning", "id": "rs_68ab03", "summary": [], "encrypted_content": "gA"}
        follow = [
            {"role": "user", "content": ASK},
            *(item.model_dump() for item in first.output),
            theirs,
            {"role": "user", "content": "Now in Rust."},
        ]
        answer = sdk.responses.create(model="cloud", input=follow, store=False)  # type: ignore[arg-type]
        got = chat_sims["cloud"].stats()["last_request"]
    assert answer.output_text
    kinds = [(item.get("type") or item.get("role"), item.get("id")) for item in got["input"]]
    assert kinds == [
        ("user", None),
        ("message", first.output[1].id),
        ("reasoning", "rs_68ab03"),
        ("user", None),
    ]


OWN = {"type": "reasoning", "id": "rs_smf_chatcmpl-1_0", "summary": [], "content": []}


def test_an_input_of_only_the_routers_reasoning_items_is_refused() -> None:
    with pytest.raises(BadRequest, match="router made") as refused:
        request.validate("responses", {"model": "cloud", "input": [OWN, OWN]})
    assert refused.value.param == "input"
    assert native_responses.for_native({"model": "cloud", "input": [OWN, "hi"]}, openai=False)[
        "input"
    ] == ["hi"]


def test_a_chat_first_route_refuses_it_before_any_attempt(tmp_path: Path) -> None:
    """Refused per attempt, a chat backend first in the route was sent `{"messages": []}`
    and its 400 relayed as the backend's rejected attempt. The router refuses it before
    any, whatever the backends speak: no attempt, no request sent."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        config = config_for({"local": local, "cloud": cloud}, tmp_path)
        data: dict[str, Any] = config.model_dump(mode="json")
        data["backends"][0]["apis"] = ["chat"]  # local, first: translated
        data["backends"][1]["apis"] = ["chat", "responses"]  # cloud: Responses itself
        with router(parse(data)) as proxy:
            records = collected(proxy)
            with pytest.raises(openai.BadRequestError) as refused:
                openai_client(proxy).responses.create(model="coding", input=[OWN])  # type: ignore[list-item]
            record = records.wait(10)
            sent = [sim.stats().get("requests") for sim in (local, cloud)]
    error = refused.value.body
    assert isinstance(error, dict)
    assert (error["param"], error["type"]) == ("input", "invalid_request_error")
    assert "reasoning items the router made" in error["message"]
    assert record.attempts == [] and record.backend is None
    assert sent == [0, 0]


def test_a_native_turn_left_with_no_input_gets_the_routers_own_400(tmp_path: Path) -> None:
    """Dropping the router's reasoning items left `input: []`, and the backend answered
    "input: Field required", a field the client had sent. The router answers itself, in
    OpenAI's shape, naming `input`, and sends the backend nothing."""
    with simulator(profile="cloud", model="cloud-model") as cloud:
        data: dict[str, Any] = config_for({"cloud": cloud}, tmp_path).model_dump(mode="json")
        data["backends"][0]["apis"] = ["chat", "responses"]  # Responses itself
        with router(parse(data)) as proxy:
            before = cloud.stats().get("requests")
            with pytest.raises(openai.BadRequestError) as refused:
                openai_client(proxy).responses.create(model="cloud", input=[OWN])  # type: ignore[list-item]
            after = cloud.stats().get("requests")
    error = refused.value.body
    assert isinstance(error, dict)
    assert error["param"] == "input" and error["type"] == "invalid_request_error"
    assert "reasoning items the router made" in error["message"]
    assert before == after  # the backend got nothing
