"""What a translated stream holds back. A Messages tool call's input waits until its block
stops: the stream says how much it holds, for the ledger's estimate of a stream that ends
before then, and meanwhile sends an empty delta a second at most, not one per piece."""

from __future__ import annotations

from typing import Any

from router.translate import anthropic_reply, responses_reply
from tests.agent_apis.chat_chunks import chunk, payloads


def call(index: int, arguments: str, name: str | None = None) -> dict[str, Any]:
    """A chunk with a piece of call `index` (its first, when it is `name`d)."""
    piece: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if name:
        piece |= {"id": f"call_{name}", "type": "function"}
        piece["function"]["name"] = name
    return chunk({"tool_calls": [piece]})


# two calls whose pieces interleave after a sentence: the second waits behind the first
FED = [
    chunk({"role": "assistant", "content": "Sure."}),
    call(0, '{"city": ', "weather"),
    call(1, '{"q": "gr', "search"),
    call(0, '"Paris"'),
    call(0, "}"),
    call(1, 'een tea"}'),
    chunk({}, "tool_calls"),
]


def held_after_each(stream: Any) -> tuple[list[int], list[bytes]]:
    """`held_chars` after each chunk of FED, then after the end; and the events."""
    held, events = [], []
    for fed in FED:
        events += stream.feed(fed)
        held.append(stream.held_chars)
    events += stream.end()
    return [*held, stream.held_chars], events


def test_a_messages_stream_holds_the_open_calls_input_and_the_pieces_waiting() -> None:
    """Held until its block stops, then sent whole: counted as held or as sent, never both."""
    held, events = held_after_each(anthropic_reply.MessagesStream())
    assert held == [0, 9, 18, 25, 9, 18, 18, 0]
    sent = [p["delta"] for _, p in payloads(events) if p["type"] == "content_block_delta"]
    given = "".join(d.get("partial_json", "") for d in sent)
    assert given == '{"city": "Paris"}{"q": "green tea"}'


def test_a_responses_stream_holds_only_the_pieces_waiting() -> None:
    """Its arguments go out as they come; a call waiting behind another's is held."""
    held, _ = held_after_each(responses_reply.ResponsesStream({"model": "auto"}))
    assert held == [0, 0, 9, 9, 0, 0, 0, 0]


def test_a_held_input_sends_an_empty_delta_a_second_at_most() -> None:
    """One per piece was 100,031 events (13 MB) for a 100 KB input in 1-character pieces."""
    now = 0.0
    stream = anthropic_reply.MessagesStream(clock=lambda: now)

    def empties(*chunks: dict[str, Any]) -> int:
        out = b"".join(b for c in chunks for b in stream.feed(c))
        return out.count(b'"partial_json":""')

    assert empties(chunk({"role": "assistant", "content": ""}), call(0, "", "write")) == 0
    assert empties(*(call(0, piece) for piece in '{"content": "xxxxxxxx')) == 1  # the first
    now = 0.999
    assert empties(call(0, "x")) == 0
    now = anthropic_reply.KEEP_ALIVE_S
    assert empties(call(0, "x"), call(0, "x")) == 1
    now += 0.5
    assert empties(call(0, '"}'), call(1, '{"q":', "search")) == 1  # the next block's first
    assert empties(call(1, ' "tea"}'), chunk({}, "tool_calls")) == 0
    ended = payloads(stream.end())
    whole = [p["delta"]["partial_json"] for _, p in ended if p["type"] == "content_block_delta"]
    assert whole == ['{"q": "tea"}']
