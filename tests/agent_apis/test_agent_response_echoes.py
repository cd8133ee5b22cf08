"""A Response echoes what its request asked (`router.echoed_fields`): a value it could not
echo is refused as OpenAI refuses it, a 400 naming the field, before any backend is tried,
and leaves its ledger record; every value it takes comes back in a Response the `openai`
SDK's own model reads strictly. The official SDK against a real router whose `cloud`
speaks chat only (the router writes the Response) and `local` Responses itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, get_args

import openai
import pytest
from openai.types.responses import Response, ResponseFormatTextConfig, ResponseTextConfig
from openai.types.shared import Reasoning

from router import echoed_fields
from router.config import parse
from tests.agent_apis.echo_refusal import ASK, refused_before_any_backend
from tests.agent_apis.stored_stack import client, config, seeded
from tests.harness import Running, RunningRouter, router
from tests.openai_types import literals

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with seeded(71) as running:
        yield running


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    tmp = tmp_path_factory.mktemp("echoes")
    with router(parse(config(servers, tmp, ["chat", "responses"]))) as running:
        yield running


REFUSED: list[tuple[str, Any, str]] = [
    ("truncation", "sometimes", "truncation"),
    ("truncation", True, "truncation"),
    ("metadata", "team=a", "metadata"),
    ("metadata", {"count": 3}, "metadata.count"),
    ("metadata", {f"k{i}": "v" for i in range(17)}, "metadata"),
    ("metadata", {"k" * 65: "v"}, "metadata." + "k" * 65),
    ("metadata", {"note": "v" * 513}, "metadata.note"),
    ("reasoning", "high", "reasoning"),
    ("reasoning", {"effort": 5}, "reasoning.effort"),
    ("reasoning", {"effort": "extreme"}, "reasoning.effort"),
    ("reasoning", {"summary": "brief"}, "reasoning.summary"),
    ("reasoning", {"generate_summary": "off"}, "reasoning.generate_summary"),
    ("reasoning", {"context": "everything"}, "reasoning.context"),
    ("reasoning", {"mode": 2}, "reasoning.mode"),
    ("store", "false", "store"),
    ("parallel_tool_calls", "yes", "parallel_tool_calls"),
    ("max_output_tokens", "16", "max_output_tokens"),
    ("max_output_tokens", 0, "max_output_tokens"),
    ("user", 42, "user"),
    ("previous_response_id", 7, "previous_response_id"),
    ("temperature", "hot", "temperature"),
    ("top_p", False, "top_p"),
    ("text", "json", "text"),
    ("text", {"format": "json_object"}, "text.format"),
    ("text", {"format": {"type": "xml"}}, "text.format.type"),
    ("text", {"format": {"type": "json_schema", "schema": SCHEMA}}, "text.format.name"),
    ("text", {"format": {"type": "json_schema", "name": "person"}}, "text.format.schema"),
    ("text", {"verbosity": "loud"}, "text.verbosity"),
]


@pytest.mark.parametrize(("field", "value", "param"), REFUSED)
@pytest.mark.parametrize("model", ["cloud", "local"])
def test_a_value_a_response_cannot_echo_is_refused_naming_it(
    proxy: RunningRouter,
    servers: dict[str, Running],
    model: str,
    field: str,
    value: Any,
    param: str,
) -> None:
    """Over chat the router echoed it as sent, in a Response the SDK's model refuses; a
    backend that speaks Responses is not asked either. The refusal keeps its record."""
    error, record = refused_before_any_backend(proxy, servers, model, {field: value}, param)
    assert record.request_id == error.response.headers["x-request-id"]


def test_a_streamed_request_is_refused_before_its_stream(proxy: RunningRouter) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client(proxy).responses.create(
            model="cloud", input=ASK, stream=True, extra_body={"truncation": "sometimes"}
        )
    assert refused.value.param == "truncation"


TAKEN: list[dict[str, Any]] = [
    {"truncation": "auto", "parallel_tool_calls": None, "tool_choice": None},
    {"truncation": None, "user": None, "temperature": 0, "top_p": 0.5},
    {"metadata": {f"{i:064d}": "v" * 512 for i in range(16)}},
    {"metadata": {}, "user": "u-1", "store": False, "parallel_tool_calls": False},
    *({"reasoning": {"effort": effort, "summary": "concise"}} for effort in echoed_fields.EFFORTS),
    {"reasoning": {"effort": None, "generate_summary": "auto", "context": "all_turns"}},
    {"text": {"format": {"type": "json_schema", "name": "person", "schema": SCHEMA}}},
    {"text": {"format": {"type": "json_object"}, "verbosity": "low"}},
    {"text": {"format": None, "verbosity": None}},
]


@pytest.mark.parametrize("asked", TAKEN)
@pytest.mark.parametrize("stream", [False, True])
def test_a_response_made_over_chat_echoes_what_it_takes_as_the_sdk_reads_it(
    proxy: RunningRouter, asked: dict[str, Any], stream: bool
) -> None:
    """Each value the router takes comes back in a Response `Response.model_validate` reads
    strictly: a null `parallel_tool_calls` or `tool_choice` was echoed null, which it
    refuses (OpenAI's are a boolean and a choice), whole and in each streamed event."""
    sdk = client(proxy)
    if not stream:
        raw = sdk.responses.with_raw_response.create(model="cloud", input=ASK, extra_body=asked)
        carried = [json.loads(raw.text)]
    else:
        with sdk.responses.with_streaming_response.create(
            model="cloud", input=ASK, stream=True, extra_body=asked
        ) as streamed:
            events = [json.loads(line[5:]) for line in streamed.iter_lines() if line[:5] == "data:"]
        carried = [e["response"] for e in events if "response" in e]
        assert events[-1]["type"] == "response.completed"
    for echoed in carried:
        response = Response.model_validate(echoed, strict=True)
        for field, value in asked.items():
            if isinstance(value, dict) and field != "metadata":  # what it asked, and defaults
                assert (
                    echoed[field] | {k: v for k, v in value.items() if v is not None}
                    == echoed[field]
                )
            elif value is not None and field != "tool_choice":
                assert echoed[field] == value, field
        assert response.parallel_tool_calls is (asked.get("parallel_tool_calls") is not False)
        assert response.tool_choice == "auto"


def test_the_closed_sets_are_the_sdks() -> None:
    """The values taken are those the `openai` SDK's `Response` types list: a new one there is
    a new one here, and a value it drops is refused."""
    assert set(echoed_fields.TRUNCATIONS) == literals(Response, "truncation")
    assert set(echoed_fields.VERBOSITIES) == literals(ResponseTextConfig, "verbosity")
    for name, allowed in echoed_fields.REASONING.items():
        assert set(allowed) == literals(Reasoning, name), name
    assert set(echoed_fields.FORMATS) == {
        literals(kind, "type").pop() for kind in get_args(get_args(ResponseFormatTextConfig)[0])
    }
