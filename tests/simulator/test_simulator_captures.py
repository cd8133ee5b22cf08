"""The vllm profile against vLLM 0.32.0's own replies, recorded in tests/vllm/captures/.

Each test replays a captured request against a simulator shaped like the capture server
(model `tiny`, window 512) and compares what a client can rely on: status, header names,
keys and value types, the order of distinct SSE chunk shapes and event names. Text, ids and
timestamps differ by nature and are not compared.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from router.simulator import SimSettings, SimThread
from tests.completions_cases import COMPLETIONS_CAPTURES, COMPLETIONS_REFUSALS
from tests.shape_cases import SHAPE_CAPTURES, SHAPE_REFUSALS
from tests.structured_cases import ANSWERED_CAPTURES, REFUSED_CAPTURES
from tests.vllm.wire_shape import load, shape, sse_data, sse_event_names

HTTP = httpx.Client(trust_env=False, timeout=30)
JSON_CASES = [
    "health",
    "version",
    "models",
    "chat",
    "chat_extras",
    "chat_finish_length_window",
    "chat_n2",
    "tool_named",
    "chat_logprobs",
    "chat_error_top_logprobs_too_many",
    "completions",
    *COMPLETIONS_CAPTURES,
    *SHAPE_CAPTURES,
    "error_bad_temperature",
    "error_context_length",
    "error_context_length_stream",
    "error_invalid_json",
    "error_max_completion_tokens_too_large",
    "error_max_tokens_too_large",
    "error_missing_messages",
    "error_n2_greedy",
    "error_unknown_model",
    "messages",
    "messages_count_tokens",
    "messages_count_tokens_error_missing_messages",
    "messages_error_context_length",
    "messages_error_invalid_json",
    "messages_error_max_tokens_too_large",
    "messages_error_missing_max_tokens",
    "messages_error_unknown_model",
    "responses",
    "responses_error_context_length",
    "responses_error_max_output_tokens_too_large",
    "tokenize",
    *ANSWERED_CAPTURES,
    *REFUSED_CAPTURES,
]
SSE_CASES = [
    "chat_stream_plain",
    "chat_stream_usage",
    "tool_named_stream",
    "chat_logprobs_stream",
    "chat_logprobs_stop_stream",
    "tool_named_logprobs_stream",
    "completions_stream",
    "messages_stream",
    "responses_stream",
    "error_json_schema_invalid_stream",
    "structured_with_tools_auto_stream",
]
# Errors whose whole message is fixed by the request and the window: compared word for word.
EXACT_MESSAGES = [
    *COMPLETIONS_REFUSALS,
    *SHAPE_REFUSALS,
    "chat_error_top_logprobs_too_many",
    "error_bad_temperature",
    "error_context_length",
    "error_invalid_json",
    "error_max_completion_tokens_too_large",
    "error_max_tokens_too_large",
    "error_missing_messages",
    "error_n2_greedy",
    "error_unknown_model",
    "messages_count_tokens_error_missing_messages",
    "messages_error_context_length",
    "messages_error_invalid_json",
    "messages_error_max_tokens_too_large",
    "messages_error_missing_max_tokens",
    "messages_error_unknown_model",
    "responses_error_max_output_tokens_too_large",
    *REFUSED_CAPTURES,
]


def runs(items: list[Any]) -> list[Any]:
    """Consecutive equal items collapsed: a chunk count is not part of the contract."""
    return [item for i, item in enumerate(items) if i == 0 or items[i - 1] != item]


def replay(sim: SimThread, name: str) -> tuple[dict[str, Any], httpx.Response]:
    captured = load(name)
    request = captured["request"]
    url, headers = sim.url + request["path"], request["headers"]
    if request["method"] == "GET":
        return captured, HTTP.get(url, headers=headers)
    if request["body"] is None:  # the invalid-JSON case
        return captured, HTTP.post(url, content=b"{nope", headers=headers)
    return captured, HTTP.post(url, json=request["body"], headers=headers)


def header_names(headers: dict[str, str] | httpx.Headers) -> set[str]:
    return {name.lower() for name in headers} - {"date"}


@pytest.mark.parametrize("name", JSON_CASES)
def test_json_reply_has_the_captured_shape(tiny: SimThread, name: str) -> None:
    captured, response = replay(tiny, name)
    assert response.status_code == captured["status"]
    assert header_names(response.headers) == header_names(captured["headers"])
    assert response.headers.get("vary") == "Origin"
    if captured["body_raw"]:
        assert shape(response.json()) == shape(captured["body"])
    else:
        assert response.content == b""


@pytest.mark.parametrize("name", SSE_CASES)
def test_stream_has_the_captured_chunk_shapes_and_events(tiny: SimThread, name: str) -> None:
    captured, response = replay(tiny, name)
    assert response.status_code == 200
    assert header_names(response.headers) == header_names(captured["headers"])
    live, recorded = sse_data(response.text), sse_data(captured["body_raw"])
    assert runs([shape(x) for x in live]) == runs([shape(x) for x in recorded])
    assert runs(sse_event_names(response.text)) == runs(sse_event_names(captured["body_raw"]))


@pytest.mark.parametrize("name", EXACT_MESSAGES)
def test_error_wording_matches_vllm(tiny: SimThread, name: str) -> None:
    captured, response = replay(tiny, name)
    assert response.json() == captured["body"]


def test_an_engine_refusal_streamed_is_vllms_error_event(tiny: SimThread) -> None:
    """vLLM's engine refuses the schema after the stream's 200: its error event, then
    `[DONE]`, and no usage chunk though one was asked for."""
    captured, response = replay(tiny, "error_json_schema_invalid_stream")
    assert sse_data(response.text) == sse_data(captured["body_raw"])


def test_a_choice_ends_with_stop_and_a_stop_token(tiny: SimThread) -> None:
    captured, response = replay(tiny, "structured_outputs_choice")
    choice = response.json()["choices"][0]
    assert (
        choice["message"]["content"] in captured["request"]["body"]["structured_outputs"]["choice"]
    )
    assert (choice["finish_reason"], choice["stop_reason"]) == ("stop", 0)


@pytest.mark.parametrize(
    "name",
    [
        "structured_with_tools_auto",
        "structured_with_tools_auto_stream",
        "responses_structured_with_tools_auto",
    ],
)
def test_tools_beside_a_constraint_get_json_and_no_call(tiny: SimThread, name: str) -> None:
    """vLLM's constraint holds the whole output: tool_choice "auto" gets the JSON it asks
    for, as the capture did, and no call (the simulator called the tool first, as OpenAI
    does: an agent routed to vLLM was tested against a call vLLM never makes)."""
    captured, response = replay(tiny, name)
    if "events" in captured:
        streams = [sse_data(raw)[:-2] for raw in (response.text, captured["body_raw"])]
        deltas = [[c["choices"][0]["delta"] for c in chunks] for chunks in streams]
        assert not any("tool_calls" in d for d in deltas[0] + deltas[1])
        texts = ["".join(d.get("content") or "" for d in stream) for stream in deltas]
    elif name.startswith("responses"):
        [item] = response.json()["output"]
        assert item["type"] == captured["body"]["output"][0]["type"] == "message"
        texts = [item["content"][0]["text"], captured["body"]["output"][0]["content"][0]["text"]]
    else:
        messages = [r["choices"][0]["message"] for r in (response.json(), captured["body"])]
        assert not any("tool_calls" in message for message in messages)
        texts = [message["content"] for message in messages]
    assert all(text.startswith('{"city":') for text in texts), texts


def test_named_tool_choice_ends_with_stop_and_a_stop_token(tiny: SimThread) -> None:
    _, response = replay(tiny, "tool_named")
    choice = response.json()["choices"][0]
    assert (choice["finish_reason"], choice["stop_reason"]) == ("stop", 0)
    assert choice["message"]["content"] == ""
    [call] = choice["message"]["tool_calls"]
    assert call["function"]["name"] == "get_weather"
    assert call["id"].startswith("chatcmpl-tool-")


def test_named_tool_choice_stream_finishes_in_an_empty_delta(tiny: SimThread) -> None:
    _, response = replay(tiny, "tool_named_stream")
    *chunks, usage, done = sse_data(response.text)
    finish = chunks[-1]["choices"][0]
    assert (finish["delta"], finish["finish_reason"], finish["stop_reason"]) == ({}, "stop", 0)
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks[:-1])
    assert usage["choices"] == [] and done == "[DONE]"


@pytest.fixture(scope="module")
def scripted() -> Iterator[SimThread]:
    """The capture server's shape, with a scripted answer for the tool captures' prompt."""
    user = load("tool_named")["request"]["body"]["messages"][-1]["content"]
    settings = SimSettings(
        profile="vllm", model="tiny", max_model_len=512, replies={user: "It is sunny."}
    )
    thread = SimThread(settings)
    thread.start()
    yield thread
    thread.stop()


@pytest.mark.parametrize("name", ["tool_named", "tool_named_stream"])
def test_a_scripted_reply_does_not_replace_a_named_tool_call(
    scripted: SimThread, name: str
) -> None:
    captured, response = replay(scripted, name)
    assert "It is sunny" not in response.text
    if name == "tool_named":
        assert shape(response.json()) == shape(captured["body"])
        [call] = response.json()["choices"][0]["message"]["tool_calls"]
    else:
        live, recorded = sse_data(response.text), sse_data(captured["body_raw"])
        assert runs([shape(x) for x in live]) == runs([shape(x) for x in recorded])
        deltas = [c["choices"][0]["delta"] for c in live[:-2] if c["choices"]]
        [call] = [t for d in deltas for t in d.get("tool_calls") or [] if "id" in t]
    assert call["function"]["name"] == "get_weather"


def test_auto_tool_choice_still_ends_with_tool_calls(tiny: SimThread) -> None:
    body = load("tool_named")["request"]["body"] | {"tool_choice": "auto"}
    choice = HTTP.post(tiny.url + "/v1/chat/completions", json=body).json()["choices"][0]
    assert (choice["finish_reason"], choice["stop_reason"]) == ("tool_calls", None)
    assert choice["message"]["content"] is None


def test_n2_with_sampling_returns_two_choices(tiny: SimThread) -> None:
    _, response = replay(tiny, "chat_n2")
    assert [c["index"] for c in response.json()["choices"]] == [0, 1]


def test_request_id_header_becomes_the_response_id(tiny: SimThread) -> None:
    captured, response = replay(tiny, "chat_with_request_id")
    assert response.json()["id"] == captured["body"]["id"] == "chatcmpl-smf-capture-1"
    assert "x-request-id" not in response.headers
    assert header_names(response.headers) == header_names(captured["headers"])


def test_messages_reply_is_vllm_flavoured(tiny: SimThread) -> None:
    _, response = replay(tiny, "messages")
    body = response.json()
    assert body["id"].startswith("chatcmpl-")
    assert "stop_sequence" not in body
    assert set(body["usage"]) == {"input_tokens", "output_tokens"}


def test_messages_stream_has_no_ping_and_input_tokens_at_the_end(tiny: SimThread) -> None:
    _, response = replay(tiny, "messages_stream")
    events = sse_data(response.text)
    assert "ping" not in sse_event_names(response.text)
    assert events[0]["message"]["usage"]["output_tokens"] == 0
    assert set(events[-2]["usage"]) == {"input_tokens", "output_tokens"}


def test_tokenize_counts_as_chat_does(tiny: SimThread) -> None:
    captured, response = replay(tiny, "tokenize")
    counted = response.json()
    chat = HTTP.post(
        tiny.url + "/v1/chat/completions", json=captured["request"]["body"] | {"max_tokens": 1}
    )
    assert counted["count"] == len(counted["tokens"]) == chat.json()["usage"]["prompt_tokens"]
    assert counted["max_model_len"] == 512
    plain = HTTP.post(tiny.url + "/tokenize", json={"model": "tiny", "prompt": "Hello there"})
    assert plain.json()["count"] == 3


def test_count_tokens_reports_the_original_count(tiny: SimThread) -> None:
    _, response = replay(tiny, "messages_count_tokens")
    body = response.json()
    assert body["context_management"] == {"original_input_tokens": body["input_tokens"]}


def test_completions_stream_chunks_carry_no_usage_key(tiny: SimThread) -> None:
    _, response = replay(tiny, "completions_stream")
    *chunks, usage, done = sse_data(response.text)
    assert done == "[DONE]"
    assert all("usage" not in chunk for chunk in chunks)
    assert set(usage["usage"]) == {"prompt_tokens", "total_tokens", "completion_tokens"}
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"
