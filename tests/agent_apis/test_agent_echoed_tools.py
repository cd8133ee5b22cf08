"""A Response echoes the request's `tools` and `tool_choice` (`router.echoed_fields`): a
function, custom or namespace tool the SDK's model could not read, or a malformed
`tool_choice`, is refused as OpenAI refuses it, a 400 naming the field with OpenAI's code,
before any backend is tried; a hosted tool or one of a type the SDK does not know is not
refused (a backend that speaks Responses may serve it) and the Response made over chat does
not list it; and the simulator standing for OpenAI refuses as OpenAI does. The official
SDK against a real router whose `cloud` speaks chat only and `local` Responses itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, get_args

import openai
import pytest
from openai.types.responses import (
    CustomTool,
    FunctionTool,
    NamespaceTool,
    Response,
    Tool,
    ToolChoiceAllowed,
    ToolChoiceOptions,
    ToolChoiceTypes,
)
from openai.types.responses import response as response_types
from openai.types.responses.namespace_tool import ToolFunction
from openai.types.shared.custom_tool_input_format import Grammar

from router import echoed_fields
from router.config import parse
from tests.agent_apis.echo_refusal import ASK, refused_before_any_backend
from tests.agent_apis.stored_stack import client, config, seeded
from tests.agent_apis.test_agent_namespaced_tools import SUB_AGENTS
from tests.agent_shapes.codex import CODEX_TOOLS
from tests.harness import Running, RunningRouter, router
from tests.openai_types import field_names, literals, type_names

FUNCTION: dict[str, Any] = {"type": "function", "name": "f", "parameters": {}}
GRAMMAR = {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"}


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with seeded(83) as running:
        yield running


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    tmp = tmp_path_factory.mktemp("echoed_tools")
    with router(parse(config(servers, tmp, ["chat", "responses"]))) as running:
        yield running


MISSING, INVALID, KIND = "missing_required_parameter", "invalid_value", "invalid_type"
REFUSED: list[tuple[dict[str, Any], str, str | None]] = [
    ({"tools": [{"type": "function", "parameters": {}}]}, "tools[0].name", MISSING),
    ({"tools": [FUNCTION, FUNCTION, {"name": "g"}]}, "tools[2].type", MISSING),
    ({"tools": [{**FUNCTION, "name": ""}]}, "tools[0].name", "empty_string"),
    ({"tools": [{**FUNCTION, "parameters": "{}"}]}, "tools[0].parameters", KIND),
    ({"tools": [{**FUNCTION, "strict": "yes"}]}, "tools[0].strict", KIND),
    ({"tools": [{**FUNCTION, "description": 7}]}, "tools[0].description", KIND),
    ({"tools": [{**FUNCTION, "allowed_callers": ["all"]}]}, "tools[0].allowed_callers[0]", INVALID),
    (
        {"tools": [{"type": "custom", "name": "p", "format": {**GRAMMAR, "syntax": "peg"}}]},
        "tools[0].format.syntax",
        INVALID,
    ),
    (
        {
            "tools": [
                {"type": "custom", "name": "p", "format": {"type": "grammar", "syntax": "lark"}}
            ]
        },
        "tools[0].format.definition",
        MISSING,
    ),
    ({"tools": [{"type": "custom", "name": "p", "format": "lark"}]}, "tools[0].format", KIND),
    ({"tools": [{**SUB_AGENTS, "description": None}]}, "tools[0].description", MISSING),
    (
        {"tools": [{**SUB_AGENTS, "tools": [FUNCTION, {"type": "function"}]}]},
        "tools[0].tools[1].name",
        MISSING,
    ),
    ({"tool_choice": "sometimes"}, "tool_choice", INVALID),
    ({"tool_choice": 3}, "tool_choice", KIND),
    ({"tool_choice": {"name": "f"}}, "tool_choice.type", MISSING),
    ({"tool_choice": {"type": "function", "function": {"name": "f"}}}, "tool_choice.name", MISSING),
    ({"tool_choice": {"type": "mcp", "server_label": 5}}, "tool_choice.server_label", KIND),
    (
        {"tool_choice": {"type": "allowed_tools", "mode": "some", "tools": []}},
        "tool_choice.mode",
        INVALID,
    ),
    # the codes of the refusals before these
    ({"truncation": "sometimes"}, "truncation", INVALID),
    ({"truncation": True}, "truncation", KIND),
    ({"metadata": {f"k{i}": "v" for i in range(17)}}, "metadata", "object_above_max_properties"),
    ({"metadata": {"note": "v" * 513}}, "metadata.note", "string_above_max_length"),
    ({"text": {"format": {"name": "person"}}}, "text.format.type", MISSING),
]


@pytest.mark.parametrize(("asked", "param", "code"), REFUSED)
@pytest.mark.parametrize("model", ["cloud", "local"])
def test_a_tool_or_choice_a_response_cannot_echo_is_refused_naming_it(
    proxy: RunningRouter,
    servers: dict[str, Running],
    model: str,
    asked: dict[str, Any],
    param: str,
    code: str | None,
) -> None:
    """Over chat a malformed tool went back as sent (a function without a name dropped
    from what chat was offered, and answered), in a Response the SDK's model refuses; a
    backend that speaks Responses is not asked either. OpenAI's code where its 400s carry
    one; the refusal keeps its record."""
    error, record = refused_before_any_backend(proxy, servers, model, asked, param)
    assert error.code == code
    # the ledger's and the metrics' kind of any such 400, whatever code the client is told
    assert record.error_kind == "invalid_request"


HOSTED: list[dict[str, Any]] = [
    {"type": "web_search", "external_web_access": False, "indexed_web_access": True},
    {"type": "local_shell"},
    {"type": "tool_search", "execution": "client", "description": "Find tools."},
    {"type": "image_generation", "quality": "ultra"},  # no value the SDK's model takes
    {"type": "future_tool", "reach": 3},  # a type the SDK does not know
]
CUSTOM = {"type": "custom", "name": "grep", "format": {"type": "text"}}
# what chat is offered, and the echo lists: a namespace with its function tools only
OFFERED = [*CODEX_TOOLS, CUSTOM, SUB_AGENTS]
MIXED = {**SUB_AGENTS, "tools": [*SUB_AGENTS["tools"], {"type": "future_member"}]}
ALLOWED = {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "f"}]}
CHOICES: list[tuple[Any, Any]] = [
    ({"type": "custom", "name": "apply_patch"}, {"type": "custom", "name": "apply_patch"}),
    (ALLOWED, ALLOWED),
    ({"type": "web_search_preview"}, {"type": "web_search_preview"}),
    ({"type": "future_choice"}, "auto"),  # not sent to chat: its default
    # the OpenAI Agents SDK's tool_choice="mcp", and the AI SDK's for an MCP tool, name no
    # server, which the SDK's model requires of an echo (refused till found in review)
    ({"type": "mcp"}, "auto"),
    ({"type": "mcp", "server_label": "docs"}, {"type": "mcp", "server_label": "docs"}),
    ("required", "required"),
]


@pytest.mark.parametrize(("choice", "echoed"), CHOICES)
@pytest.mark.parametrize("stream", [False, True])
def test_the_response_made_over_chat_lists_the_tools_chat_was_offered(
    proxy: RunningRouter, choice: Any, echoed: Any, stream: bool
) -> None:
    """Codex's tools with hosted ones and one of a type the SDK does not know: taken (a
    backend that speaks Responses may serve them), and the Response made over chat lists
    the function, custom and namespace tools the model was offered, which the SDK's model
    reads strictly, whole and in each streamed event: the rest went back as sent, which
    it refuses."""
    asked = {"tools": [*CODEX_TOOLS, CUSTOM, MIXED, *HOSTED], "tool_choice": choice}
    for response in _carried(client(proxy), asked, stream):
        Response.model_validate(response, strict=True)
        assert response["tools"] == OFFERED
        assert response["tool_choice"] == echoed


def _carried(sdk: openai.OpenAI, asked: dict[str, Any], stream: bool) -> list[dict[str, Any]]:
    """The Response a reply carries: whole, or each one its events carry."""
    if not stream:
        raw = sdk.responses.with_raw_response.create(model="cloud", input=ASK, extra_body=asked)
        return [json.loads(raw.text)]
    with sdk.responses.with_streaming_response.create(
        model="cloud", input=ASK, stream=True, extra_body=asked
    ) as streamed:
        events = [json.loads(line[5:]) for line in streamed.iter_lines() if line[:5] == "data:"]
    assert events[-1]["type"] == "response.completed"
    return [e["response"] for e in events if "response" in e]


def test_a_backend_that_speaks_responses_is_sent_every_tool(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """A tool of a type the SDK does not know reaches a backend that speaks Responses, as
    sent, and its answer comes back: the router does not refuse what that backend may
    serve."""
    reply = client(proxy).responses.create(
        model="local", input=ASK, extra_body={"tools": [FUNCTION, *HOSTED]}
    )
    assert reply.status == "completed"
    assert servers["local"].stats()["last_request"]["tools"] == [FUNCTION, *HOSTED]


SIM_REFUSED: list[tuple[dict[str, Any], str, str | None]] = [
    # a schema that is no object: its own refusal first (test_simulator_tool_schemas.py)
    *((asked, param, code) for asked, param, code in REFUSED if param != "tools[0].parameters"),
    ({"tools": [FUNCTION, {"type": "future_tool"}]}, "tools[1].type", INVALID),
    ({"tool_choice": {"type": "future_choice"}}, "tool_choice.type", INVALID),
    ({"tools": [FUNCTION, MIXED]}, "tools[1].tools[5].type", INVALID),
    ({"metadata": {"count": 3}}, "metadata.count", KIND),
    # the Agents SDK's tool_choice="mcp", which the router takes (above): OpenAI does not
    ({"tool_choice": {"type": "mcp"}}, "tool_choice.server_label", MISSING),
]


@pytest.mark.parametrize(("asked", "param", "code"), SIM_REFUSED)
def test_the_simulator_standing_for_openai_refuses_as_openai(
    servers: dict[str, Running], asked: dict[str, Any], param: str, code: str | None
) -> None:
    """The cloud profile answered these 200, echoing them as sent; OpenAI refuses each, a
    tool or choice of a type it does not know too, in its error body: a test that takes the
    simulator for OpenAI sees the refusal a client of OpenAI would."""
    sdk = openai.OpenAI(base_url=servers["cloud"].url, api_key="x", max_retries=0)
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.responses.create(model="cloud-model", input=ASK, extra_body=asked)
    error = refused.value
    assert (error.status_code, error.param, error.code) == (400, param, code)
    body = error.response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["type"] == "invalid_request_error"


def test_the_simulator_standing_for_openai_echoes_what_it_takes(
    servers: dict[str, Running],
) -> None:
    sdk = openai.OpenAI(base_url=servers["cloud"].url, api_key="x", max_retries=0)
    asked = {"tools": [*OFFERED, *HOSTED[:3]], "tool_choice": "auto"}
    raw = sdk.responses.with_raw_response.create(model="cloud-model", input=ASK, extra_body=asked)
    response = json.loads(raw.text)
    Response.model_validate(response, strict=True)
    assert response["tools"] == asked["tools"]


def test_the_closed_sets_are_the_sdks() -> None:
    """The tool types, tool fields and choices checked are those the `openai` SDK's types
    list: a field it adds is one the check must learn, and a value it drops is refused."""
    assert set(echoed_fields.TOOL_TYPES) == type_names(get_args(get_args(Tool)[0]))
    choices = get_args(response_types.ToolChoice)
    assert set(echoed_fields.CHOICES) == set(get_args(ToolChoiceOptions))
    assert set(echoed_fields.CHOICE_TYPES) == type_names(choices)
    assert set(echoed_fields.HOSTED_CHOICES) > literals(ToolChoiceTypes, "type")
    assert set(echoed_fields.CHOICE_MODES) == literals(ToolChoiceAllowed, "mode")
    assert set(echoed_fields.CALLERS) == literals(FunctionTool, "allowed_callers")
    assert set(echoed_fields.SYNTAXES) == literals(Grammar, "syntax")
    named = {"type", "name", "allowed_callers"}
    assert field_names(FunctionTool) == named | set(echoed_fields.FUNCTION_FIELDS)
    assert field_names(ToolFunction) == named | set(echoed_fields.FUNCTION_FIELDS)
    assert field_names(CustomTool) == named | {"format"} | set(echoed_fields.CUSTOM_FIELDS)
    assert field_names(NamespaceTool) == {"type", "name", "description", "tools"}
