"""The router refuses what a Response could not echo as OpenAI does: for each field the
router checks before any backend is tried (`router.echoed_fields`), its answer and the
answer of the simulator standing for OpenAI agree on status, `param` and `code`, for the
values refused and for every value the `openai` SDK's types list, which both take. So for
a field of the wrong JSON kind that the router reads of every API (`router.request`:
`store`, `stream`, `tools`, the output limits, ...), on Responses and on chat alike.

The simulator refuses from a table of its own (`router.simulator.openai_refusals`). It
called the router's check instead, so this comparison compared a check with itself: a
router check that dropped a value OpenAI takes, or named a refusal other than OpenAI does,
changed the simulator with it and passed. The official SDK against a real router whose
`cloud` speaks chat only (the router writes the Response), and the cloud simulator
itself.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import Any, get_args

import openai
import pytest
from openai.types.responses import (
    FunctionTool,
    Response,
    ResponseFormatTextConfig,
    ResponseTextConfig,
    ToolChoiceAllowed,
    ToolChoiceOptions,
)
from openai.types.shared import Reasoning
from openai.types.shared.custom_tool_input_format import Grammar
from pydantic import BaseModel

from router.config import parse
from tests.agent_apis.stored_stack import client, config, seeded
from tests.agent_apis.test_agent_echoed_tools import FUNCTION, REFUSED
from tests.agent_apis.test_agent_response_echoes import REFUSED as VALUES_REFUSED
from tests.agent_apis.test_agent_response_echoes import SCHEMA
from tests.harness import REPO, Running, RunningRouter, router
from tests.openai_types import literals

ASK = "Write a Python function that reverses a list."
# The fields `router.echoed_fields` checks, which the simulator checks too (`store` and
# `max_output_tokens` the router checks elsewhere, `KINDS`)
ECHOED = {"truncation", "metadata", "reasoning", "parallel_tool_calls", "user", "text"}
ECHOED |= {"previous_response_id", "temperature", "top_p", "tools", "tool_choice"}
CHAT_TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
# A value of the wrong JSON kind for a field `router.request` checks of every API: OpenAI's
# `invalid_type`, the element of `tools` named (`tools[1]`), where the router's refusal
# had a null code and named `tools`
KINDS: list[dict[str, Any]] = [
    *({"store": "false"}, {"background": "yes"}, {"stream": "yes"}),
    *({"stream_options": "usage"}, {"instructions": {"text": "be brief"}}),
    *({"max_output_tokens": "16"}, {"max_output_tokens": 16.0}, {"tools": "none"}),
    *({"tools": [1]}, {"tools": [FUNCTION, "lookup"]}),
]
CHAT_KINDS: list[dict[str, Any]] = [
    *({"stream": "yes"}, {"store": "false"}, {"stream_options": "usage"}),
    *({"max_tokens": "10"}, {"max_completion_tokens": 1.5}, {"max_tokens": True}),
    *({"tools": {"f": CHAT_TOOL}}, {"tools": [CHAT_TOOL, "lookup"]}),
    {"temperature": "hot"},  # not the router's check: OpenAI's answer, passed on
    *({"n": "2"}, {"n": 2.5}),
]
# A chat body OpenAI refuses for the shape of `messages` or an output limit below 1: each
# the router's own refusal, answered in OpenAI's words. Each came with a null code and the
# router's words (found in review). An empty `tools` OpenAI refuses too, but the router
# sends it as no tools (`test_an_empty_tools_openai_refuses_is_served`)
CHAT_SHAPES: list[tuple[dict[str, Any], str]] = [
    *(({"messages": "hi"}, "invalid_type"), ({"messages": {}}, "invalid_type")),
    *(({"messages": []}, "empty_array"), ({"messages": None}, "missing_required_parameter")),
    ({"messages": [42]}, "invalid_type"),
    ({"messages": [{"content": "x"}]}, "missing_required_parameter"),
    ({"messages": [{"role": "user", "content": {"text": "x"}}]}, "invalid_type"),
    # a turn's tool calls not an array (of objects): it crashed the simulator, a 500
    ({"messages": [{"role": "assistant", "tool_calls": 5}, {"role": "user"}]}, "invalid_type"),
    ({"messages": [{"role": "assistant", "tool_calls": ["f()"]}]}, "invalid_type"),
    *(
        ({"max_tokens": 0}, "integer_below_min_value"),
        ({"max_tokens": -3}, "integer_below_min_value"),
    ),
    ({"max_completion_tokens": 0}, "integer_below_min_value"),
    # the choices asked, 1 to 128 (OpenAI's API spec): the router passed any `n` on
    *(({"n": 129}, "integer_above_max_value"), ({"n": 0}, "integer_below_min_value")),
]
CHAT_TAKEN: list[dict[str, Any]] = [
    *({"stream": False}, {"store": False}, {"max_tokens": 10}, {"max_completion_tokens": 10}),
    *({"temperature": 0.5}, {"tools": [CHAT_TOOL]}, {"stream": None}),
    *({"n": 1}, {"n": 2}, {"n": None}),
    {"n": 128},  # the most choices OpenAI's API spec allows: taken, as 129 is refused
]


def _taken() -> list[dict[str, Any]]:
    """A body for each value of each closed set the SDK's types list, which OpenAI takes."""
    bodies: list[dict[str, Any]] = [{"truncation": v} for v in _sorted(Response, "truncation")]
    for name in ("effort", "summary", "generate_summary", "context"):
        bodies += [{"reasoning": {name: value}} for value in _sorted(Reasoning, name)]
    bodies += [{"text": {"verbosity": v}} for v in _sorted(ResponseTextConfig, "verbosity")]
    for kind in get_args(get_args(ResponseFormatTextConfig)[0]):
        fmt = {"type": literals(kind, "type").pop()}
        named = {"name": "person", "schema": SCHEMA} if fmt["type"] == "json_schema" else {}
        bodies.append({"text": {"format": fmt | named}})
    tools = {"tools": [FUNCTION]}
    bodies += [tools | {"tool_choice": v} for v in get_args(ToolChoiceOptions)]
    for mode in _sorted(ToolChoiceAllowed, "mode"):
        allowed = [{"type": "function", "name": "f"}]
        bodies.append(
            tools | {"tool_choice": {"type": "allowed_tools", "mode": mode, "tools": allowed}}
        )
    for caller in _sorted(FunctionTool, "allowed_callers"):
        bodies.append({"tools": [{**FUNCTION, "allowed_callers": [caller]}]})
    for syntax in _sorted(Grammar, "syntax"):
        grammar = {"type": "grammar", "syntax": syntax, "definition": "start: /.+/"}
        bodies.append({"tools": [{"type": "custom", "name": "p", "format": grammar}]})
    return bodies


def _sorted(model: type[BaseModel], field: str) -> list[str]:
    return sorted(literals(model, field))


TAKEN = _taken()
CASES: list[dict[str, Any]] = [
    # a schema that is no object: the simulator's refusal of it comes first, in vLLM's words
    *(asked for asked, param, _ in REFUSED if param != "tools[0].parameters"),
    *({field: value} for field, value, _ in VALUES_REFUSED if field in ECHOED),
    *KINDS,
    # below 1, refused by both (OpenAI's floor is 16, and its own 400 tells a request asking
    # fewer that reaches its Responses API: the router leaves it to the backend)
    {"max_output_tokens": 0},
    *TAKEN,
]


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with seeded(91) as running:
        yield running


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    tmp = tmp_path_factory.mktemp("refusal_parity")
    with router(parse(config(servers, tmp, ["chat", "responses"]))) as running:
        yield running


def _answer(sdk: openai.OpenAI, model: str, asked: dict[str, Any]) -> tuple[int, Any, Any]:
    """Status, `param` and `code` of the answer to `asked`: a 200's are none."""
    try:
        sdk.responses.create(model=model, input=ASK, extra_body=asked)
    except openai.BadRequestError as refused:
        assert refused.type == "invalid_request_error"
        return refused.status_code, refused.param, refused.code
    return 200, None, None


@pytest.mark.parametrize("asked", CASES, ids=lambda asked: str(asked)[:60])
def test_the_router_answers_as_the_simulator_standing_for_openai(
    proxy: RunningRouter, servers: dict[str, Running], asked: dict[str, Any]
) -> None:
    """Over chat the router answers a Response itself, or refuses before any backend is
    tried: as OpenAI (the simulator's table) refuses or takes the same request."""
    openai_sdk = openai.OpenAI(base_url=servers["cloud"].url, api_key="x", max_retries=0)
    expected = _answer(openai_sdk, "cloud-model", asked)
    assert _answer(client(proxy), "cloud", asked) == expected
    assert (expected[0] == 200) is (asked in TAKEN)


def _refusal(ask: Callable[[], object]) -> Any:
    """The error object of the 400 `ask` met (message, type, param, code), None if taken."""
    try:
        ask()
    except openai.BadRequestError as refused:
        return refused.body
    return None


def _chat_refusals(
    proxy: RunningRouter, servers: dict[str, Running], asked: dict[str, Any]
) -> tuple[Any, Any]:
    """What the simulator standing for OpenAI and the router each refused of a chat request
    with the fields `asked` (`_refusal`: None when taken)."""
    messages: Any = [{"role": "user", "content": ASK}]
    openai_sdk = openai.OpenAI(base_url=servers["cloud"].url, api_key="x", max_retries=0)
    sdk = client(proxy)
    return (
        _refusal(
            lambda: openai_sdk.chat.completions.create(
                model="cloud-model", messages=messages, extra_body=asked
            )
        ),
        _refusal(
            lambda: sdk.chat.completions.create(model="cloud", messages=messages, extra_body=asked)
        ),
    )


@pytest.mark.parametrize("asked", KINDS, ids=lambda asked: str(asked)[:60])
def test_a_field_of_the_wrong_kind_is_refused_in_openais_words(
    proxy: RunningRouter, servers: dict[str, Running], asked: dict[str, Any]
) -> None:
    """The whole refusal, its message too: "Invalid type for 'store': expected a boolean,
    but got a string instead." (`invalid_type`), the router's and OpenAI's alike."""
    openai_sdk = openai.OpenAI(base_url=servers["cloud"].url, api_key="x", max_retries=0)
    expected = _refusal(
        lambda: openai_sdk.responses.create(model="cloud-model", input=ASK, extra_body=asked)
    )
    sdk = client(proxy)
    refused = _refusal(lambda: sdk.responses.create(model="cloud", input=ASK, extra_body=asked))
    assert refused == expected
    assert expected["code"] == "invalid_type", expected


@pytest.mark.parametrize("asked", CHAT_KINDS + CHAT_TAKEN, ids=lambda asked: str(asked)[:60])
def test_the_router_answers_chat_as_the_simulator_standing_for_openai(
    proxy: RunningRouter, servers: dict[str, Running], asked: dict[str, Any]
) -> None:
    """A chat field of the wrong kind is refused before any backend is tried as OpenAI
    refuses it, in its words (`invalid_type`, the field or the element named); a value of
    its kind is taken by both."""
    expected, refused = _chat_refusals(proxy, servers, asked)
    assert refused == expected
    assert (expected is None) is (asked in CHAT_TAKEN)
    assert expected is None or expected["code"] == "invalid_type", expected


def test_the_simulator_imports_none_of_the_routers_checks() -> None:
    """The simulator stands for the servers the router is tested against: a check of the
    router's it imported would be tested against itself."""
    for path in sorted((REPO / "router" / "simulator").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                assert not name.startswith(("router.echoed_fields", "router.errors")), path
                assert not name.startswith("router.translate"), path


@pytest.mark.parametrize(("asked", "code"), CHAT_SHAPES, ids=lambda asked: str(asked)[:60])
def test_the_router_refuses_a_chat_body_of_the_wrong_shape_as_openai_does(
    proxy: RunningRouter, servers: dict[str, Running], asked: dict[str, Any], code: str
) -> None:
    """The whole refusal, its message and code too: the router's and the simulator's
    standing for OpenAI alike."""
    expected, refused = _chat_refusals(proxy, servers, asked)
    assert refused == expected
    assert expected["code"] == code, expected


def test_an_empty_tools_openai_refuses_is_served(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """OpenAI (and vLLM) refuse `tools: []`, which agents send (Kimi CLI's compaction): the
    simulator refuses it as OpenAI does, and the router, which drops it before any backend
    sees it (`router.backends.empty_tools`), serves the request."""
    expected, served = _chat_refusals(proxy, servers, {"tools": []})
    assert expected is not None and expected["code"] == "empty_array", expected
    assert served is None
