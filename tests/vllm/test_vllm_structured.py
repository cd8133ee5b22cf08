"""Structured output on vLLM's real server and on the simulator's `vllm` profile, request
for request: each malformed request of tests/structured_cases.py gets the same status and
the same body from both (and the body recorded there), so that a vLLM upgrade that words or
stages a refusal otherwise, or a simulator change, fails here. Also vLLM's own
`structured_outputs` field honoured, `guided_json` ignored (0.32), the refusals its
engine makes after a stream's 200, and tools beside a constraint answered in JSON, never
called."""

from __future__ import annotations

import json
from typing import Any

import httpx
import jsonschema
import pytest
from vllm_process import MODEL_NAME
from wire_shape import shape, sse_data

from tests.structured_cases import ASK, CHAT, COMPLETIONS, RESPONSES, SCHEMA, TOOL

CASES = [
    *(("/v1/chat/completions", {"messages": ASK, "max_tokens": 5}, *c) for c in CHAT),
    *(("/v1/completions", {"prompt": "Hello", "max_tokens": 5}, *c) for c in COMPLETIONS),
    *(("/v1/responses", {"input": "Hello", "max_output_tokens": 20}, *c) for c in RESPONSES),
]
NONSENSE = {"structured_outputs": {"json": {"type": "nonsense"}}}


def post(base: str, path: str, body: dict[str, Any]) -> httpx.Response:
    """One request on a connection of its own: vLLM closes the one its 500 went out on."""
    return httpx.post(base + path, json={"model": MODEL_NAME, **body}, timeout=120, trust_env=False)


@pytest.mark.parametrize(
    ("path", "base", "extra", "said"),
    [c[:2] + c[3:] for c in CASES],
    ids=[f"{c[0].rsplit('/', 1)[1]}-{c[2]}" for c in CASES],
)
def test_a_malformed_request_is_refused_alike(
    vllm_base_url: str,
    sim: str,
    path: str,
    base: dict[str, Any],
    extra: dict[str, Any],
    said: dict[str, Any],
) -> None:
    real, simulated = post(vllm_base_url, path, base | extra), post(sim, path, base | extra)
    assert (simulated.status_code, simulated.json()) == (real.status_code, real.json())
    assert real.json() == said


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/completions"])
def test_an_engine_refusal_streamed_comes_after_the_200_alike(
    vllm_base_url: str, sim: str, path: str
) -> None:
    body = {"messages": ASK} if path == "/v1/chat/completions" else {"prompt": "Hello"}
    body |= {"stream": True, "stream_options": {"include_usage": True}, **NONSENSE}
    real, simulated = post(vllm_base_url, path, body), post(sim, path, body)
    assert real.status_code == simulated.status_code == 200
    assert sse_data(simulated.text) == sse_data(real.text)
    assert sse_data(real.text)[-1] == "[DONE]"


def test_a_responses_stream_refused_is_cut_on_both(vllm_base_url: str, sim: str) -> None:
    """vLLM 0.32 sends `response.created` and `response.in_progress`, then closes (its
    error handler fails once the response has started); the simulator closes at once."""
    body = {"model": MODEL_NAME, "input": "Hello", "stream": True, **NONSENSE}
    for base in (vllm_base_url, sim):
        with httpx.stream("POST", f"{base}/v1/responses", json=body, timeout=120) as response:
            assert response.status_code == 200
            with pytest.raises(httpx.RemoteProtocolError):
                response.read()


@pytest.mark.parametrize(
    "extra",
    [
        {"structured_outputs": {"json": SCHEMA}, "max_tokens": 3},
        {"structured_outputs": {"choice": ["yes", "no"]}},
        {"guided_json": SCHEMA, "max_tokens": 3},
    ],
    ids=["json", "choice", "guided_json"],
)
def test_a_valid_request_is_answered_alike(
    vllm_base_url: str, sim: str, extra: dict[str, Any]
) -> None:
    """The same reply shape; a `choice` answered with one of its strings by both, ending
    with the stop token (`stop_reason: 0`); `guided_json` read by neither."""
    body = {"messages": ASK, "temperature": 0, **extra}
    real = post(vllm_base_url, "/v1/chat/completions", body)
    simulated = post(sim, "/v1/chat/completions", body)
    assert real.status_code == simulated.status_code == 200
    assert shape(simulated.json()) == shape(real.json())
    texts = [r.json()["choices"][0]["message"]["content"] for r in (real, simulated)]
    if "choice" in extra.get("structured_outputs", {}):
        assert all(text in ("yes", "no") for text in texts)
        assert [r.json()["choices"][0]["stop_reason"] for r in (real, simulated)] == [0, 0]
    if "guided_json" in extra:
        assert not any(text.startswith("{") for text in texts)
    if "json" in extra.get("structured_outputs", {}):
        assert all(text.startswith("{") for text in texts)
        jsonschema.validate(json.loads(structured_whole(sim)), SCHEMA)


def structured_whole(sim: str) -> str:
    """The simulator's whole answer to the schema (vLLM's tiny model writes on and is cut)."""
    body = {"messages": ASK, "structured_outputs": {"json": SCHEMA}}
    return str(post(sim, "/v1/chat/completions", body).json()["choices"][0]["message"]["content"])


@pytest.mark.parametrize(
    "extra",
    [
        {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "x", "schema": SCHEMA},
            }
        },
        {"response_format": {"type": "json_object"}, "tool_choice": "auto"},
        {"structured_outputs": {"json": SCHEMA}},
    ],
    ids=["json_schema", "json_object-auto", "structured_outputs"],
)
def test_tools_beside_a_constraint_get_json_and_no_call_alike(
    vllm_base_url: str, sim: str, extra: dict[str, Any]
) -> None:
    """The constraint holds vLLM's whole output: tools with tool_choice "auto" (sent or
    defaulted) get JSON and no call from both (OpenAI, the cloud profile, calls first)."""
    body = {"messages": ASK, "temperature": 0, "max_tokens": 5, "tools": [TOOL], **extra}
    real = post(vllm_base_url, "/v1/chat/completions", body)
    simulated = post(sim, "/v1/chat/completions", body)
    assert real.status_code == simulated.status_code == 200
    assert shape(simulated.json()) == shape(real.json())
    messages = [r.json()["choices"][0]["message"] for r in (real, simulated)]
    assert all("tool_calls" not in m and m["content"].startswith("{") for m in messages)


def test_responses_tools_beside_a_format_get_json_and_no_call_alike(
    vllm_base_url: str, sim: str
) -> None:
    tool = {"type": "function", **TOOL["function"]}
    fmt = {"type": "json_schema", "name": "x", "schema": SCHEMA}
    body = {"input": "Hello", "max_output_tokens": 5, "tools": [tool], "text": {"format": fmt}}
    real, simulated = post(vllm_base_url, "/v1/responses", body), post(sim, "/v1/responses", body)
    assert real.status_code == simulated.status_code == 200
    assert shape(simulated.json()) == shape(real.json())
    outputs = [r.json()["output"] for r in (real, simulated)]
    assert all([item["type"] for item in output] == ["message"] for output in outputs)
    assert all(output[0]["content"][0]["text"].startswith("{") for output in outputs)
