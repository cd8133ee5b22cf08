"""The Anthropic Messages profile with the official anthropic SDK, and vLLM's native
`/v1/messages` and `/v1/responses`."""

from __future__ import annotations

from collections.abc import Callable

import anthropic
import httpx
import openai
import pytest

from router.simulator import SimThread

MODEL = "tiny"
TOOL = {
    "name": "get_weather",
    "description": "Weather for a city",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def client(sim: SimThread) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=sim.url, api_key="x", max_retries=0)


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


@pytest.fixture
def claude(start_sim: Callable[..., SimThread]) -> SimThread:
    return start_sim(profile="anthropic", max_model_len=1000)


def test_message_with_usage(claude: SimThread) -> None:
    reply = client(claude).messages.create(model=MODEL, max_tokens=100, messages=user("Hello"))  # type: ignore[arg-type]
    assert reply.type == "message"
    assert reply.model == MODEL
    assert reply.stop_reason == "end_turn"
    assert reply.content[0].type == "text" and reply.content[0].text
    assert reply.usage.input_tokens > 0 and reply.usage.output_tokens > 0


def test_stream_event_sequence_and_text(claude: SimThread) -> None:
    with client(claude).messages.stream(
        model=MODEL, max_tokens=5, messages=user("Hello")
    ) as stream:  # type: ignore[arg-type]
        kinds = [event.type for event in stream]
        final = stream.get_final_message()
    core = [k for k in kinds if k not in ("text", "ping")]
    assert core[:2] == ["message_start", "content_block_start"]
    assert core[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert set(core[2:-3]) == {"content_block_delta"}
    assert final.stop_reason == "max_tokens"
    assert final.usage.output_tokens == 5


def test_streamed_tool_use_with_input_json_delta(claude: SimThread) -> None:
    with client(claude).messages.stream(
        model=MODEL,
        max_tokens=100,
        messages=user("Weather in Paris?"),  # type: ignore[arg-type]
        tools=[TOOL],  # type: ignore[list-item]
    ) as stream:
        deltas = [e.delta.type for e in stream if e.type == "content_block_delta"]
        final = stream.get_final_message()
    block = final.content[0]
    assert set(deltas) == {"input_json_delta"}
    assert block.type == "tool_use" and block.name == "get_weather"
    assert block.input == {"city": "Paris"}
    assert block.id.startswith("toolu_")
    assert final.stop_reason == "tool_use"


def test_count_tokens_and_errors(claude: SimThread) -> None:
    c = client(claude)
    counted = c.messages.count_tokens(model=MODEL, messages=user("Hello there"))  # type: ignore[arg-type]
    assert counted.input_tokens > 0
    with pytest.raises(anthropic.RateLimitError) as limited:
        c.messages.create(model=MODEL + "+rate_limit:3", max_tokens=10, messages=user("x"))  # type: ignore[arg-type]
    assert limited.value.body == {  # type: ignore[comparison-overlap]
        "type": "error",
        "error": {"type": "rate_limit_error", "message": limited.value.body["error"]["message"]},  # type: ignore[index]
    }
    with pytest.raises(anthropic.BadRequestError) as too_long:
        c.messages.create(model=MODEL, max_tokens=10, messages=user("word " * 2000))  # type: ignore[arg-type]
    assert "prompt is too long" in str(too_long.value)
    with pytest.raises(anthropic.InternalServerError) as overloaded:
        c.messages.create(model=MODEL + "+server_error:529", max_tokens=10, messages=user("x"))  # type: ignore[arg-type]
    assert overloaded.value.status_code == 529
    with pytest.raises(anthropic.NotFoundError):
        c.messages.create(model="claude-nope", max_tokens=10, messages=user("x"))  # type: ignore[arg-type]


def test_both_samplers_are_refused_as_claude_4_5_on_refuses_them(claude: SimThread) -> None:
    """Anthropic's 400 for `temperature` and `top_p` together; either alone is served.
    (This SDK has neither argument any more: Claude 4.7 on takes no sampling parameters.)"""
    c = client(claude)
    with pytest.raises(anthropic.BadRequestError) as both:
        c.messages.create(
            model=MODEL,
            max_tokens=5,
            messages=user("x"),  # type: ignore[arg-type]
            extra_body={"temperature": 0.2, "top_p": 0.9},
        )
    assert both.value.body == {  # type: ignore[comparison-overlap]
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "`temperature` and `top_p` cannot both be specified for this model. "
            "Please use only one.",
        },
    }
    for one in ({"temperature": 0.2}, {"top_p": 0.9}):
        reply = c.messages.create(model=MODEL, max_tokens=5, messages=user("x"), extra_body=one)  # type: ignore[arg-type]
        assert reply.type == "message"


def test_vllm_serves_messages_natively(vllm: SimThread) -> None:
    reply = client(vllm).messages.create(model=MODEL, max_tokens=50, messages=user("Hello"))  # type: ignore[arg-type]
    assert reply.content[0].type == "text"
    with client(vllm).messages.stream(model=MODEL, max_tokens=50, messages=user("Hi")) as stream:  # type: ignore[arg-type]
        assert stream.get_final_text()


def test_vllm_serves_responses_streamed_and_not(vllm: SimThread) -> None:
    oai = openai.OpenAI(base_url=vllm.url + "/v1", api_key="x", max_retries=0)
    plain = oai.responses.create(model=MODEL, input="Tell me about routers")
    assert plain.status == "completed" and plain.output_text
    assert plain.usage is not None and plain.usage.output_tokens > 0
    events = list(oai.responses.create(model=MODEL, input="Tell me about routers", stream=True))
    assert events[0].type == "response.created"
    assert events[-1].type == "response.completed"
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == plain.output_text
    raw = httpx.post(
        vllm.url + "/v1/responses", json={"model": MODEL, "input": "x", "stream": True}
    )
    assert "[DONE]" not in raw.text


def test_responses_function_call(vllm: SimThread) -> None:
    oai = openai.OpenAI(base_url=vllm.url + "/v1", api_key="x", max_retries=0)
    tool = {"type": "function", "name": "get_weather", "parameters": TOOL["input_schema"]}
    reply = oai.responses.create(model=MODEL, input="Weather in Paris?", tools=[tool])  # type: ignore[list-item]
    call = reply.output[0]
    assert call.type == "function_call" and call.name == "get_weather"
    assert call.arguments == '{"city": "Paris"}'


def test_error_event_mid_stream_is_what_each_sdk_raises_on(
    claude: SimThread, start_sim: Callable[..., SimThread]
) -> None:
    """`error_event` speaks each API's in-band failure: Messages' `event: error` and
    Responses' `error` event, which the official SDKs turn into exceptions."""
    headers = {"x-sim-fault": "error_event"}
    with (
        pytest.raises(anthropic.APIStatusError, match="Internal server error"),
        client(claude).messages.stream(
            model=MODEL, max_tokens=50, messages=user("Hello"), extra_headers=headers
        ) as stream,  # type: ignore[arg-type]
    ):
        list(stream)
    vllm = start_sim(profile="vllm")
    responses = openai.OpenAI(base_url=vllm.url + "/v1", api_key="x", max_retries=0)
    events = responses.responses.create(
        model=MODEL, input="Hello", stream=True, extra_headers=headers
    )
    kinds = [event.type for event in events]
    assert kinds[-1] == "error" and "response.completed" not in kinds
    with (  # a status names the error as the profile does: Anthropic's overload is 529
        pytest.raises(anthropic.APIStatusError) as overloaded,
        client(claude).messages.stream(
            model=MODEL,
            max_tokens=50,
            messages=user("Hello"),
            extra_headers={"x-sim-fault": "error_event:2:529"},
        ) as stream,  # type: ignore[arg-type]
    ):
        list(stream)
    assert overloaded.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]
    limited = responses.responses.create(
        model=MODEL, input="Hi", stream=True, extra_headers={"x-sim-fault": "error_event:2:429"}
    )
    last = list(limited)[-1]
    assert last.type == "error" and last.code == "rate_limit_exceeded"


@pytest.mark.parametrize("fault", ["error_event", "error_event:0", "error_event:999"])
def test_the_responses_error_event_takes_the_next_sequence_number(
    start_sim: Callable[..., SimThread], fault: str
) -> None:
    """It was numbered `len(frames)`: 28 right after the delta numbered 5 (found in review).
    It takes the place of the event it cuts off, so the numbers stay consecutive."""
    vllm = start_sim(profile="vllm")
    client = openai.OpenAI(base_url=vllm.url + "/v1", api_key="x", max_retries=0)
    events = list(
        client.responses.create(
            model=MODEL, input="Hello", stream=True, extra_headers={"x-sim-fault": fault}
        )
    )
    assert events[-1].type == "error"
    assert [e.sequence_number for e in events] == list(range(len(events)))


def test_the_model_list_asks_for_the_key_as_anthropic_does(
    start_sim: Callable[..., SimThread],
) -> None:
    """`GET /v1/models` answered without a key, so a router's probe that sent none, or sent
    it where the backend does not read it, passed unseen (found in review)."""
    sim = start_sim(profile="anthropic", api_key="sk-ant-k")
    keyless = httpx.get(f"{sim.url}/v1/models", timeout=5, trust_env=False)
    assert keyless.status_code == 401
    assert keyless.json()["error"]["type"] == "authentication_error"
    headers = {"x-api-key": "sk-ant-k", "anthropic-version": "2023-06-01"}
    keyed = httpx.get(f"{sim.url}/v1/models", headers=headers, timeout=5, trust_env=False)
    assert [card["id"] for card in keyed.json()["data"]] == [MODEL]
    sdk = anthropic.Anthropic(base_url=sim.url, api_key="sk-ant-k", max_retries=0)
    assert [card.id for card in sdk.models.list()] == [MODEL]
