"""Claude Code's turns answered by a chat backend, through the official `anthropic` SDK: the
message a stream accumulates is the whole reply's, and its usage is the ledger row's.

Found in review: a small model's tool arguments that are not JSON (`{"city": Paris}`) went
out piece by piece, and the SDK, which parses the input at every delta, raised mid-stream
(the turn lost, the ledger saying ok); a backend without usage got `output_tokens: 0` while
the ledger recorded its estimate.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import anthropic.types as at
import pytest
from anthropic.lib.streaming._messages import accumulate_event
from pydantic import TypeAdapter

from router.comparison import Reply, compare_tool_calls
from router.relay import Tally
from router.request_size import estimate_tokens
from router.simulator.generation import argument_pieces
from router.translate import anthropic_reply
from tests.agent_apis.agent_stack import (
    WEATHER_ASK,
    WEATHER_TOOLS,
    anthropic_client,
    stack,
)
from tests.agent_apis.chat_chunks import USAGE, chunk, run
from tests.agent_apis.over_chat import alone, fault, ledger_row
from tests.harness import Running, RunningRouter

ANTHROPIC_EVENT: TypeAdapter[Any] = TypeAdapter(at.RawMessageStreamEvent)


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningRouter, Path]]:
    """The router with every route on `cloud` (chat only: Messages is translated)."""
    tmp = tmp_path_factory.mktemp("over_chat")
    with stack(servers, tmp, ["cloud"]) as running:
        yield running, tmp / "ledger"


def whole_and_streamed(
    proxy: RunningRouter, **ask: Any
) -> list[tuple[anthropic.types.Message, str]]:
    """The reply to `ask` made whole, then streamed (as the SDK accumulates it), each with
    its request id."""
    sdk = anthropic_client(proxy)
    raw = sdk.messages.with_raw_response.create(model="cloud", max_tokens=300, **ask)
    with sdk.messages.stream(model="cloud", max_tokens=300, **ask) as stream:
        final = stream.get_final_message()
        streamed_id = stream.response.headers["x-request-id"]
    return [(raw.parse(), raw.headers["x-request-id"]), (final, streamed_id)]


def test_tool_arguments_that_are_not_json_stream_as_the_whole_reply_gives_them(
    proxy: tuple[RunningRouter, Path], servers: dict[str, Running]
) -> None:
    running, ledger = proxy
    with fault(servers["cloud"], "malformed_arguments"):
        replies = whole_and_streamed(
            running, tools=WEATHER_TOOLS, tool_choice={"type": "any"}, messages=WEATHER_ASK
        )
    inputs = []
    for message, request_id in replies:
        assert message.stop_reason == "tool_use"
        inputs.append([b.input for b in message.content if b.type == "tool_use"])
        assert ledger_row(ledger, request_id)[0] == "ok"
    assert inputs[0] == [{"_raw_arguments": '{"city": Paris}'}]  # kept, not lost
    assert inputs[1] == inputs[0]


@pytest.mark.parametrize("tools", [False, True])
def test_usage_without_the_backends_count_is_the_ledgers_estimate(
    proxy: tuple[RunningRouter, Path], servers: dict[str, Running], tools: bool
) -> None:
    """Whole and streamed, the same answer is the same estimate: a whole reply counted its
    call's compact `input` (`{"city":"Paris"}`), a stream the input as it sent it, the
    arguments as they came (`{"city": "Paris"}`): 4 tokens and 5 (found in review)."""
    running, ledger = proxy
    ask: dict[str, Any] = {"messages": WEATHER_ASK}
    if tools:
        ask |= {"tools": WEATHER_TOOLS, "tool_choice": {"type": "any"}}
    with fault(servers["cloud"], "no_usage"):
        replies = whole_and_streamed(running, **ask)
    said = [
        [(b.type, getattr(b, "text", getattr(b, "input", None))) for b in m.content]
        for m, _ in replies
    ]
    assert said[0] == said[1]  # the same answer
    assert replies[0][0].usage.output_tokens == replies[1][0].usage.output_tokens
    for message, request_id in replies:
        usage = message.usage
        prompt = (
            usage.input_tokens
            + (usage.cache_creation_input_tokens or 0)
            + (usage.cache_read_input_tokens or 0)
        )
        row = ledger_row(ledger, request_id)
        assert row == ("ok", prompt, usage.output_tokens, True)
        assert usage.output_tokens > 0


def test_a_tool_call_cut_by_the_token_limit_streams_as_the_whole_reply_gives_it() -> None:
    """Cut mid-JSON: the SDK's partial parse read `{"city": "Pa` as {"city": "Pa"}, a
    different call from the whole reply's; both now carry the arguments as they came."""
    cut = '{"city": "Pa'
    opening = {"id": "call_1", "type": "function", "function": {"name": "get_weather"}}
    chunks = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [{"index": 0, **opening}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": cut}}]}),
        chunk({}, "length"),
        {**chunk({}), "choices": [], "usage": USAGE},
    ]
    snapshot = None
    json_bufs: dict[int, bytes] = {}
    for _, payload in run(anthropic_reply.MessagesStream(), chunks):
        event = ANTHROPIC_EVENT.validate_python(payload)
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
    called = {**opening, "function": {"name": "get_weather", "arguments": cut}}
    message = {"role": "assistant", "content": None, "tool_calls": [called]}
    choice = {"index": 0, "message": message, "finish_reason": "length"}
    whole = anthropic_reply.from_chat({"id": "c1", "choices": [choice], "usage": USAGE})
    assert snapshot is not None and snapshot.stop_reason == whole["stop_reason"] == "max_tokens"
    streamed = [b.input for b in snapshot.content if b.type == "tool_use"]
    assert streamed == [b["input"] for b in whole["content"]] == [{"_raw_arguments": cut}]


def test_the_calls_it_wraps_are_marked_for_the_shadow_comparison() -> None:
    """A bare `5` goes out wrapped, `{"value": 5}`, as a value tool's right call does: the
    comparison read both as `5`, and a shadow's bare `5` agreed with the right call (found
    in review). Streamed or whole, the translation names the wrapped block, the relay's
    tally marks its call, and only that one is read unwrapped."""
    calls = [("set_volume", "5"), ("set_volume", '{"value": 5}')]
    chunks = [chunk({"role": "assistant", "content": "Setting it."})]
    whole_calls = []
    for i, (name, arguments) in enumerate(calls):
        opening = {"id": f"call_{i}", "type": "function", "function": {"name": name}}
        chunks.append(chunk({"tool_calls": [{"index": i, **opening}]}))
        chunks.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": arguments}}]}))
        whole_calls.append({**opening, "function": {"name": name, "arguments": arguments}})
    chunks += [chunk({}, "tool_calls"), {**chunk({}), "choices": [], "usage": USAGE}]
    stream = anthropic_reply.MessagesStream()
    streamed = [payload for _, payload in run(stream, chunks)]
    message = {"role": "assistant", "content": "Setting it.", "tool_calls": whole_calls}
    chat = {
        "id": "c1",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }
    whole = anthropic_reply.from_chat({**chat, "usage": USAGE})
    wrapped = anthropic_reply.wrapped_inputs(chat, whole)
    assert stream.wrapped == wrapped == {1}  # block 0 is the text

    def shadow(*arguments: str) -> Reply:
        return Reply(
            "", tuple({"function": {"name": "set_volume", "arguments": a}} for a in arguments)
        )

    for events in (streamed, [whole]):
        tally = Tally(keep_text=True, api="messages", wrapped=wrapped)
        for event in events:
            tally.see(event)
        live = Reply("", tuple(tally.answer_tool_calls()))
        assert compare_tool_calls(live, shadow("5", '{"value": 5}')).agreed is True
        assert compare_tool_calls(live, shadow("5", "5")).agreed is False


# A call to write a file whose content is the user's one long word: one argument piece of
# 4,000 characters (the simulator's tokens are words), held until the block stops.
WRITE: Any = [
    {
        "name": "write_file",
        "description": "Write a file",
        "input_schema": {
            "type": "object",
            "properties": {"content": {"type": "string"}},
            "required": ["content"],
        },
    }
]
LONG = "Write " + "x" * 4_000
WRITE_ASK: Any = {
    "tools": WRITE,
    "tool_choice": {"type": "any"},
    "messages": [{"role": "user", "content": LONG}],
}


def generated(frames: int | None = None) -> int:
    """Characters of the call's arguments in the simulator's first `frames` argument
    frames (all without), each one chat chunk (`argument_pieces`), and of its name, which
    the block's start carried."""
    arguments = json.dumps({"content": LONG})
    return len("write_file") + sum(map(len, argument_pieces(arguments)[:frames]))


@pytest.mark.parametrize(
    ("name", "frames"),
    [("error_event:4", 3), ("cut_stream", 1), ("stall:5", 1)],  # after the opening chunk
)
def test_a_stream_that_fails_mid_tool_call_records_the_input_it_held(
    servers: dict[str, Running], tmp_path: Path, name: str, frames: int
) -> None:
    """The input is sent whole at the block's stop, so a stream that ends before it (an
    error event, a cut, a stall) sent none of it; the ledger's estimate counted only what
    was sent, and recorded 4,000 characters the model generated as 0 tokens (found in
    review)."""
    with alone(servers, tmp_path, 1.5) as running, fault(servers["cloud"], name):
        with (
            pytest.raises(anthropic.APIStatusError),
            anthropic_client(running).messages.stream(
                model="cloud", max_tokens=300, **WRITE_ASK
            ) as s,
        ):
            request_id = s.response.headers["x-request-id"]
            for _ in s:
                pass
        row = ledger_row(tmp_path / "ledger", request_id)
    assert row == ("upstream_error", row[1], estimate_tokens(generated(frames)), True)
    assert frames == 1 or generated(frames) > 4_000  # the long word was held too


def test_a_client_that_leaves_mid_tool_call_records_the_input_held(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """Claude Code's user pressing Esc during a long Write: the input held is counted."""
    # the client leaves during the stall, long before the stall timer would end it
    with alone(servers, tmp_path, 30) as running, fault(servers["cloud"], "stall:30"):
        with anthropic_client(running).messages.stream(
            model="cloud", max_tokens=300, **WRITE_ASK
        ) as s:
            request_id = s.response.headers["x-request-id"]
            for event in s:
                if event.type == "content_block_delta":  # the first piece, held
                    break
        row = ledger_row(tmp_path / "ledger", request_id)
    assert row == ("cancelled", row[1], estimate_tokens(generated(1)), True)


def test_a_finished_tool_call_is_counted_once(
    proxy: tuple[RunningRouter, Path], servers: dict[str, Running]
) -> None:
    """The input held becomes the input sent at the block's stop: counted once, as the
    usage the client is given says."""
    running, ledger = proxy
    with (
        fault(servers["cloud"], "no_usage"),
        anthropic_client(running).messages.stream(model="cloud", max_tokens=300, **WRITE_ASK) as s,
    ):
        final = s.get_final_message()
        request_id = s.response.headers["x-request-id"]
    assert final.content[0].type == "tool_use" and final.content[0].input == {"content": LONG}
    row = ledger_row(ledger, request_id)
    assert row == ("ok", row[1], estimate_tokens(generated()), True)
    assert final.usage.output_tokens == row[2]
