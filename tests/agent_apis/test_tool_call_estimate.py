"""The output a tool call is estimated at when the backend sends no usage: what the model
generated, its function's name and arguments, in every API and in a stream cut short.

Found in a live review (Qwen-Agent, `use_raw_api`): a chat stream's estimate counted the
whole JSON of each `tool_calls` fragment (`id`, `type`, `index`, the key names), 62 tokens
for a call of 19, 38 for a stream cut after two chunks. The Messages and Responses replies
made over chat counted the arguments alone, not the name. The proxy here asks a chat backend,
so a native upstream's whole Messages reply and whole Response are read by the tally directly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from router.relay import Tally
from router.request_size import estimate_tokens
from tests.agent_apis.agent_stack import CHAT_WEATHER_TOOLS, WEATHER_ASK, WEATHER_TOOLS, stack
from tests.agent_apis.over_chat import alone, fault, ledger_row
from tests.harness import Running, RunningRouter

RESPONSES_TOOLS = [{"type": "function", **CHAT_WEATHER_TOOLS[0]["function"]}]
# The request of each API for the weather call, streamed, and the characters of what the
# model generated in one of its streamed events (the text, a call's name and arguments).
ASKS: dict[str, tuple[str, dict[str, Any]]] = {
    "chat": (
        "/chat/completions",
        {"messages": WEATHER_ASK, "tools": CHAT_WEATHER_TOOLS, "tool_choice": "required"},
    ),
    "messages": (
        "/messages",
        {
            "messages": WEATHER_ASK,
            "tools": WEATHER_TOOLS,
            "tool_choice": {"type": "any"},
            "max_tokens": 300,
        },
    ),
    "responses": (
        "/responses",
        {"input": WEATHER_ASK, "tools": RESPONSES_TOOLS, "tool_choice": "required"},
    ),
}


def _generated(api: str, event: dict[str, Any]) -> tuple[int, int]:
    """(characters of the text, names and arguments, calls begun) in one event."""
    if api == "chat":
        chars = calls = 0
        for choice in event.get("choices") or ():
            delta = choice.get("delta") or {}
            chars += len(delta.get("content") or "")
            for call in delta.get("tool_calls") or ():
                function = call.get("function") or {}
                chars += len(function.get("name") or "") + len(function.get("arguments") or "")
                calls += bool(function.get("name"))
        return chars, calls
    kind = event.get("type")
    if kind == "content_block_start" and event["content_block"]["type"] == "tool_use":
        return len(event["content_block"]["name"]), 1
    if kind == "content_block_delta":
        delta = event["delta"]
        return len(delta.get("text") or delta.get("partial_json") or ""), 0
    if kind == "response.output_item.added" and event["item"]["type"] == "function_call":
        return len(event["item"]["name"]), 1
    if kind in ("response.output_text.delta", "response.function_call_arguments.delta"):
        return len(event["delta"]), 0
    return 0, 0


def _streamed(running: RunningRouter, api: str) -> tuple[str, int, int]:
    """The request id of the API's weather ask, streamed, the characters the model
    generated in what the client got, and the calls begun there."""
    path, ask = ASKS[api]
    body = {"model": "cloud", "stream": True, **ask}
    chars = calls = 0
    with httpx.stream("POST", f"{running.url}{path}", json=body, timeout=20) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            event = json.loads(line[len("data:") :])
            if not isinstance(event.get("error"), dict):  # the cut's in-band error
                got, began = _generated(api, event)
                chars, calls = chars + got, calls + began
        return response.headers["x-request-id"], chars, calls


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningRouter, Path]]:
    """The router with every route on `cloud`, chat only: Messages and Responses are
    translated."""
    tmp = tmp_path_factory.mktemp("tool_estimate")
    with stack(servers, tmp, ["cloud"]) as running:
        yield running, tmp / "ledger"


@pytest.mark.parametrize("api", ["chat", "messages", "responses"])
def test_a_streamed_tool_call_without_usage_is_estimated_by_its_name_and_arguments(
    proxy: tuple[RunningRouter, Path], servers: dict[str, Running], api: str
) -> None:
    running, ledger = proxy
    with fault(servers["cloud"], "no_usage"):
        request_id, chars, calls = _streamed(running, api)
    assert calls == 1 and chars > len("get_weather")  # a call, and its arguments
    row = ledger_row(ledger, request_id)
    assert row == ("ok", row[1], estimate_tokens(chars), True)


def test_a_whole_chat_tool_call_without_usage_is_estimated_by_its_name_and_arguments(
    proxy: tuple[RunningRouter, Path], servers: dict[str, Running]
) -> None:
    running, ledger = proxy
    path, ask = ASKS["chat"]
    with fault(servers["cloud"], "no_usage"):
        response = httpx.post(f"{running.url}{path}", json={"model": "cloud", **ask}, timeout=20)
    message = response.json()["choices"][0]["message"]
    (call,) = message["tool_calls"]
    function = call["function"]
    chars = len(message.get("content") or "") + len(function["name"] + function["arguments"])
    row = ledger_row(ledger, response.headers["x-request-id"])
    assert row == ("ok", row[1], estimate_tokens(chars), True)


def test_a_chat_tool_call_cut_short_is_estimated_by_what_came_of_it(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """Cut after two chunks, the stream had no usage: the estimate counts the name and the
    arguments that came, not their fragments' JSON."""
    with alone(servers, tmp_path, 1.5) as running, fault(servers["cloud"], "cut_stream"):
        request_id, chars, calls = _streamed(running, "chat")
    assert calls == 1
    row = ledger_row(tmp_path / "ledger", request_id)
    assert row == ("upstream_error", row[1], estimate_tokens(chars), True)


def _fragment(index: int, arguments: str, name: str | None, **opening: str) -> dict[str, Any]:
    function = {"arguments": arguments} | ({"name": name} if name else {})
    return {"index": index, "function": function, **opening}


def test_a_name_sent_again_on_each_fragment_is_counted_once_per_call() -> None:
    """Some upstreams send a call's name on each fragment (`blocks.Block.learn`): counted
    each time, a call of 53 characters was 146 (found in review). Two calls of one name,
    in one choice or two, and Ollama's calls all at `index: 0` under new ids, are each
    counted (`CallKeys` keys them apart)."""
    name, pieces = "mcp__filesystem__read_text_file", ['{"pa', 'th": "/', "tmp/a", '.txt"}']
    once = len(name) + len("".join(pieces))
    tally = Tally(keep_text=True)
    for number, piece in enumerate(pieces):
        opening = {"id": "call_1", "type": "function"} if number == 0 else {}
        calls = [_fragment(0, piece, name, **opening), _fragment(1, piece, name)]
        tally.see({"choices": [{"index": c, "delta": {"tool_calls": calls}} for c in (0, 1)]})
    assert tally.output_chars == 4 * once  # two calls in each of two choices
    ollama = Tally()
    for call_id in ("call_a", "call_b"):
        fragment = _fragment(0, '{"path": "/tmp/a.txt"}', name, id=call_id)
        ollama.see({"choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}]})
    assert ollama.output_chars == 2 * once


def test_a_whole_messages_tool_use_is_estimated_by_its_name_and_input() -> None:
    """A whole (non-streamed) Messages reply from a native upstream: the proxy above asks a
    chat backend, so its Messages replies are streams translated over chat and never reach
    the whole `message` branch of `events` (found in review: its name count was untested)."""
    arguments = '{"city":"Paris","unit":"celsius"}'
    tally = Tally(api="messages")
    block = {"type": "tool_use", "id": "toolu_1", "name": "get_weather"}
    tally.see(
        {
            "type": "message",
            "role": "assistant",
            "content": [block | {"input": json.loads(arguments)}],
            "stop_reason": "tool_use",
        }
    )
    assert tally.output_chars == len("get_weather") + len(arguments)


def test_a_whole_response_function_call_is_estimated_by_its_name_and_arguments() -> None:
    """A whole (non-streamed) Response from a native upstream (`_see_response`): as above,
    the proxy's Responses replies are translated over chat and never reach this branch."""
    arguments = '{"city": "Paris"}'
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather"}
    tally = Tally(api="responses")
    tally.see(
        {
            "object": "response",
            "id": "resp_1",
            "status": "completed",
            "output": [call | {"arguments": arguments, "status": "completed"}],
        }
    )
    assert tally.output_chars == len("get_weather") + len(arguments)
