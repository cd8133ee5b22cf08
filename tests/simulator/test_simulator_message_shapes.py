"""A chat message of the wrong shape is a 400 from the simulator, never a crash: `tool_calls:
5` raised a TypeError where it counted the prompt's tokens, a 500 "simulator bug" that the
router counts against the backend (three opened both circuits of the demo router, found in
review). Every server refuses such a body: the `vllm` profile as vLLM 0.32 does, in the
bodies captured from it (tests/vllm/captures/error_message_*.json: its `tool_calls` made a
list first, "'int' object is not iterable", an error per branch of its message union), the
others in OpenAI's words (`invalid_type`). vLLM serves `tool_calls` `""` and `{}` (empty once
made lists); OpenAI refuses them. Over HTTP, against a started simulator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimThread
from tests.vllm.wire_shape import load

HTTP = httpx.Client(trust_env=False, timeout=30)
HI = {"role": "user", "content": "What's the weather in Paris?"}
CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def turn(**assistant: Any) -> dict[str, Any]:
    """A chat body whose second message is the assistant's, with `assistant`'s fields."""
    said = {"role": "assistant", "content": None, **assistant}
    return {"model": "tiny", "max_tokens": 5, "messages": [HI, said, HI]}


def user(content: Any) -> dict[str, Any]:
    return {"model": "tiny", "max_tokens": 5, "messages": [{"role": "user", "content": content}]}


def vllm_refusal(field: str, kind: str, given: str) -> dict[str, Any]:
    said = {"dict": "Input should be a valid dictionary", "list": "Input should be a valid list"}
    item = {"type": f"{kind}_type", "loc": f"body.{field}", "msg": said[kind], "input": given}
    message = f"1 validation error:\n  {item!r}"
    return {
        "error": {"message": message, "type": "Bad Request", "param": f"body.{field}", "code": 400}
    }


def openai_refusal(param: str, expected: str, got: str) -> dict[str, Any]:
    message = f"Invalid type for '{param}': expected {expected}, but got {got} instead."
    error = {"message": message, "type": "invalid_request_error", "param": param}
    return {"error": error | {"code": "invalid_type"}}


def captured(name: str) -> dict[str, Any]:
    """vLLM 0.32's reply to the same body (tests/vllm/captures/)."""
    return dict(load(name)["body"])


# (body, vLLM's answer, OpenAI's)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    (
        "tool_calls 5",
        turn(tool_calls=5),
        captured("error_message_tool_calls_int"),
        openai_refusal("messages[1].tool_calls", "an array of objects", "an integer"),
    ),
    (
        "tool_calls an object",
        turn(tool_calls=CALL),
        captured("error_message_tool_calls_object"),
        openai_refusal("messages[1].tool_calls", "an array of objects", "an object"),
    ),
    (
        "a tool call a string",
        turn(tool_calls=[CALL, "f()"]),
        captured("error_message_tool_call_string"),
        openai_refusal("messages[1].tool_calls[1]", "an object", "a string"),
    ),
]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("body", "refused"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_vllm_refuses_a_malformed_message_in_its_validation_body(
    vllm: SimThread, body: dict[str, Any], refused: dict[str, Any], stream: bool
) -> None:
    reply = HTTP.post(vllm.url + "/v1/chat/completions", json=body | {"stream": stream})
    assert (reply.status_code, reply.json()) == (400, refused)


@pytest.mark.parametrize(
    ("body", "refused"), [(c[1], c[3]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_openai_refuses_it_in_its_words(
    start_sim: Callable[..., SimThread], body: dict[str, Any], refused: dict[str, Any]
) -> None:
    cloud = start_sim(profile="cloud")
    reply = HTTP.post(cloud.url + "/v1/chat/completions", json=body)
    assert (reply.status_code, reply.json()) == (400, refused)


@pytest.mark.parametrize(
    "body", [turn(tool_calls=[CALL]), turn(tool_calls=None), turn(tool_calls=[])]
)
def test_a_well_formed_turn_is_served(vllm: SimThread, body: dict[str, Any]) -> None:
    assert HTTP.post(vllm.url + "/v1/chat/completions", json=body).status_code == 200


def test_openai_refuses_a_content_part_that_is_a_string(
    start_sim: Callable[..., SimThread],
) -> None:
    cloud = start_sim(profile="cloud")
    body = user([{"type": "text", "text": "hi"}, "hi"])
    reply = HTTP.post(cloud.url + "/v1/chat/completions", json=body)
    refused = openai_refusal("messages[0].content[1]", "an object", "a string")
    assert (reply.status_code, reply.json()) == (400, refused)


def tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


@pytest.mark.parametrize("stream", [False, True])
def test_vllm_reads_a_content_part_that_is_a_string(vllm: SimThread, stream: bool) -> None:
    """vLLM takes a plain string among a message's content parts as text (its content
    union's `str`, `_parse_chat_message_content_part`); the simulator refused it with a 400
    (found in review). Served, and read: the string part's ask names the tool called."""
    body = user(["hello ", "world"]) | {"stream": stream}
    assert HTTP.post(vllm.url + "/v1/chat/completions", json=body).status_code == 200
    asked = user([{"type": "text", "text": "Please"}, "use get_weather"])
    asked |= {"tools": [tool("f"), tool("get_weather")], "max_tokens": 64}
    reply = HTTP.post(vllm.url + "/v1/chat/completions", json=asked)
    (call,) = reply.json()["choices"][0]["message"]["tool_calls"]
    assert call["function"]["name"] == "get_weather"


def test_a_string_part_counts_as_its_text(vllm: SimThread) -> None:
    """A plain string part's prompt tokens are its text's, as the same text sent whole."""

    def prompt_tokens(content: Any) -> int:
        reply = HTTP.post(vllm.url + "/v1/chat/completions", json=user(content))
        return int(reply.json()["usage"]["prompt_tokens"])

    text = "What is the weather like in Paris and in Lisbon today?"
    assert prompt_tokens([text]) == prompt_tokens(text)


def vllm_says(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "BadRequestError", "param": None, "code": 400}}


def bad_request_body(message: str, param: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "Bad Request", "param": param, "code": 400}}


def reply(sim: SimThread, body: dict[str, Any]) -> tuple[int, Any]:
    got = HTTP.post(sim.url + "/v1/chat/completions", json=body)
    return got.status_code, got.json()


@pytest.mark.parametrize(
    ("calls", "said"),
    [(True, "'bool' object is not iterable"), (2.5, "'float' object is not iterable")],
)
def test_vllm_makes_any_messages_tool_calls_a_list_first(
    vllm: SimThread, calls: Any, said: str
) -> None:
    """On a user message too, and before it looks at any other message (the first is no
    object here): its request model's before-validator runs `list(tool_calls)`."""
    body = user("hi")
    body["messages"] = [5, {"role": "user", "content": "hi", "tool_calls": calls}]
    status, answer = reply(vllm, body)
    assert status == 400
    assert answer == vllm_says(said)


def test_vllm_lists_a_string_of_tool_calls_by_its_characters(vllm: SimThread) -> None:
    branches = [
        "ChatCompletionMessageFunctionToolCallParam",
        "ChatCompletionMessageCustomToolCallParam",
    ]
    items = [
        {"type": "dict_type", "loc": f"body.0.{b}", "msg": "Input should be a valid dictionary"}
        | {"input": "x"}
        for b in branches
    ]
    message = "2 validation errors:" + "".join(f"\n  {item!r}" for item in items)
    assert reply(vllm, turn(tool_calls="x")) == (
        400,
        bad_request_body(message, f"body.0.{branches[0]}"),
    )


@pytest.mark.parametrize("calls", ["", {}])
def test_vllm_serves_tool_calls_that_list_empty_and_openai_refuses_them(
    start_sim: Callable[..., SimThread], vllm: SimThread, calls: Any
) -> None:
    assert reply(vllm, turn(tool_calls=calls))[0] == 200
    cloud = start_sim(profile="cloud")
    status, answer = reply(cloud, turn(tool_calls=calls))
    assert (status, answer["error"]["param"]) == (400, "messages[1].tool_calls")


@pytest.mark.parametrize("role", ["system", "developer", "user", "assistant", "tool"])
def test_vllm_lists_ten_of_its_content_union_errors_and_counts_the_rest(
    vllm: SimThread, role: str
) -> None:
    """A content of no string and no list: each literal-role branch says the content is no
    string, no iterable, and (where the role is not its own) the role is wrong; vLLM's
    handler lists ten of the 22 (21 for a tool message) and counts the others."""
    message = {"role": role, "content": True}
    status, answer = reply(vllm, user("hi") | {"messages": [HI, message]})
    text = answer["error"]["message"]
    lines = text.split("\n")
    total = 21 if role == "tool" else 22
    assert (status, lines[0], lines[-1]) == (
        400,
        f"{total} validation errors:",
        f"  ...and {total - 10} more errors",
    )
    assert len(lines) == 12 and "'input': 'True'" in lines[1]
    assert f"Input should be '{role}'" not in text
    param = "body.messages.1.ChatCompletionDeveloperMessageParam.content"
    assert (answer["error"]["type"], answer["error"]["param"]) == ("Bad Request", param)


def test_vllm_names_every_branch_of_a_message_not_an_object(vllm: SimThread) -> None:
    status, answer = reply(vllm, user("hi") | {"messages": [HI, "hi"]})
    expected = captured("error_message_not_object")
    expected["error"]["message"] = expected["error"]["message"].replace("'5'", "'hi'")
    assert (status, answer) == (400, expected)
