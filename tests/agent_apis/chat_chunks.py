"""Chat chunks shaped like vLLM's, and a runner that feeds them to an agent API's stream
translator: the input every reply translation test starts from, kept in one place."""

from __future__ import annotations

from typing import Any

import orjson


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """A chat chunk shaped like vLLM's (FACTS.md: `usage: null` until the usage chunk)."""
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "local-model",
        "choices": [choice],
        "usage": None,
        **extra,
    }


USAGE = {
    "prompt_tokens": 40,
    "completion_tokens": 9,
    "total_tokens": 49,
    "prompt_tokens_details": {"cached_tokens": 30},
}
TEXT_STREAM = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": "Hello"}),
    chunk({"content": " world"}),
    chunk({}, "stop"),
    {**chunk({}), "choices": [], "usage": USAGE},
]
TOOL_STREAM = [
    chunk({"role": "assistant", "content": ""}),
    chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        }
    ),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}),
    chunk({}, "tool_calls"),
    {**chunk({}), "choices": [], "usage": USAGE},
]


def payloads(events: list[bytes]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for raw in events:
        name_line, data_line = raw.decode().strip().split("\n")
        out.append((name_line.removeprefix("event: "), orjson.loads(data_line[6:])))
    return out


def run(stream: Any, chunks: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    events: list[bytes] = []
    for c in chunks:
        events.extend(stream.feed(c))
    events.extend(stream.end())
    return payloads(events)


def call(index: int, arguments: str, name: str | None = None) -> dict[str, Any]:
    """A chunk with a piece of call `index` (its first, when it is `name`d)."""
    piece: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if name:
        piece |= {"id": f"call_{name}", "type": "function"}
        piece["function"]["name"] = name
    return chunk({"tool_calls": [piece]})
