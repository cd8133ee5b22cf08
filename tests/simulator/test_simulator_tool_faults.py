"""Tool-call faults: `malformed_arguments` (a small local model's tool call whose arguments
are not JSON, the same text streamed in pieces and in a whole reply, on either chat profile)
and Ollama's shapes of parallel calls (`ollama_tool_calls`, `unindexed_tool_calls`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimThread

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    }
]
ASK = {
    "model": "tiny+malformed_arguments",
    "messages": [{"role": "user", "content": "Weather in Paris?"}],
    "tools": TOOLS,
}


def streamed_arguments(http: httpx.Client, url: str) -> str:
    body = ASK | {"stream": True}
    with http.stream("POST", url, json=body, timeout=10) as resp:
        lines = [line[6:] for line in resp.iter_lines() if line.startswith("data: {")]
    deltas = [json.loads(line)["choices"][0]["delta"] for line in lines if '"choices":[{' in line]
    calls: list[dict[str, Any]] = [c for d in deltas for c in d.get("tool_calls") or ()]
    return "".join(c["function"].get("arguments") or "" for c in calls)


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_malformed_arguments_are_unquoted_strings_streamed_and_whole(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    sim = start_sim(profile=profile)
    url = sim.url + "/v1/chat/completions"
    with httpx.Client(trust_env=False) as http:
        whole = http.post(url, json=ASK, timeout=10).json()
        streamed = streamed_arguments(http, url)
        plain = http.post(url, json=ASK | {"model": "tiny"}, timeout=10).json()
    call = whole["choices"][0]["message"]["tool_calls"][0]["function"]
    assert call["arguments"] == '{"city": Paris, "days": 1}' == streamed
    with pytest.raises(json.JSONDecodeError):
        json.loads(streamed)
    assert whole["choices"][0]["finish_reason"] == "tool_calls"
    assert whole["usage"]["completion_tokens"] > 0
    fine = plain["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(fine) == {"city": "Paris", "days": 1}  # without the fault, valid JSON


HTTP = httpx.Client(trust_env=False)
TWO_TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("read", "write")
]
PARALLEL: dict[str, Any] = {"model": "tiny", "stream": True, "tools": TWO_TOOLS}
PARALLEL["messages"] = [{"role": "user", "content": "Read and write"}]


def streamed_deltas(vllm: SimThread, fault: str) -> list[dict[str, Any]]:
    """The deltas of a streamed ask for both tools, under `fault`."""
    headers = {"x-sim-fault": fault}
    url = vllm.url + "/v1/chat/completions"
    with HTTP.stream("POST", url, json=PARALLEL, headers=headers, timeout=10) as resp:
        lines = [line[6:] for line in resp.iter_lines() if line.startswith("data: {")]
    return [json.loads(line)["choices"][0]["delta"] for line in lines]


def test_ollama_tool_calls_streams_parallel_calls_all_at_index_0(vllm: SimThread) -> None:
    """Ollama's parallel calls: one whole call per chunk, each its own id, all `index: 0`."""
    deltas = streamed_deltas(vllm, "ollama_tool_calls")
    calls = [c for d in deltas for c in d.get("tool_calls") or ()]
    assert [(c["index"], c["function"]) for c in calls] == [
        (0, {"name": "read", "arguments": "{}"}),
        (0, {"name": "write", "arguments": "{}"}),
    ]
    assert len({c["id"] for c in calls}) == 2
    ask, headers = PARALLEL | {"stream": False}, {"x-sim-fault": "ollama_tool_calls"}
    whole = HTTP.post(vllm.url + "/v1/chat/completions", json=ask, headers=headers, timeout=10)
    listed = whole.json()["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["name"] for c in listed] == ["read", "write"]
    assert len({c["id"] for c in listed}) == 2


def test_unindexed_tool_calls_streams_parallel_calls_in_one_delta_without_index(
    vllm: SimThread,
) -> None:
    """Ollama before 0.4.7 (ollama/ollama#7881): the calls side by side, none with `index`."""
    deltas = streamed_deltas(vllm, "unindexed_tool_calls")
    batches = [d["tool_calls"] for d in deltas if d.get("tool_calls")]
    assert len(batches) == 1
    assert [c["function"] for c in batches[0]] == [
        {"name": "read", "arguments": "{}"},
        {"name": "write", "arguments": "{}"},
    ]
    assert not any("index" in c for c in batches[0]) and len({c["id"] for c in batches[0]}) == 2
