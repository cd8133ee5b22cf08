"""The `malformed_arguments` fault: a small local model's tool call whose arguments are not
JSON, the same text streamed in pieces and in a whole reply, on either chat profile."""

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
