"""`POST /v1/responses/input_tokens` (the `openai` SDK's `responses.input_tokens.count`): kani
asks it before every Responses request, and the router's 404 failed every one (found live,
kani 1.10.0 with `api_type="responses"`). The official SDK against a real router over
simulators: an estimate, the history of a response the router made over chat counted in,
OpenAI's own count when OpenAI's API would serve the turn (and only then: never a
fallback's), every field optional as OpenAI's, refusals of a wrong kind as `/v1/responses`
refuses them, nothing recorded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai.types.responses import input_token_count_params

from classifier.intent import INTENTS
from router.api import responses_count
from router.config import parse
from tests.agent_apis.stored_stack import client, config, seeded
from tests.harness import Running, RunningRouter, collected, router

ASK = "Write a Python function that reverses a list."
FOLLOW = "Now add type hints to it."


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with seeded(41) as running:
        yield running


@pytest.fixture(scope="module")
def over_chat(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """Both backends speak chat only: the router makes every Response and keeps it."""
    with router(parse(config(servers, tmp_path_factory.mktemp("count"), ["chat"]))) as running:
        yield running


def by_path(server: Running) -> dict[str, int]:
    return dict(server.stats()["by_path"])


def test_the_sdk_counts_a_turn_and_nothing_is_recorded(
    over_chat: RunningRouter, servers: dict[str, Running]
) -> None:
    records, before = collected(over_chat), {n: by_path(s) for n, s in servers.items()}
    raw = client(over_chat).responses.input_tokens.with_raw_response.count(
        model="auto", input=ASK, instructions="Be terse."
    )
    counted = raw.parse()
    assert counted.object == "response.input_tokens" and counted.input_tokens > 0
    assert raw.headers["x-smf-estimated"] == "true"
    assert "x-smf-backend" not in raw.headers  # no backend counted it
    assert raw.headers["x-request-id"]
    assert records.records == []  # a count is not a generation
    assert {n: by_path(s) for n, s in servers.items()} == before  # no backend was asked


def test_a_longer_input_counts_more(over_chat: RunningRouter) -> None:
    sdk = client(over_chat)
    short = sdk.responses.input_tokens.count(model="auto", input=ASK).input_tokens
    tools: Any = [{"type": "function", "name": "f", "parameters": {"type": "object"}}]
    longer = sdk.responses.input_tokens.count(model="auto", input=ASK * 20, tools=tools)
    assert longer.input_tokens > short


def test_a_turn_continuing_a_response_made_over_chat_counts_its_history(
    over_chat: RunningRouter,
) -> None:
    """The router holds that conversation (`router.stored_items`): the turn would send it
    whole, so its count holds it too."""
    sdk = client(over_chat)
    first = sdk.responses.create(model="auto", input=ASK * 10)
    alone = sdk.responses.input_tokens.count(model="auto", input=FOLLOW).input_tokens
    chained = sdk.responses.input_tokens.count(
        model="auto", input=FOLLOW, previous_response_id=first.id
    ).input_tokens
    assert chained > alone + len(ASK * 10) // 8  # the first turn's input is in it


def test_another_callers_response_is_not_found(over_chat: RunningRouter) -> None:
    first = client(over_chat).responses.create(model="auto", input=ASK)
    with pytest.raises(openai.BadRequestError) as caught:
        client(over_chat, "bob").responses.input_tokens.count(
            model="auto", input=FOLLOW, previous_response_id=first.id
        )
    assert caught.value.code == "previous_response_not_found"
    assert first.id in caught.value.message


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"model": "auto", "input": 5}, "input"),
        ({"model": 5, "input": ASK}, "model"),
        ({"model": "auto", "input": ASK, "tools": {"a": 1}}, "tools"),
        ({"model": "auto", "input": ASK, "instructions": 5}, "instructions"),
        ({"model": "auto", "input": ASK, "conversation": 5}, "conversation"),
        ({"model": "auto", "input": ASK, "conversation": {"id": 5}}, "conversation.id"),
        ({"model": "auto", "input": ASK, "conversation": {}}, "conversation.id"),
    ],
)
def test_a_bad_body_is_an_openai_400_naming_the_field(
    over_chat: RunningRouter, body: dict[str, Any], param: str
) -> None:
    response = httpx.post(
        f"{over_chat.url}/responses/input_tokens",
        json=body,
        headers={"authorization": "Bearer key-a"},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["param"] == param
    assert response.headers["x-request-id"]


def test_every_field_is_optional_as_on_openais_count(over_chat: RunningRouter) -> None:
    """openai-python's `InputTokenCountParams` is `total=False`: `{}`, an input without a
    model and a continuation without an input were each a 400 here. (A continuation of a
    response the router did not make is a backend's: over chat alone it is refused as its
    turn is, `test_a_count_is_refused_where_its_turn_is`.)"""
    first = client(over_chat).responses.create(model="auto", input=ASK * 10)
    url = f"{over_chat.url}/responses/input_tokens"
    auth = {"authorization": "Bearer key-a"}
    bodies: list[dict[str, Any]] = [
        {},
        {"input": ASK},
        {"model": None, "input": None},
        {"model": "auto", "previous_response_id": first.id},
    ]
    counted = [httpx.post(url, json=body, headers=auth) for body in bodies]
    assert [r.status_code for r in counted] == [200] * len(bodies), [r.text for r in counted]
    tokens = [r.json()["input_tokens"] for r in counted]
    assert tokens[1] > tokens[0]  # the input is counted
    assert tokens[3] > len(ASK * 10) // 8  # the history it continues is counted
    assert all(r.headers["x-smf-estimated"] == "true" for r in counted)


@pytest.mark.parametrize(
    ("stored", "param"),
    [
        ({"previous_response_id": "resp_nope"}, "previous_response_id"),
        ({"conversation": "conv_nope"}, "conversation"),
        ({"conversation": {"id": "conv_nope"}}, "conversation"),
    ],
)
def test_a_count_is_refused_where_its_turn_is(
    over_chat: RunningRouter, stored: dict[str, Any], param: str
) -> None:
    """A turn naming what only a backend speaking Responses stores, with none that does, is
    a 400; its count was a 200 estimate (found in review). Refused alike, in the same words."""
    auth = {"authorization": "Bearer key-a"}
    body = {"model": "auto", "input": FOLLOW, **stored}
    counted = httpx.post(f"{over_chat.url}/responses/input_tokens", json=body, headers=auth)
    turn = httpx.post(f"{over_chat.url}/responses", json=body, headers=auth)
    assert (counted.status_code, turn.status_code) == (400, 400), counted.text
    assert counted.json()["error"]["param"] == param
    assert counted.json()["error"] == turn.json()["error"]


def test_an_unknown_model_and_a_wrong_key_are_refused_as_on_responses(
    over_chat: RunningRouter,
) -> None:
    sdk = client(over_chat)
    with pytest.raises(openai.NotFoundError) as counted:
        sdk.responses.input_tokens.count(model="no-such-model", input=ASK)
    with pytest.raises(openai.NotFoundError) as created:
        sdk.responses.create(model="no-such-model", input=ASK)
    assert counted.value.message == created.value.message
    wrong = openai.OpenAI(base_url=over_chat.url, api_key="nope", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        wrong.responses.input_tokens.count(model="auto", input=ASK)


def test_openais_own_api_counts_exactly_and_vllm_is_not_asked(
    servers: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backend that is OpenAI's API (here the cloud simulator, taken for it) and speaks
    Responses is asked for the count; vLLM, which has no such endpoint, never is."""
    cloud_url = servers["cloud"].url
    monkeypatch.setattr(responses_count, "openai_hosted", lambda url: url == cloud_url)
    data = config(servers, tmp_path, ["responses"])
    data["backends"][1]["apis"] = ["responses"]  # cloud, OpenAI's
    before = {n: by_path(s) for n, s in servers.items()}
    with router(parse(data)) as proxy:
        sdk = client(proxy)
        exact = sdk.responses.input_tokens.with_raw_response.count(model="cloud", input=ASK)
        local = sdk.responses.input_tokens.with_raw_response.count(model="local", input=ASK)
    assert exact.headers["x-smf-backend"] == "cloud"
    assert exact.headers["x-smf-estimated"] == "false"
    assert exact.parse().input_tokens > 0
    assert local.headers["x-smf-estimated"] == "true"
    after = {n: by_path(s) for n, s in servers.items()}
    path = "/v1/responses/input_tokens"
    assert after["cloud"].get(path, 0) == before["cloud"].get(path, 0) + 1
    assert after["local"].get(path, 0) == before["local"].get(path, 0) == 0


def test_an_unserved_responses_path_says_what_of_responses_is_served(
    over_chat: RunningRouter,
) -> None:
    """Was told to point "other APIs (embeddings, audio, images)" at a backend."""
    response = httpx.post(
        f"{over_chat.url}/responses/compact",
        json={"model": "auto", "input": ASK},
        headers={"authorization": "Bearer key-a"},
    )
    assert response.status_code == 404
    message = response.json()["error"]["message"]
    assert "POST /v1/responses/input_tokens" in message
    assert "embeddings" not in message


def test_a_local_first_turn_is_never_counted_by_the_cloud(
    servers: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every step of the plan was asked, fallbacks too: a turn served locally had its input
    sent to OpenAI to be counted (kani counts every turn so; found in review). Only the
    backend that would serve the turn is asked."""
    cloud_url = servers["cloud"].url
    monkeypatch.setattr(responses_count, "openai_hosted", lambda url: url == cloud_url)
    data = config(servers, tmp_path, ["responses"])
    data["backends"][1]["apis"] = ["responses"]  # cloud, OpenAI's
    data["routes"] = {intent: ["local", "cloud"] for intent in INTENTS}  # local first
    before = {n: by_path(s) for n, s in servers.items()}
    with router(parse(data)) as proxy:
        sdk = client(proxy)
        counted = sdk.responses.input_tokens.with_raw_response.count(model="auto", input=ASK)
        made = sdk.responses.with_raw_response.create(model="auto", input=ASK)
    assert made.headers["x-smf-backend"] == "local"  # where the turn goes
    assert counted.headers["x-smf-estimated"] == "true"
    assert "x-smf-backend" not in counted.headers
    path = "/v1/responses/input_tokens"
    assert by_path(servers["cloud"]).get(path, 0) == before["cloud"].get(path, 0)


def test_only_the_fields_openais_count_takes_are_sent_to_it(
    servers: dict[str, Running], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A create's whole body went to OpenAI's count, which refuses what it does not take
    (`max_output_tokens`, `store`, ...): each such count fell back to an estimate."""
    cloud_url = servers["cloud"].url
    monkeypatch.setattr(responses_count, "openai_hosted", lambda url: url == cloud_url)
    data = config(servers, tmp_path, ["responses"])
    data["backends"][1]["apis"] = ["responses"]  # cloud, OpenAI's
    extra = {"max_output_tokens": 100, "store": False, "metadata": {"a": "b"}, "temperature": 0}
    with router(parse(data)) as proxy:
        raw = client(proxy).responses.input_tokens.with_raw_response.count(
            model="cloud", input=ASK, instructions="Be terse.", extra_body=extra
        )
    # the cloud simulator refuses a field OpenAI's count does not take, as OpenAI does
    assert (raw.headers["x-smf-backend"], raw.headers["x-smf-estimated"]) == ("cloud", "false")


def test_the_fields_sent_are_the_sdks() -> None:
    """A field a newer SDK adds to the count is one to send (and one it drops, not)."""
    params = input_token_count_params.InputTokenCountParams
    assert set(params.__annotations__) == responses_count.COUNTED_FIELDS
