"""A tool's schema that is not an object is the client's error, as in vLLM; an odd schema
inside an object is still answered. The simulator read any `parameters` as a schema and
answered a non-object one with a 500, "simulator bug", which the router took for a
failing backend (found in review)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimThread

MODEL = "tiny"
HTTP = httpx.Client(trust_env=False, timeout=30)
USER = [{"role": "user", "content": "What is the weather in Paris?"}]


def chat_tool(schema: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": "weather", "parameters": schema}}


def request(api: str, schema: Any, stream: bool) -> tuple[str, dict[str, Any]]:
    """The path and body of a request offering one tool with `schema`, made to call it."""
    if api == "chat":
        tools = [chat_tool(schema)]
        body = {"messages": USER, "tools": tools, "tool_choice": "required"}
        return "/v1/chat/completions", body | {"model": MODEL, "stream": stream}
    if api == "responses":
        tool = {"type": "function", "name": "weather", "parameters": schema}
        body = {"input": USER[0]["content"], "tools": [tool], "tool_choice": "required"}
        return "/v1/responses", body | {"model": MODEL, "stream": stream}
    tool = {"name": "weather", "input_schema": schema}
    body = {"messages": USER, "tools": [tool], "tool_choice": {"type": "any"}, "max_tokens": 50}
    return "/v1/messages", body | {"model": MODEL, "stream": stream}


FIELDS = {
    "chat": "tools.0.function.parameters",
    "responses": "tools.0.parameters",
    "messages": "tools.0.input_schema",
}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("schema", ["yes", -1, 1.5, [{"type": "object"}], True])
@pytest.mark.parametrize("api", ["chat", "responses", "messages"])
def test_a_schema_that_is_not_an_object_is_vllms_400(
    vllm: SimThread, api: str, schema: Any, stream: bool
) -> None:
    path, body = request(api, schema, stream)
    response = HTTP.post(vllm.url + path, json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]  # FastAPI's validation handler: OpenAI's envelope
    assert (error["type"], error["code"]) == ("Bad Request", 400)
    assert error["param"] == f"body.{FIELDS[api]}"
    assert "dict_type" in error["message"]


@pytest.mark.parametrize(
    ("profile", "api"), [("cloud", "chat"), ("cloud", "responses"), ("anthropic", "messages")]
)
def test_the_cloud_profiles_refuse_it_in_their_own_shape(
    start_sim: Callable[..., SimThread], profile: str, api: str
) -> None:
    sim = start_sim(profile=profile)
    path, body = request(api, "yes", stream=False)
    response = HTTP.post(sim.url + path, json=body)
    assert response.status_code == 400, response.text
    if profile == "anthropic":
        assert response.json()["type"] == "error"
        assert response.json()["error"]["type"] == "invalid_request_error"
    else:
        assert response.json()["error"]["type"] == "invalid_request_error"
    assert FIELDS[api] in response.text


@pytest.mark.parametrize(
    "schema",
    [
        None,
        {},
        {"type": "object", "properties": ["city"]},
        {"type": "object", "properties": {"city": 5}},
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": 5},
        {"properties": {"days": {"type": "integer", "minimum": "one"}}},
        {"properties": {"days": {"type": "array", "items": 3}}},
        {"properties": {"unit": {"enum": {"c": 1}}}},
        {"required": [["city"]]},
        {"properties": {"city": {"$ref": "#/properties/city"}}},  # a ref round itself
        {"properties": {"city": {"$ref": 5}}},
        {"properties": {"city": {"anyOf": 3}}},
        {"properties": {"city": {"allOf": [{"$ref": "#"}] * 10}}},
    ],
)
def test_an_odd_schema_inside_an_object_is_still_answered(
    vllm: SimThread, schema: dict[str, Any] | None
) -> None:
    """vLLM takes any object as a schema: the call is made with what can be read of it."""
    path, body = request("chat", schema, stream=False)
    response = HTTP.post(vllm.url + path, json=body)
    assert response.status_code == 200, response.text
    call = response.json()["choices"][0]["message"]["tool_calls"][0]["function"]
    assert call["name"] == "weather"
