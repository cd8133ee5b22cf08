"""The cloud profile's refusals on `/v1/responses`, and of a chat field of the wrong kind,
are OpenAI's (`router.simulator.openai_refusals`): its closed sets are the `openai` SDK's,
and its bodies are those OpenAI's clients quote, word for word. Its own table, not the
router's: the router's is compared with it (`tests/agent_apis/test_agent_refusal_parity.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

import openai
import pytest
from openai.types.chat import completion_create_params
from openai.types.responses import (
    CustomTool,
    FunctionTool,
    NamespaceTool,
    Response,
    ResponseFormatTextConfig,
    ResponseTextConfig,
    Tool,
    ToolChoiceAllowed,
    ToolChoiceOptions,
    ToolChoiceTypes,
    response_create_params,
)
from openai.types.responses import response as response_types
from openai.types.responses.namespace_tool import ToolFunction
from openai.types.shared import Reasoning
from openai.types.shared.custom_tool_input_format import Grammar

from router.simulator import SimThread
from router.simulator import openai_refusals as table
from router.simulator.openai_shape import OneOf
from tests.openai_types import field_names, literals, type_names

FUNCTION = {"type": "function", "name": "f", "parameters": {}}
# Bodies OpenAI's 400s carried, as their clients quote them
QUOTED: list[tuple[dict[str, Any], str, str, str]] = [
    (  # BerriAI/litellm#4257
        {"metadata": {f"k{i}": "v" for i in range(17)}},
        "metadata",
        "object_above_max_properties",
        "Invalid 'metadata': too many properties. Expected an object with at most 16"
        " properties, but got an object with 17 properties instead.",
    ),
    (  # diegosouzapw/OmniRoute#707
        {"tools": [{**FUNCTION, "name": ""}]},
        "tools[0].name",
        "empty_string",
        "Invalid 'tools[0].name': empty string. Expected a string with minimum length 1, but"
        " got an empty string instead.",
    ),
    (  # spiceai/docs#928
        {"metadata": {"actual": "x" * 695}},
        "metadata.actual",
        "string_above_max_length",
        "Invalid 'metadata.actual': string too long. Expected a string with maximum length"
        " 512, but got a string with length 695 instead.",
    ),
    (  # openai/codex#7117's words, of `truncation`
        {"truncation": "sometimes"},
        "truncation",
        "invalid_value",
        "Invalid value: 'sometimes'. Supported values are: 'auto' and 'disabled'.",
    ),
    (  # icebear0828/codex-proxy#399's words, of a tool's type
        {"tools": [FUNCTION, {"name": "g"}]},
        "tools[1].type",
        "missing_required_parameter",
        "Missing required parameter: 'tools[1].type'.",
    ),
    # a value of the wrong JSON kind, as OpenAI's clients quote its 400s
    (
        {"max_output_tokens": "16"},
        "max_output_tokens",
        "invalid_type",
        "Invalid type for 'max_output_tokens': expected an integer, but got a string instead.",
    ),
    (
        {"instructions": ["be brief"]},
        "instructions",
        "invalid_type",
        "Invalid type for 'instructions': expected a string, but got an array instead.",
    ),
    (
        {"tools": {"f": FUNCTION}},
        "tools",
        "invalid_type",
        "Invalid type for 'tools': expected an array of tools, but got an object instead.",
    ),
    (
        {"tools": ["lookup"]},
        "tools[0]",
        "invalid_type",
        "Invalid type for 'tools[0]': expected an object, but got a string instead.",
    ),
    (
        {"store": "yes"},
        "store",
        "invalid_type",
        "Invalid type for 'store': expected a boolean, but got a string instead.",
    ),
    (  # vectorize-io/hindsight#58
        {"max_output_tokens": 10},
        "max_output_tokens",
        "integer_below_min_value",
        "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but"
        " got 10 instead.",
    ),
]
CHAT_TOOL = {"type": "function", "function": {"name": "f", "parameters": {}}}
# rigging 3.3.5 writes an assistant's turn of tool calls alone so (tests/fixtures/rigging-3.3.5)
CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
CALLS_ALONE = {"role": "assistant", "content": [], "tool_calls": [CALL]}
CHAT_QUOTED: list[tuple[dict[str, Any], str, str, str]] = [
    (  # diffbot/code-gpt-docs#273
        {"max_tokens": "1000"},
        "max_tokens",
        "invalid_type",
        "Invalid type for 'max_tokens': expected an integer, but got a string instead.",
    ),
    (
        {"temperature": "0.7"},
        "temperature",
        "invalid_type",
        "Invalid type for 'temperature': expected a decimal, but got a string instead.",
    ),
    (
        {"stream": "false"},
        "stream",
        "invalid_type",
        "Invalid type for 'stream': expected a boolean, but got a string instead.",
    ),
    (
        {"tools": {"f": CHAT_TOOL}},
        "tools",
        "invalid_type",
        "Invalid type for 'tools': expected an array of objects, but got an object instead.",
    ),
    (  # portkey.ai's error library
        {"messages": "hi"},
        "messages",
        "invalid_type",
        "Invalid type for 'messages': expected an array of objects, but got a string instead.",
    ),
    (  # pydantic/pydantic-ai#2653
        {"messages": [{"role": "user", "content": "Hi"}, {"role": "user", "content": {}}]},
        "messages[1].content",
        "invalid_type",
        "Invalid type for 'messages[1].content': expected one of a string or array of objects,"
        " but got an object instead.",
    ),
    (  # langchain-ai/langchainjs#11416, n8n-io/n8n#38526: an assistant's turn of calls alone
        {"messages": [{"role": "user", "content": "Hi"}, CALLS_ALONE]},
        "messages[1].content",
        "empty_array",
        "Invalid 'messages[1].content': empty array. Expected an array with minimum length 1,"
        " but got an empty array instead.",
    ),
    (  # CopilotKit/CopilotKit#529
        {"messages": []},
        "messages",
        "empty_array",
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an"
        " empty array instead.",
    ),
    (  # dnakov/anon-kode#20; vllm-project/vllm#39780 names the code
        {"tools": []},
        "tools",
        "empty_array",
        "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an"
        " empty array instead.",
    ),
    (  # it-at-m/mucgpt#608
        {"max_tokens": 0},
        "max_tokens",
        "integer_below_min_value",
        "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0"
        " instead.",
    ),
    (
        {"max_completion_tokens": -3},
        "max_completion_tokens",
        "integer_below_min_value",
        "Invalid 'max_completion_tokens': integer below minimum value. Expected a value >= 1,"
        " but got -3 instead.",
    ),
    (  # the words of a missing tool's type, of a message's role
        {"messages": [{"content": "Hi"}]},
        "messages[0].role",
        "missing_required_parameter",
        "Missing required parameter: 'messages[0].role'.",
    ),
]


@pytest.mark.parametrize(("asked", "param", "code", "message"), QUOTED)
def test_the_cloud_profile_refuses_in_openais_words(
    start_sim: Callable[..., SimThread], asked: dict[str, Any], param: str, code: str, message: str
) -> None:
    sim = start_sim(profile="cloud")
    sdk = openai.OpenAI(base_url=f"{sim.url}/v1", api_key="x", max_retries=0)
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.responses.create(model="tiny", input="Hi", extra_body=asked)
    assert refused.value.response.json() == {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    }


@pytest.mark.parametrize(("asked", "param", "code", "message"), CHAT_QUOTED)
def test_the_cloud_profile_refuses_a_chat_field_in_openais_words(
    start_sim: Callable[..., SimThread], asked: dict[str, Any], param: str, code: str, message: str
) -> None:
    """It streamed for `stream: "false"`, and refused a string `temperature` in vLLM's
    words, where OpenAI refuses both as `invalid_type`; it served `tools: []` and a
    message's `content: []`, and refused `max_tokens: 0` or `messages: []` with a null code,
    where OpenAI answers `empty_array` and `integer_below_min_value`."""
    sim = start_sim(profile="cloud")
    sdk = openai.OpenAI(base_url=f"{sim.url}/v1", api_key="x", max_retries=0)
    hi: Any = [{"role": "user", "content": "Hi"}]
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.chat.completions.create(model="tiny", messages=hi, extra_body=asked)
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    assert refused.value.response.json() == {"error": error}


@pytest.mark.parametrize("content", [None, "", [{"type": "text", "text": ""}]])
def test_the_cloud_profile_takes_a_turn_of_calls_alone_without_an_empty_array(
    start_sim: Callable[..., SimThread], content: Any
) -> None:
    """Null (what OpenAI's own replies carry), an empty string or a part: only `[]` is
    refused."""
    sim = start_sim(profile="cloud")
    sdk = openai.OpenAI(base_url=f"{sim.url}/v1", api_key="x", max_retries=0)
    messages: Any = [
        {"role": "user", "content": "Hi"},
        {**CALLS_ALONE, "content": content},
        {"role": "tool", "tool_call_id": CALL["id"], "content": "18C"},
    ]
    assert sdk.chat.completions.create(model="tiny", messages=messages).choices


def test_the_cloud_profile_takes_an_empty_tools_array_on_responses(
    start_sim: Callable[..., SimThread],
) -> None:
    """Only chat refuses `tools: []`: the OpenAI Agents SDK sends it on Responses for an
    agent without tools (`tests/fixtures/openai-agents-0.24.0`)."""
    sim = start_sim(profile="cloud")
    sdk = openai.OpenAI(base_url=f"{sim.url}/v1", api_key="x", max_retries=0)
    assert sdk.responses.create(model="tiny", input="Hi", tools=[]).status == "completed"


def test_the_closed_sets_are_the_sdks() -> None:
    """A value the SDK's types add is one the table must learn; one they drop, it refuses."""
    assert set(table.TRUNCATIONS) == literals(Response, "truncation")
    assert set(table.VERBOSITIES) == literals(ResponseTextConfig, "verbosity")
    for name, node in table.REASONING.fields.items():
        if isinstance(node, OneOf):
            assert set(node.values) == literals(Reasoning, name), name
    formats = get_args(get_args(ResponseFormatTextConfig)[0])
    assert set(table.TEXT_FORMATS.types) == {literals(kind, "type").pop() for kind in formats}
    tools = type_names(get_args(get_args(Tool)[0]))
    assert {"function", "custom", "namespace", *table.HOSTED_TOOLS} == tools
    assert set(table.CHOICES) == set(get_args(ToolChoiceOptions))
    choices = table.TOOL_CHOICE.objects
    assert {*choices.types, *choices.opaque} == type_names(get_args(response_types.ToolChoice))
    assert set(table.HOSTED_CHOICES) > literals(ToolChoiceTypes, "type")
    assert set(table.MODES) == literals(ToolChoiceAllowed, "mode")
    assert set(table.CALLERS) == literals(FunctionTool, "allowed_callers")
    assert set(table.SYNTAXES) == literals(Grammar, "syntax")
    assert field_names(FunctionTool) == {"type", *table.FUNCTION.fields}
    assert field_names(ToolFunction) == {"type", *table.MEMBER_FUNCTION.fields}
    assert field_names(CustomTool) == {"type", *table.CUSTOM.fields}
    assert field_names(NamespaceTool) == {"type", *table.NAMESPACE.fields}


@pytest.mark.parametrize(
    ("fields", "params"),
    [
        (table.REQUEST.fields, response_create_params.ResponseCreateParamsStreaming),
        (table.CHAT.fields, completion_create_params.CompletionCreateParamsStreaming),
    ],
)
def test_the_fields_checked_are_the_sdks(fields: Any, params: Any) -> None:
    """A field the table checks is one of the request's (its streaming variant: `stream`)."""
    assert set(fields) <= set(params.__annotations__)
