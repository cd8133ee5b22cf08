"""Claude Code's turns answered by a chat backend, through the official `anthropic` SDK: the
message a stream accumulates is the whole reply's, and its usage is the ledger row's.

Found in review: a small model's tool arguments that are not JSON (`{"city": Paris}`) went
out piece by piece, and the SDK, which parses the input at every delta, raised mid-stream
(the turn lost, the ledger saying ok); a backend without usage got `output_tokens: 0` while
the ledger recorded its estimate.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anthropic
import anthropic.types as at
import duckdb
import pytest
from anthropic.lib.streaming._messages import accumulate_event
from pydantic import TypeAdapter

from router.translate import anthropic_reply
from tests.agent_apis.agent_stack import stack
from tests.agent_apis.chat_chunks import USAGE, chunk, run
from tests.harness import Running, RunningRouter, wait_until

TOOLS: Any = [
    {
        "name": "get_weather",
        "description": "Current weather for a city",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }
]
ASK: Any = [{"role": "user", "content": "What's the weather in Paris?"}]
ANTHROPIC_EVENT: TypeAdapter[Any] = TypeAdapter(at.RawMessageStreamEvent)


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningRouter, Path]]:
    """The router with every route on `cloud` (chat only: Messages is translated)."""
    tmp = tmp_path_factory.mktemp("over_chat")
    with stack(servers, tmp, ["cloud"]) as running:
        yield running, tmp / "ledger"


@contextmanager
def fault(server: Running, name: str) -> Iterator[None]:
    server.control("faults", {"fault": name})
    try:
        yield
    finally:
        server.control("faults", {"fault": None})


def client(proxy: RunningRouter) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=proxy.root, api_key="none", max_retries=0)


def whole_and_streamed(
    proxy: RunningRouter, **ask: Any
) -> list[tuple[anthropic.types.Message, str]]:
    """The reply to `ask` made whole, then streamed (as the SDK accumulates it), each with
    its request id."""
    sdk = client(proxy)
    raw = sdk.messages.with_raw_response.create(model="cloud", max_tokens=300, **ask)
    with sdk.messages.stream(model="cloud", max_tokens=300, **ask) as stream:
        final = stream.get_final_message()
        streamed_id = stream.response.headers["x-request-id"]
    return [(raw.parse(), raw.headers["x-request-id"]), (final, streamed_id)]


def ledger_row(ledger: Path, request_id: str) -> tuple[Any, ...]:
    """(outcome, prompt_tokens, completion_tokens, tokens_estimated) of the request's row."""
    query = (
        "SELECT outcome, prompt_tokens, completion_tokens, tokens_estimated"
        " FROM read_parquet(?, union_by_name = true) WHERE request_id = ?"
    )
    rows: list[tuple[Any, ...]] = []

    def written() -> bool:
        with duckdb.connect() as con:
            try:
                rows[:] = con.execute(query, [f"{ledger}/**/*.parquet", request_id]).fetchall()
            except duckdb.Error:  # no file yet
                return False
        return bool(rows)

    assert wait_until(written), f"no ledger row for {request_id}"
    return rows[0]


def test_tool_arguments_that_are_not_json_stream_as_the_whole_reply_gives_them(
    proxy: tuple[RunningRouter, Path], servers: dict[str, Running]
) -> None:
    running, ledger = proxy
    with fault(servers["cloud"], "malformed_arguments"):
        replies = whole_and_streamed(
            running, tools=TOOLS, tool_choice={"type": "any"}, messages=ASK
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
    running, ledger = proxy
    ask: dict[str, Any] = {"messages": ASK}
    if tools:
        ask |= {"tools": TOOLS, "tool_choice": {"type": "any"}}
    with fault(servers["cloud"], "no_usage"):
        replies = whole_and_streamed(running, **ask)
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
