"""llama-stack 0.2.12's native chat path, in front of the router: its tool results come
without `tool_call_id`, and its `@client_tool` schemas name the Python type `"str"`.

Its `convert_message_to_openai_dict` keeps the ids of an assistant's `tool_calls` and
drops the result's: `{"role": "tool", "content": [{"type": "text", ...}]}` (recorded in a
live review, agents included). vLLM takes that; OpenAI, as the simulator's cloud profile
now does, refuses it ("Missing parameter 'tool_call_id': ..."), so a tool turn routed to
the cloud failed. The router fills the ids in from the calls when they pair by position
(`router.backends.tool_result_ids`); anything else goes as sent. A schema's `"type": "str"`
is not the router's to repair: OpenAI's 400 names the field, and reaches the client. Real
sockets: the official SDK through the router to the simulators, each of which keeps the
last body it was sent (`keep_requests`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import openai
import pytest

from router.backends.openai_compatible import OpenAICompatibleBackend
from router.backends.tool_result_ids import with_call_ids
from router.config import Backend
from tests.agent_apis.agent_stack import answered, last_request, openai_client, stack
from tests.harness import Running


def _parts(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


def _call(call_id: str, city: str) -> dict[str, Any]:
    arguments = f'{{"city": "{city}"}}'
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }


TOOL: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
# A tool-result turn as llama-stack 0.2.12's native path sends it (recorded)
ASKED: Any = [
    {"role": "system", "content": _parts("You are a travel assistant.")},
    {"role": "user", "content": _parts("What's the weather in Paris?")},
    {
        "role": "assistant",
        "content": _parts(""),
        "tool_calls": [_call("call_b3fa7aa7e1fab9d7", "Paris")],
    },
    {"role": "tool", "content": _parts("18C, sunny")},
]
NATIVE: dict[str, Any] = {"max_tokens": 64, "temperature": 0.0, "tools": [TOOL]}


@pytest.mark.parametrize("stream", [False, True])
def test_a_tool_result_without_its_id_is_served_by_the_cloud(
    servers: dict[str, Running], tmp_path: Path, stream: bool
) -> None:
    """Whole and streamed (llama-stack streams its agents' turns): served by the cloud,
    which was sent the result under the id of the call before it; the rest as sent. The
    cloud refused this turn before (its 400 reached the client)."""
    with stack(servers, tmp_path, ["cloud"]) as proxy:
        kwargs = {"model": "auto", "messages": copy.deepcopy(ASKED), **NATIVE}
        headers, _ = answered(openai_client(proxy), kwargs, stream=stream)
    assert headers["x-smf-backend"] == "cloud"
    body = last_request(servers["cloud"])
    assert body["messages"] == [*ASKED[:3], {**ASKED[3], "tool_call_id": "call_b3fa7aa7e1fab9d7"}]


def test_vllm_is_sent_the_tool_result_as_it_came(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """vLLM takes a result without its id: its body is the client's."""
    with stack(servers, tmp_path, ["local"]) as proxy:
        kwargs = {"model": "auto", "messages": copy.deepcopy(ASKED), **NATIVE}
        headers, _ = answered(openai_client(proxy), kwargs, stream=False)
    assert headers["x-smf-backend"] == "local"
    assert last_request(servers["local"])["messages"] == ASKED


def test_results_that_do_not_pair_reach_the_cloud_as_sent(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """Two calls and one result: which call it answers is not the router's guess. The cloud
    refuses the body in OpenAI's words, and the client reads them."""
    two = [
        *ASKED[:2],
        {**ASKED[2], "tool_calls": [_call("a", "Paris"), _call("b", "Rome")]},
        ASKED[3],
    ]
    with (
        stack(servers, tmp_path, ["cloud"]) as proxy,
        pytest.raises(openai.BadRequestError) as refused,
    ):
        openai_client(proxy).chat.completions.create(model="auto", messages=two, **NATIVE)
    assert last_request(servers["cloud"])["messages"] == two
    message = refused.value.response.json()["error"]["message"]
    assert message.startswith("Missing parameter 'tool_call_id'"), message


def test_a_python_type_name_in_a_schema_is_refused_by_the_cloud(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """`@client_tool`'s `"type": "str"` goes as sent, not repaired: OpenAI's 400 names the
    function and the type, and reaches the client. No fallback follows a client's 400, not
    even to vLLM, which would take the schema: the request is wrong, not the backend."""
    tool = copy.deepcopy(TOOL)
    tool["function"]["parameters"]["properties"]["city"]["type"] = "str"
    local = servers["local"].completions()
    with (
        stack(servers, tmp_path, ["cloud", "local"]) as proxy,
        pytest.raises(openai.BadRequestError) as refused,
    ):
        openai_client(proxy).chat.completions.create(
            model="auto", messages=ASKED[:2], max_tokens=64, tools=[tool]
        )
    assert last_request(servers["cloud"])["tools"] == [tool]
    assert servers["local"].completions() == local
    error = refused.value.response.json()["error"]
    assert error["message"].startswith("Invalid schema for function 'get_weather'"), error


CALLS = {
    "role": "assistant",
    "content": None,
    "tool_calls": [_call("a", "Paris"), _call("b", "Rome")],
}
RESULT = {"role": "tool", "content": "18C"}


def test_results_pairing_by_position_are_given_the_ids_of_the_calls() -> None:
    """Each run of results after calls, as many as the calls: the ids in the calls' order,
    the rest of each message kept; an empty or null id is no id."""
    messages = [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        CALLS,
        RESULT,
        {**RESULT, "content": "21C", "tool_call_id": None},
        {"role": "assistant", "content": None, "tool_calls": [_call("c", "Oslo")]},
        {**RESULT, "tool_call_id": ""},
    ]
    filled = with_call_ids({"model": "m", "messages": messages})
    assert filled == {
        "model": "m",
        "messages": [
            *messages[:2],
            {**RESULT, "tool_call_id": "a"},
            {**RESULT, "content": "21C", "tool_call_id": "b"},
            messages[4],
            {**RESULT, "tool_call_id": "c"},
        ],
    }
    assert messages[2] == RESULT  # the client's body is not changed


AS_SENT: list[list[Any]] = [
    [CALLS, RESULT],  # fewer results than calls
    [CALLS, RESULT, RESULT, RESULT],  # more
    [CALLS, RESULT, {**RESULT, "tool_call_id": "b"}],  # one has its id already
    [CALLS, {**RESULT, "tool_call_id": 7}, RESULT],  # an id of any kind is one
    [{**CALLS, "tool_calls": [_call("a", "Paris"), {"type": "function"}]}, RESULT, RESULT],
    [{**CALLS, "tool_calls": [_call("a", "Paris"), _call("", "Rome")]}, RESULT, RESULT],
    [CALLS, RESULT, {"role": "user", "content": "and"}, RESULT],  # broken by another message
    [{"role": "user", "content": "hi"}, RESULT],  # after no calls
    [{**CALLS, "tool_calls": []}, RESULT],
    [CALLS, {**RESULT, "tool_call_id": "a"}, {**RESULT, "tool_call_id": "b"}],  # nothing missing
]


@pytest.mark.parametrize("messages", AS_SENT)
def test_results_that_do_not_pair_by_position_are_left_as_sent(messages: list[Any]) -> None:
    body = {"model": "m", "messages": messages}
    assert with_call_ids(body) is body


@pytest.mark.parametrize("body", [{"model": "m"}, {"model": "m", "messages": "hi"}])
def test_a_body_without_a_message_list_is_left_as_sent(body: dict[str, Any]) -> None:
    assert with_call_ids(body) is body


def test_only_a_chat_body_for_a_backend_not_taken_for_vllm_is_given_the_ids() -> None:
    """What a backend adapter makes of a body (live attempts, fallbacks and shadow replays
    all go through it): OpenAI's API, on either tier, or a cloud is given the ids; the
    local vLLM is sent the body as it came."""
    body = {"model": "auto", "messages": [CALLS, RESULT, RESULT]}
    filled = [CALLS, {**RESULT, "tool_call_id": "a"}, {**RESULT, "tool_call_id": "b"}]
    for tier, url in [
        ("cloud", "https://api.openai.com/v1"),
        ("local", "https://api.openai.com/v1"),
        ("cloud", "http://10.0.0.2:8000/v1"),
    ]:
        backend = OpenAICompatibleBackend(Backend(name="b", tier=tier, base_url=url, model="m"))
        assert backend.body_for("chat", body)["messages"] == filled, (tier, url)
    vllm = OpenAICompatibleBackend(
        Backend(name="v", tier="local", base_url="http://10.0.0.2:8000/v1", model="m")
    )
    assert vllm.body_for("chat", body)["messages"] == body["messages"]
