"""Chat chunks shaped like vLLM's, and a runner that feeds them to an agent API's stream
translator: the input every reply translation test starts from, kept in one place. Also the
reasoning tests' shared pieces: a delta's reasoning in each spelling, the ways a reasoning
backend fails before its first text, and the prompt they answer."""

from __future__ import annotations

from typing import Any

import orjson

from router.simulator.playback import THOUGHT


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


def whole_reply(message: dict[str, Any], finish: str = "tool_calls") -> dict[str, Any]:
    """A whole chat completion of one choice, `message` (a call or an answer)."""
    choice = {"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}}
    return {"id": "c1", "model": "m", "choices": [choice]}


def sse(*chunks: dict[str, Any]) -> bytes:
    """The chunks as a chat stream's `data:` events (no [DONE])."""
    return b"".join(b"data: " + orjson.dumps(c) + b"\n\n" for c in chunks)


def thinking_part(text: str, answer: str = "") -> dict[str, Any]:
    thought = {"type": "thinking", "thinking": [{"type": "text", "text": text}]}
    return {"content": [thought, *([{"type": "text", "text": answer}] if answer else [])]}


# a delta with reasoning (and maybe answer text) in each spelling: vLLM's since 2026, its
# older one (DeepSeek's API, SGLang), and Magistral's thinking parts of `content`
SPELLINGS = {
    "reasoning": lambda text, answer="": {"reasoning": text, "content": answer},
    "reasoning_content": lambda text, answer="": {"reasoning_content": text, "content": answer},
    "thinking_part": thinking_part,
}
ASK = "Write a Python function that reverses a list."
DONE = b"data: [DONE]\n\n"
FAILURES = {  # how a reasoning backend fails before its first text
    "error_event": b'data: {"error": {"message": "boom", "code": 500}}\n\n' + DONE,
    "abort": sse(chunk({}, "abort")) + DONE,  # vLLM's engine on shutdown, sleep, scale-down
    "close": b"",  # the connection closes, no [DONE]
}
UNSENT = THOUGHT * 20  # reasoning no event carried when the request ended
