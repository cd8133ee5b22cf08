"""vLLM's own `structured_outputs` request field on the `vllm` profile, which the simulator
did not read (it answered prose): `json` (a schema, or its JSON text) and `json_object`
answered with JSON as a `response_format` is, `choice` with one of its strings, on chat,
completions and Responses. vLLM 0.32 reads no `guided_json`: the text stays free. A
constraint its engine refuses comes after a stream's 200, as vLLM 0.32 sends it: an error
event and `[DONE]` (chat, completions), the connection closed (Responses). Through the
official openai SDK."""

from __future__ import annotations

import json
from typing import Any

import httpx
import jsonschema
import openai
import pytest

from router.simulator import SimThread
from tests.structured_cases import ASK, SCHEMA

CHOICE = {"structured_outputs": {"choice": ["no", "yes"]}}
NONSENSE = {"json": {"type": "nonsense"}}


@pytest.fixture
def sdk(tiny: SimThread) -> openai.OpenAI:
    return openai.OpenAI(base_url=tiny.url + "/v1", api_key="x", max_retries=0)


@pytest.mark.parametrize("given", [SCHEMA, json.dumps(SCHEMA)], ids=["object", "text"])
def test_json_is_answered_with_json_valid_against_the_schema(
    sdk: openai.OpenAI, given: Any
) -> None:
    reply = sdk.chat.completions.create(
        model="tiny", messages=ASK, extra_body={"structured_outputs": {"json": given}}
    )
    choice = reply.choices[0]
    jsonschema.validate(json.loads(choice.message.content or ""), SCHEMA)
    # ended by itself under structured output: the stop token's id, as vLLM says it
    assert (choice.finish_reason, (choice.model_extra or {})["stop_reason"]) == ("stop", 0)


def test_json_object_is_answered_with_an_object(sdk: openai.OpenAI) -> None:
    body = {"structured_outputs": {"json_object": True}}
    reply = sdk.chat.completions.create(model="tiny", messages=ASK, extra_body=body)
    assert isinstance(json.loads(reply.choices[0].message.content or ""), dict)


def test_choice_is_answered_with_one_of_its_strings(sdk: openai.OpenAI) -> None:
    reply = sdk.chat.completions.create(model="tiny", messages=ASK, extra_body=CHOICE)
    assert reply.choices[0].message.content == "no"
    chunks = list(
        sdk.chat.completions.create(model="tiny", messages=ASK, stream=True, extra_body=CHOICE)
    )
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "no"
    last = chunks[-1].choices[0]
    assert (last.delta.content, last.finish_reason) == (None, "stop")  # vLLM's `delta: {}`
    assert (last.model_extra or {})["stop_reason"] == 0


def test_completions_and_responses_take_the_field(sdk: openai.OpenAI) -> None:
    text = sdk.completions.create(model="tiny", prompt="Hello", max_tokens=20, extra_body=CHOICE)
    assert text.choices[0].text == "no"
    field = {"structured_outputs": {"json": SCHEMA}}
    reply = sdk.responses.create(
        model="tiny", input="Hello", max_output_tokens=50, extra_body=field
    )
    jsonschema.validate(json.loads(reply.output_text), SCHEMA)


def test_guided_json_is_an_unknown_field_to_vllm_032(sdk: openai.OpenAI) -> None:
    reply = sdk.chat.completions.create(
        model="tiny", messages=ASK, extra_body={"guided_json": SCHEMA, "guided_choice": ["no"]}
    )
    text = reply.choices[0].message.content or ""
    assert text not in ("no", "") and not text.startswith("{")


@pytest.mark.parametrize("api", ["chat", "completions"])
def test_an_engine_refusal_streamed_is_an_error_event_after_the_200(
    tiny: SimThread, sdk: openai.OpenAI, api: str
) -> None:
    """vLLM's engine checks the constraint once the stream has begun: the SDK raises
    mid-stream with vLLM's words; on the wire the event is followed by `[DONE]`."""
    extra = {"structured_outputs": NONSENSE}
    with pytest.raises(openai.APIError) as refused:
        if api == "chat":
            list(
                sdk.chat.completions.create(
                    model="tiny", messages=ASK, stream=True, extra_body=extra
                )
            )
        else:
            list(
                sdk.completions.create(model="tiny", prompt="Hello", stream=True, extra_body=extra)
            )
    assert refused.value.message == "Grammar error: Invalid type: nonsense"
    path = "/v1/chat/completions" if api == "chat" else "/v1/completions"
    body = {"model": "tiny", "stream": True, "stream_options": {"include_usage": True}}
    body |= {"messages": ASK} if api == "chat" else {"prompt": "Hello"}
    raw = httpx.post(tiny.url + path, json=body | extra, timeout=30, trust_env=False)
    assert raw.status_code == 200
    event, done = raw.text.split("\n\n")[:2]
    assert json.loads(event.removeprefix("data: ")) == {
        "error": {
            "message": "Grammar error: Invalid type: nonsense",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        }
    }
    assert done == "data: [DONE]"


def test_a_request_model_refusal_streamed_is_still_a_400(sdk: openai.OpenAI) -> None:
    """Refused before the stream begins (its request model, its params): no 200 first."""
    with pytest.raises(openai.BadRequestError):
        sdk.chat.completions.create(
            model="tiny", messages=ASK, stream=True, extra_body={"structured_outputs": {}}
        )


def test_a_responses_stream_vllm_refuses_is_cut_after_its_200(tiny: SimThread) -> None:
    """vLLM 0.32's Responses stream cannot send its error once started: it closes."""
    body = {"model": "tiny", "input": "Hello", "stream": True, "structured_outputs": NONSENSE}
    with httpx.stream(
        "POST", tiny.url + "/v1/responses", json=body, timeout=30, trust_env=False
    ) as r:
        assert r.status_code == 200
        with pytest.raises(httpx.RemoteProtocolError):
            r.read()


def test_a_json_text_nested_too_deep_is_invalid_json(tiny: SimThread) -> None:
    """`json` as a text nested past Python's depth: its RecursionError was a 500; it is not
    JSON the engine reads, refused as any other."""
    deep = {"json": '{"type": "object", "x": ' + "[" * 5000}
    body = {"model": "tiny", "messages": ASK, "structured_outputs": deep}
    resp = httpx.post(tiny.url + "/v1/chat/completions", json=body, timeout=30)
    assert resp.status_code == 400
    assert resp.json()["error"]["message"] == "Invalid JSON grammar specification."
