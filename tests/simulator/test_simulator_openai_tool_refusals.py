"""What llama-stack 0.2.12's native path sends, OpenAI refuses and vLLM takes: a tool result
without `tool_call_id`, and a tool schema whose `type` is `"str"` (the Python name). The
simulator's cloud profile, standing for OpenAI in demo mode and tests, answered both with
a 200, so "it works in demo" did not hold for a cloud backend (found live). Now it refuses
them in OpenAI's words (`router.simulator.openai_refusals`, `openai_schemas`), and a
Responses `function_call_output` without its `call_id` too; the vLLM profile still takes
the two chat bodies, as vLLM's `CustomChatCompletionMessageParam` does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimThread

MODEL = "tiny"
HTTP = httpx.Client(trust_env=False, timeout=30)
ASK = {"role": "user", "content": "What is the weather in Paris?"}
CALLED = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        }
    ],
}
# llama-stack 0.2.12's `convert_message_to_openai_dict`: a tool result with no id
UNNAMED_RESULT = {"role": "tool", "content": [{"type": "text", "text": "18C, sunny"}]}
NAMED_RESULT = {**UNNAMED_RESULT, "tool_call_id": "call_1"}


def schema(city: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"city": city}, "required": ["city"]}


# llama-stack's `@client_tool` parameter: `"type": "str"`
STR_CITY = schema({"type": "str", "description": "The city"})


def chat_tools(parameters: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "get_weather", "parameters": parameters}}]


def post(sim: SimThread, path: str, body: dict[str, Any]) -> httpx.Response:
    return HTTP.post(f"{sim.url}/v1/{path}", json={"model": MODEL, **body})


def refusal(message: str, param: str, code: str | None) -> dict[str, Any]:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return {"error": error}


def assert_schema_refused(response: httpx.Response, param: str, shown: str) -> None:
    """A 400 of OpenAI's code for a bad schema at `param`, its message naming the function
    and the bad type as Python shows it (`shown`), its sentence otherwise not held."""
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request_error",
        "invalid_function_parameters",
        param,
    ), error
    assert "'get_weather'" in error["message"] and shown in error["message"], error


@pytest.mark.parametrize("stream", [False, True])
def test_the_cloud_profile_refuses_a_tool_result_without_its_call_id(
    start_sim: Callable[..., SimThread], stream: bool
) -> None:
    """OpenAI's words, as its clients quote them (langchain-ai/langchain#22600,
    MadcowD/ell#325): its older check of a conversation, `messages.[N]` and a null code."""
    sim = start_sim(profile="cloud")
    messages = [ASK, CALLED, UNNAMED_RESULT]
    response = post(sim, "chat/completions", {"messages": messages, "stream": stream})
    assert response.status_code == 400, response.text
    assert response.json() == refusal(
        "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
        "messages.[2].tool_call_id",
        None,
    )


def test_the_cloud_profile_takes_a_tool_result_naming_its_call(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim(profile="cloud")
    messages = [ASK, CALLED, NAMED_RESULT]
    response = post(sim, "chat/completions", {"messages": messages})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("parameters", "shown"),
    [
        (STR_CITY, "'str'"),
        (schema({"type": ["string", "str"]}), "['string', 'str']"),
        (schema({"type": ["string", "string"]}), "['string', 'string']"),
        (schema({"type": "object", "properties": {"name": {"type": "text"}}}), "'text'"),
        (schema({"anyOf": [{"type": "string"}, {"type": "float"}]}), "'float'"),
        ({"type": "dict", "properties": {}}, "'dict'"),
    ],
)
def test_the_cloud_profile_refuses_a_type_json_schema_does_not_know(
    start_sim: Callable[..., SimThread], parameters: dict[str, Any], shown: str
) -> None:
    """OpenAI checks a schema against JSON Schema's metaschema and quotes the check's words
    (FoundationAgents/OpenManus#1162: "[] is not of type 'object', 'boolean'."); the
    sentence for a bad `type` is inferred (`openai_schemas`), so only what it names is
    held."""
    sim = start_sim(profile="cloud")
    body = {"messages": [ASK], "tools": chat_tools(parameters)}
    response = post(sim, "chat/completions", body)
    assert_schema_refused(response, "tools[0].function.parameters", shown)


def test_the_cloud_profile_refuses_it_on_responses_under_the_tools_own_param(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim(profile="cloud")
    tools = [{"type": "function", "name": "get_weather", "parameters": STR_CITY}]
    response = post(sim, "responses", {"input": "Weather in Paris?", "tools": tools})
    assert_schema_refused(response, "tools[0].parameters", "'str'")


def nested(depth: int, inner: str) -> str:
    """A tool's `parameters` as JSON text: `depth` arrays of arrays around `inner`."""
    return '{"type": "array", "items": ' * depth + inner + "}" * depth


def test_a_bad_type_a_thousand_deep_is_refused_not_a_simulator_bug(
    start_sim: Callable[..., SimThread],
) -> None:
    """A schema 1000 deep (JSON parsers take 1024) raised `RecursionError` in the walk for
    unknown types, and the cloud profile answered 500 "simulator bug" (found in review);
    its bad type at the bottom is refused as any other. Sent as text: the encoders of
    Python's json and orjson stop short of that depth."""
    sim = start_sim(profile="cloud")
    parameters = nested(1000, '{"type": "str"}')
    tool = (
        f'{{"type": "function", "function": {{"name": "get_weather", "parameters": {parameters}}}}}'
    )
    ask = '{"role": "user", "content": "Hi"}'
    text = f'{{"model": "{MODEL}", "messages": [{ask}], "tools": [{tool}]}}'
    headers = {"content-type": "application/json"}
    response = HTTP.post(f"{sim.url}/v1/chat/completions", content=text, headers=headers)
    assert_schema_refused(response, "tools[0].function.parameters", "'str'")


def test_the_cloud_profile_takes_every_type_json_schema_knows(
    start_sim: Callable[..., SimThread],
) -> None:
    """Only an unknown `type` is refused: each of the seven, an array of them, a null
    (not asked) and an odd schema without types are answered."""
    sim = start_sim(profile="cloud")
    named = ("string", "integer", "number", "boolean", "array", "object", "null")
    properties: dict[str, Any] = {name: {"type": name} for name in named}
    properties |= {"either": {"type": ["string", "null"]}, "unset": {"type": None}}
    properties |= {"any": {}, "ref": {"$ref": "#/properties/any"}}
    parameters = {"type": "object", "properties": properties}
    body = {"messages": [ASK], "tools": chat_tools(parameters), "tool_choice": "required"}
    response = post(sim, "chat/completions", body)
    assert response.status_code == 200, response.text
    tool = {"type": "function", "name": "get_weather", "parameters": parameters}
    response = post(sim, "responses", {"input": "Weather in Paris?", "tools": [tool]})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("output", "message", "code"),
    [
        ({}, "Missing required parameter: 'input[2].call_id'.", "missing_required_parameter"),
        (  # BigPizzaV3/CodexPlusPlus#315
            {"call_id": ""},
            "Invalid 'input[2].call_id': empty string. Expected a string with minimum length"
            " 1, but got an empty string instead.",
            "empty_string",
        ),
    ],
)
def test_the_cloud_profile_refuses_a_function_call_output_without_its_call_id(
    start_sim: Callable[..., SimThread], output: dict[str, Any], message: str, code: str
) -> None:
    sim = start_sim(profile="cloud")
    items = [
        {"type": "message", "role": "user", "content": "What is the weather in Paris?"},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "output": "18C, sunny", **output},
    ]
    response = post(sim, "responses", {"input": items})
    assert response.status_code == 400, response.text
    assert response.json() == refusal(message, "input[2].call_id", code)


def test_the_vllm_profile_takes_what_llama_stack_sends(vllm: SimThread) -> None:
    """vLLM reads a message through `CustomChatCompletionMessageParam` too, whose
    `tool_call_id` is optional, and takes any object as a schema."""
    response = post(vllm, "chat/completions", {"messages": [ASK, CALLED, UNNAMED_RESULT]})
    assert response.status_code == 200, response.text
    body = {"messages": [ASK], "tools": chat_tools(STR_CITY), "tool_choice": "required"}
    response = post(vllm, "chat/completions", body)
    assert response.status_code == 200, response.text
    call = response.json()["choices"][0]["message"]["tool_calls"][0]["function"]
    assert call["name"] == "get_weather"
