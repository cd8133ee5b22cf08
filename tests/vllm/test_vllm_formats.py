"""The captures in captures/ still describe the live vLLM: same status, headers, keys, order.

Each test replays a captured request against the session's server and compares shapes
(keys and types), so the captures the simulator is checked against cannot silently rot.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from wire_shape import load, shape, sse_data, sse_event_names

from tests.completions_cases import COMPLETIONS_CAPTURES
from tests.shape_cases import CONTENT_PART_CAPTURES, SHAPE_CAPTURES
from tests.structured_cases import ANSWERED_CAPTURES, REFUSED_CAPTURES

JSON_CASES = [
    "models",
    "chat",
    "chat_finish_length_window",
    "tool_named",
    "chat_logprobs",
    "chat_error_top_logprobs_too_many",
    "completions",
    *COMPLETIONS_CAPTURES,
    *SHAPE_CAPTURES,
    *CONTENT_PART_CAPTURES,
    "error_context_length",
    "error_context_length_stream",
    "error_max_tokens_too_large",
    "error_max_completion_tokens_too_large",
    "error_unknown_model",
    "error_missing_messages",
    "error_n2_greedy",
    "messages",
    "messages_error_context_length",
    "messages_error_max_tokens_too_large",
    "messages_error_missing_max_tokens",
    "messages_count_tokens",
    "messages_count_tokens_error_missing_messages",
    "responses",
    "responses_error_max_output_tokens_too_large",
    "tokenize",
    *ANSWERED_CAPTURES,
    *REFUSED_CAPTURES,
]
SSE_CASES = [
    "chat_stream_usage",
    "chat_stream_plain",
    "tool_named_stream",
    "chat_logprobs_stream",
    "chat_logprobs_stop_stream",
    "tool_named_logprobs_stream",
    "messages_stream",
    "error_json_schema_invalid_stream",
    "structured_with_tools_auto_stream",
]


def replay(base_url: str, name: str) -> tuple[dict[str, Any], httpx.Response]:
    captured = load(name)
    request = captured["request"]
    response = httpx.request(
        request["method"], base_url + request["path"], json=request["body"], timeout=60
    )
    return captured, response


@pytest.mark.parametrize("name", JSON_CASES)
def test_json_reply_matches_capture(vllm_base_url: str, name: str) -> None:
    captured, response = replay(vllm_base_url, name)
    assert response.status_code == captured["status"]
    assert response.headers["content-type"] == captured["headers"]["content-type"]
    assert shape(response.json()) == shape(captured["body"])


@pytest.mark.parametrize("name", SSE_CASES)
def test_stream_matches_capture_chunk_by_chunk(vllm_base_url: str, name: str) -> None:
    captured, response = replay(vllm_base_url, name)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    live, recorded = sse_data(response.text), sse_data(captured["body_raw"])
    # A busy server packs several tokens into one delta, so the number of content chunks
    # varies from run to run; the sequence of distinct chunk shapes does not.
    assert runs([shape(x) for x in live]) == runs([shape(x) for x in recorded])
    assert runs(sse_event_names(response.text)) == runs(sse_event_names(captured["body_raw"]))


def runs(items: list[Any]) -> list[Any]:
    """Consecutive equal items collapsed into one."""
    return [item for i, item in enumerate(items) if i == 0 or items[i - 1] != item]


def test_usage_chunk_is_last_before_done_with_empty_choices(vllm_base_url: str) -> None:
    _, response = replay(vllm_base_url, "chat_stream_usage")
    *chunks, usage, done = sse_data(response.text)
    assert done == "[DONE]"
    assert usage["choices"] == []
    assert set(usage["usage"]) == {"prompt_tokens", "total_tokens", "completion_tokens"}
    assert all("usage" not in chunk for chunk in chunks)  # absent, not null, in 0.32
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"


def test_named_tool_choice_finishes_with_stop_not_tool_calls(vllm_base_url: str) -> None:
    _, response = replay(vllm_base_url, "tool_named")
    choice = response.json()["choices"][0]
    assert choice["finish_reason"] == "stop"
    assert choice["message"]["content"] == ""
    [call] = choice["message"]["tool_calls"]
    assert call["function"]["name"] == "get_weather"
    assert call["id"].startswith("chatcmpl-tool-")


def test_request_id_header_becomes_response_id(vllm_base_url: str) -> None:
    captured = load("chat_with_request_id")
    response = httpx.post(
        vllm_base_url + "/v1/chat/completions",
        json=captured["request"]["body"],
        headers={"x-request-id": "smf-test-7"},
        timeout=60,
    )
    assert response.json()["id"] == "chatcmpl-smf-test-7"
    assert "x-request-id" not in response.headers


def test_metrics_expose_the_series_the_router_reads(vllm_base_url: str) -> None:
    text = httpx.get(vllm_base_url + "/metrics", timeout=10).text
    for name in (
        "vllm:num_requests_running{",
        "vllm:num_requests_waiting{",
        "vllm:kv_cache_usage_perc{",
        "vllm:prompt_tokens_total{",
        "vllm:generation_tokens_total{",
    ):
        assert any(line.startswith(name) for line in text.splitlines()), name
