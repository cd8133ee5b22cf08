"""The official openai SDK must parse everything the simulator says, in both OpenAI dialects."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import openai
import pytest

from router.simulator import SimThread

MODEL = "tiny"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city", "days"],
            },
        },
    }
]


def client(sim: SimThread) -> openai.OpenAI:
    return openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)


def ask(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_plain_completion_parses_and_echoes_the_model(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    reply = client(sim).chat.completions.create(model=MODEL, messages=ask("Tell me about routers"))
    assert reply.model == MODEL
    assert reply.object == "chat.completion"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.choices[0].message.content
    assert reply.usage is not None
    assert reply.usage.completion_tokens > 0
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_stream_with_usage_chunk_last(start_sim: Callable[..., SimThread], profile: str) -> None:
    sim = start_sim(profile=profile)
    stream = client(sim).chat.completions.create(
        model=MODEL,
        messages=ask("Tell me about routers"),
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert all(c.usage is None for c in chunks[:-1])
    text = "".join(c.choices[0].delta.content or "" for c in chunks[:-1])
    finishes = [c.choices[0].finish_reason for c in chunks[:-1] if c.choices[0].finish_reason]
    assert finishes == ["stop"]
    assert chunks[-1].usage.completion_tokens == len(
        [c for c in chunks[:-1] if c.choices[0].delta.content]
    )
    plain = client(sim).chat.completions.create(model=MODEL, messages=ask("Tell me about routers"))
    assert text == plain.choices[0].message.content


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_streamed_tool_call_deltas_reassemble(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    with client(sim).chat.completions.stream(
        model=MODEL,
        messages=ask("Weather in Paris?"),
        tools=TOOLS,  # type: ignore[arg-type]
    ) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()
    call = final.choices[0].message.tool_calls[0]  # type: ignore[index]
    assert final.choices[0].finish_reason == "tool_calls"
    assert call.function.name == "get_weather"  # type: ignore[union-attr]
    assert json.loads(call.function.arguments) == {"city": "Paris", "days": 1}  # type: ignore[union-attr]
    assert call.id.startswith("chatcmpl-tool-" if profile == "vllm" else "call_")


def test_raw_tool_deltas_carry_index_and_id_only_first(vllm: SimThread) -> None:
    stream = client(vllm).chat.completions.create(
        model=MODEL,
        messages=ask("Weather in Paris?"),
        tools=TOOLS,  # type: ignore[arg-type]
        stream=True,
    )
    deltas = [c.choices[0].delta.tool_calls for c in stream if c.choices[0].delta.tool_calls]
    assert deltas[0][0].id and deltas[0][0].function.name == "get_weather"  # type: ignore[union-attr]
    assert len(deltas) > 2
    assert all(d[0].index == 0 and d[0].id is None for d in deltas[1:])
    assert "".join(d[0].function.arguments or "" for d in deltas[1:])  # type: ignore[union-attr]


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
@pytest.mark.parametrize(
    "tool_choice", ["auto", "required", {"type": "function", "function": {"name": "get_weather"}}]
)
def test_after_a_tool_result_only_a_forced_tool_choice_calls_again(
    start_sim: Callable[..., SimThread], profile: str, tool_choice: Any
) -> None:
    """A tool result usually gets a text answer, but vLLM and OpenAI constrain the output to
    a call when `tool_choice` forces one, whatever the conversation holds."""
    function = {"name": "get_weather", "arguments": '{"city": "Paris", "days": 1}'}
    call = {"id": "call_1", "type": "function", "function": function}
    messages = [
        *ask("Weather in Paris?"),
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21 C"},
    ]
    message = (
        client(start_sim(profile=profile))
        .chat.completions.create(
            model=MODEL,
            messages=messages,  # type: ignore[arg-type]
            tools=TOOLS,  # type: ignore[arg-type]
            tool_choice=tool_choice,
        )
        .choices[0]
        .message
    )
    if tool_choice == "auto":
        assert message.content and not message.tool_calls
    else:
        assert [c.function.name for c in message.tool_calls or []] == ["get_weather"]  # type: ignore[union-attr]


def test_coding_math_and_prose_answers_are_shaped_by_intent(vllm: SimThread) -> None:
    c = client(vllm)
    code = c.chat.completions.create(model=MODEL, messages=ask("Write a python function fib"))
    math = c.chat.completions.create(model=MODEL, messages=ask("Compute 12 * (3 + 4)"))
    assert "```python" in (code.choices[0].message.content or "")
    assert "\\boxed{84}" in (math.choices[0].message.content or "")


def test_max_tokens_n_and_ignore_eos(vllm: SimThread) -> None:
    c = client(vllm)
    short = c.chat.completions.create(model=MODEL, messages=ask("Hello"), max_tokens=3, n=2)
    assert [ch.finish_reason for ch in short.choices] == ["length", "length"]
    assert short.usage is not None and short.usage.completion_tokens == 6
    long = c.chat.completions.create(
        model=MODEL, messages=ask("Hi"), max_tokens=50, extra_body={"ignore_eos": True}
    )
    assert long.usage is not None and long.usage.completion_tokens == 50


def test_legacy_completions_default_to_16_tokens(vllm: SimThread) -> None:
    reply = client(vllm).completions.create(model=MODEL, prompt="Once upon a time")
    assert reply.object == "text_completion"
    assert reply.usage is not None and reply.usage.completion_tokens <= 16
    chunks = list(client(vllm).completions.create(model=MODEL, prompt="Hi", stream=True))
    assert chunks[-1].choices[0].finish_reason in ("stop", "length")


def test_same_seed_same_answers(start_sim: Callable[..., SimThread]) -> None:
    answers = []
    for _ in range(2):
        sim = start_sim(seed=7)
        reply = client(sim).chat.completions.create(model=MODEL, messages=ask("Describe a cat"))
        answers.append((reply.id, reply.choices[0].message.content))
    assert answers[0] == answers[1]
    other = start_sim(seed=8)
    reply = client(other).chat.completions.create(model=MODEL, messages=ask("Describe a cat"))
    assert reply.choices[0].message.content != answers[0][1]


def test_sdk_raises_typed_errors(start_sim: Callable[..., SimThread]) -> None:
    cloud = client(start_sim(profile="cloud", max_model_len=64))
    with pytest.raises(openai.BadRequestError) as too_long:
        cloud.chat.completions.create(model=MODEL, messages=ask("word " * 100))
    assert too_long.value.code == "context_length_exceeded"
    with pytest.raises(openai.RateLimitError) as limited:
        cloud.chat.completions.create(model=MODEL + "+rate_limit:2", messages=ask("hi"))
    assert limited.value.code == "rate_limit_exceeded"
    assert limited.value.response.headers["retry-after"] == "2"
    assert limited.value.response.headers["x-request-id"].startswith("req_")
    with pytest.raises(openai.NotFoundError) as missing:
        cloud.chat.completions.create(model="gpt-nope", messages=ask("hi"))
    assert missing.value.code == "model_not_found"
    with pytest.raises(openai.InternalServerError):
        cloud.chat.completions.create(model=MODEL + "+server_error:502", messages=ask("hi"))


@pytest.mark.parametrize(
    ("profile", "refusal"), [("vllm", openai.NotFoundError), ("cloud", openai.BadRequestError)]
)
def test_a_stored_response_continues_and_an_unknown_one_is_refused(
    start_sim: Callable[..., SimThread], profile: str, refusal: type[openai.APIStatusError]
) -> None:
    """Each server keeps what it answered for `previous_response_id` and refuses an id it
    never made in its own words: vLLM a 404, OpenAI a 400 naming the field. Each echoes
    the id a turn continues, and its `text` (OpenAI's default when not asked, vLLM's none)."""
    sdk = client(start_sim(profile=profile))
    first = sdk.responses.create(model=MODEL, input="Say hi.")
    assert first.previous_response_id is None
    default = None if profile == "vllm" else "text"
    assert (first.text.format.type if first.text and first.text.format else None) == default
    streamed = list(sdk.responses.create(model=MODEL, input="Say hi.", stream=True))
    for previous in (first.id, streamed[-1].response.id):  # type: ignore[union-attr]
        again = sdk.responses.create(model=MODEL, input="Again.", previous_response_id=previous)
        assert again.output_text and again.previous_response_id == previous
    unstored = sdk.responses.create(model=MODEL, input="Say hi.", store=False)
    for unknown in ("resp_gone", unstored.id):
        with pytest.raises(refusal) as refused:
            sdk.responses.create(model=MODEL, input="Again.", previous_response_id=unknown)
        assert unknown in refused.value.message
        if profile == "cloud":
            assert refused.value.code == "previous_response_not_found"
            assert refused.value.param == "previous_response_id"
