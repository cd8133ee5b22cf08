"""What a translated stream holds back. A Messages tool call's input waits until its block
stops, a Responses custom tool call's until its item closes: the stream says how much it
holds, for the ledger's estimate of a stream that ends before then, and meanwhile sends an
empty delta a second at most, not one per piece."""

from __future__ import annotations

from typing import Any

from router.relay import Tally
from router.translate import anthropic_reply, responses_reply
from router.translate.events import see
from router.translate.keep_alive import KEEP_ALIVE_S
from tests.agent_apis.chat_chunks import call, chunk, payloads

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
    """Held until its block stops, then sent whole: counted as held or as sent, never both.
    A call waiting behind another is held with its name (`search`), which no event said."""
    held, events = held_after_each(anthropic_reply.MessagesStream())
    assert held == [0, 9, 18 + 6, 25 + 6, 9, 18, 18, 0]
    sent = [p["delta"] for _, p in payloads(events) if p["type"] == "content_block_delta"]
    given = "".join(d.get("partial_json", "") for d in sent)
    assert given == '{"city": "Paris"}{"q": "green tea"}'


def test_a_responses_stream_holds_only_the_pieces_waiting() -> None:
    """Its arguments go out as they come; a call waiting behind another's is held, with its
    name (`search`)."""
    held, _ = held_after_each(responses_reply.ResponsesStream({"model": "auto"}))
    assert held == [0, 0, 9 + 6, 9 + 6, 0, 0, 0, 0]


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
    now = KEEP_ALIVE_S
    assert empties(call(0, "x"), call(0, "x")) == 1
    now += 0.5
    assert empties(call(0, '"}'), call(1, '{"q":', "search")) == 1  # the next block's first
    assert empties(call(1, ' "tea"}'), chunk({}, "tool_calls")) == 0
    ended = payloads(stream.end())
    whole = [p["delta"]["partial_json"] for _, p in ended if p["type"] == "content_block_delta"]
    assert whole == ['{"q": "tea"}']


PATCH = '{"input": "*** Begin Patch\\n+x\\n*** End Patch"}'  # a custom call's input, as JSON


def test_a_responses_stream_holds_an_open_custom_calls_input_and_counts_it_once_sent() -> None:
    """A custom tool's input (Codex's `apply_patch`) is unwrapped once whole: held until its
    call closes, then sent as one delta the tally counts. Neither was counted: a call cut
    midway, or a whole one without the upstream's usage, was recorded at ~0 output tokens."""
    stream = responses_reply.ResponsesStream({"model": "auto"}, frozenset({"apply_patch"}))
    pieces = [PATCH[:12], PATCH[12:30], PATCH[30:]]
    fed = [chunk({"role": "assistant", "content": ""}), call(0, "", "apply_patch")]
    fed += [*(call(0, piece) for piece in pieces), chunk({}, "tool_calls")]
    held, events = [], []
    for one in fed:
        events += stream.feed(one)
        held.append(stream.held_chars)
    events += stream.end()
    assert [*held, stream.held_chars] == [0, 0, 12, 30, len(PATCH), len(PATCH), 0]
    tally = Tally(api="responses")
    for _, payload in payloads(events):
        see("responses", tally, payload)
    # the input and the call's name, generated too
    assert tally.output_chars == len("*** Begin Patch\n+x\n*** End Patch" + "apply_patch")
    deltas = [p["delta"] for _, p in payloads(events) if p["type"].endswith("input.delta")]
    assert deltas == ["", "*** Begin Patch\n+x\n*** End Patch"]


def test_a_held_custom_input_sends_an_empty_delta_at_once_then_a_second_at_most() -> None:
    """The first piece's delta commits the stream (and takes the time to first token): a
    custom call that was the first output sent nothing until it was whole."""
    now = 0.0
    stream = responses_reply.ResponsesStream(
        {"model": "auto"}, frozenset({"apply_patch", "shell"}), clock=lambda: now
    )

    def empties(*chunks: dict[str, Any]) -> int:
        out = b"".join(b for c in chunks for b in stream.feed(c))
        return out.count(b'"delta":""')

    assert empties(chunk({"role": "assistant", "content": ""}), call(0, "", "apply_patch")) == 0
    assert empties(*(call(0, piece) for piece in PATCH[:-1])) == 1  # the first
    now = 0.999
    assert empties(call(0, " ")) == 0
    now = KEEP_ALIVE_S
    assert empties(call(0, " "), call(0, " ")) == 1
    now += 0.5
    assert empties(call(0, "}"), call(1, '{"input":', "shell")) == 1  # the next call's first
    assert empties(call(1, ' "ls"}'), chunk({}, "tool_calls")) == 0
