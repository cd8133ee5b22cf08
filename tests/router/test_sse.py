"""Splitting an upstream byte stream into whole SSE events, however the bytes arrive."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from unittest import mock

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from router import sse
from router.attempt_errors import Malformed
from router.sse import MAX_EVENT_BYTES, EventBuffer, Written, data_of
from router.translate.wire import named_event

STREAM = (
    b'data: {"choices":[{"delta":{"content":"a"}}]}\n\n'
    b": keep-alive\n\n"
    b"data: line one\ndata:  line two\n\n"
    b"event: ping\r\ndata: {}\r\n\r\n"
    b"\n\n"
    b"data: [DONE]\n\n"
)


def _reference(pieces: list[bytes]) -> tuple[list[tuple[bytes, bytes | None]], bytes]:
    """One find-and-slice per event, as the buffer first did it."""
    out, buffer = [], b""
    for piece in pieces:
        buffer = (buffer + piece).replace(b"\r\n", b"\n")
        while (end := buffer.find(b"\n\n")) >= 0:
            event, buffer = buffer[: end + 2], buffer[end + 2 :]
            out.append((event, data_of(event)))
    return out, buffer


@given(st.lists(st.integers(0, len(STREAM)), max_size=8), st.binary(max_size=40))
def test_events_do_not_depend_on_where_the_pieces_were_cut(cuts: list[int], tail: bytes) -> None:
    stream = STREAM + tail
    bounds = [0, *sorted(cuts), len(stream)]
    pieces = [stream[a:b] for a, b in itertools.pairwise(bounds)]
    buffer = EventBuffer()
    events = [event for piece in pieces for event in buffer.feed(piece)]
    assert (events, buffer.rest()) == _reference(pieces)


def test_data_of_joins_lines_and_ignores_comments() -> None:
    assert data_of(b"data: {}\n\n") == b"{}"
    assert data_of(b"data:{}\n\n") == b"{}"
    assert data_of(b"data: a\ndata: b\n\n") == b"a\nb"
    assert data_of(b": comment\n\n") is None
    assert data_of(b"event: x\ndata: y\n\n") == b"y"


def _data_by_lines(event: bytes) -> bytes | None:
    """Every `data:` line's payload, joined: what `data_of` reads, the long way."""
    parts = [line[5:].lstrip(b" ") for line in event.split(b"\n") if line.startswith(b"data:")]
    return b"\n".join(parts) if parts else None


# lines of typed and chat events, and lines that only look like data lines
_KNOWN = [b"data: {}", b"data:x", b"data:", b"data:  two", b"event: response.output_text.delta"]
_ODD = [b"event: data: x", b"id: 7", b": data: comment", b"retry: 10", b"", b"xdata: y"]
_LINE = st.one_of(
    st.sampled_from(_KNOWN + _ODD), st.binary(max_size=12).map(lambda b: b.replace(b"\n", b""))
)


@given(st.lists(_LINE, max_size=5))
def test_data_of_reads_any_event_as_line_by_line(lines: list[bytes]) -> None:
    """The payload sliced out when the last line is the only data line (a chat chunk, a
    typed event) is what reading the event line by line gives, for any event."""
    event = b"".join(line + b"\n" for line in lines) + b"\n"
    assert data_of(event) == _data_by_lines(event)


def test_a_written_piece_holds_its_events_as_built_and_its_writer_keeps_none() -> None:
    """A translator's piece: its events with their objects, for the relay to read without
    splitting or decoding them; the list it was made of is left empty (a generator left at
    its `yield` once the answer ended held the last piece's objects until it was closed)."""
    delta = {"type": "response.output_text.delta", "delta": "Hi"}
    events = [named_event("response.output_text.delta", delta), b": keep-alive\n\n"]
    written = list(events)
    piece = Written.of(written)
    assert written == [] and piece == b"".join(events)
    assert piece.events == [(events[0], delta), (events[1], None)]
    assert piece.events[0][1] is delta
    # its bytes, split and decoded, say the same
    assert list(EventBuffer().feed(piece)) == [(events[0], orjson.dumps(delta)), (events[1], None)]


Fed = tuple[list[tuple[bytes, bytes | None]], bytes | str]


def _fed(pieces: Iterable[bytes]) -> Fed:
    """The events one buffer gives for `pieces`, and what it held at the end, or the error
    that ended it (its message): an event past the bound, after the events before it."""
    buffer, events = EventBuffer(), []
    try:
        for piece in pieces:
            for found in buffer.feed(piece):
                events.append(found)
    except Malformed as error:
        return events, error.message
    return events, buffer.rest()


def _cut(stream: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(cut % (len(stream) + 1) for cut in cuts), len(stream)]
    return [stream[a:b] for a, b in itertools.pairwise(bounds)]


# what the framing turns on: line ends of every kind, blank lines, a line's start
_BITS = [b"\r", b"\n", b"\r\n", b"\n\n", b"\r\n\r\n", b"data: ", b"data:{}", b": c", b"x"]
_STREAMS = st.lists(st.sampled_from(_BITS), max_size=24).map(b"".join)


@given(_STREAMS, st.lists(st.integers(0, 200), max_size=10))
@example(b"data: a\r\r\n\n", [10])  # `\r\r\n`, `\n`: the pending bytes, read again, lost a CR
@example(b"data: a\r\n\r\n", [8])  # a CRLF cut between its CR and LF
def test_events_are_those_of_the_whole_stream_fed_at_once(stream: bytes, cuts: list[int]) -> None:
    """However the bytes are cut, the events are those of the stream read whole: a CRLF
    read as LF once (one cut between its bytes too), events ending at a blank line."""
    whole = stream.replace(b"\r\n", b"\n")
    *bodies, held = whole.split(b"\n\n")
    expected = [(body + b"\n\n", data_of(body + b"\n\n")) for body in bodies]
    assert _fed([stream]) == (expected, held)
    assert _fed(_cut(stream, cuts)) == (expected, held)


@given(_STREAMS, st.lists(st.integers(0, 200), max_size=10), st.integers(1, 12))
def test_an_event_past_the_bound_fails_the_same_however_the_bytes_were_cut(
    stream: bytes, cuts: list[int], bound: int
) -> None:
    """The events before an event longer than the bound are given, then the error; an
    event the bound holds passes, ended or not."""
    with mock.patch.object(sse, "MAX_EVENT_BYTES", bound):
        fed = _fed(_cut(stream, cuts))
        assert fed == _fed([stream])
    events, end = fed
    assert all(len(raw) <= bound for raw, _ in events)
    if isinstance(end, bytes):
        assert len(end) <= bound
    else:
        assert f"({bound} bytes)" in end


@pytest.mark.parametrize(
    ("pieces", "events", "held"),
    [
        ([b"data: a\n", b"\ndata: b\n\n"], [b"data: a\n\n", b"data: b\n\n"], b""),
        ([b"data: a\r", b"\n\r", b"\n"], [b"data: a\n\n"], b""),
        ([b"data: a\r\n\r", b"\nda"], [b"data: a\n\n"], b"da"),
        ([b"data: a\r\r", b"\n\n"], [b"data: a\r\n\n"], b""),
        ([b"data: a\rdata: b\r\r"], [], b"data: a\rdata: b\r\r"),  # a lone CR ends nothing
        ([b"data: a\r", b"x\n\n"], [b"data: a\rx\n\n"], b""),
        ([b": ping\n\n", b"", b"data: [DONE]\n", b"\n"], [b": ping\n\n", b"data: [DONE]\n\n"], b""),
    ],
)
def test_line_ends_cut_between_pieces(
    pieces: list[bytes], events: list[bytes], held: bytes
) -> None:
    assert _fed(pieces) == ([(raw, data_of(raw)) for raw in events], held)


def test_an_event_that_never_ends_fails_past_the_bound_and_is_let_go() -> None:
    """An upstream that sends bytes and never the blank line: `Malformed` naming the bound
    and the backend once the event is past it, and what the buffer held is let go."""
    buffer = EventBuffer("local")
    list(buffer.feed(b'data: {"choices":[{"delta":{"content":"'))
    piece = b"a" * 2**16
    fed = len(b'data: {"choices":[{"delta":{"content":"')
    while fed + len(piece) <= MAX_EVENT_BYTES:
        assert list(buffer.feed(piece)) == []
        fed += len(piece)
    with pytest.raises(Malformed) as raised:
        list(buffer.feed(piece))
    assert raised.value.message == "local: a streamed event longer than 16 MiB (16777216 bytes)"
    assert raised.value.kind == "malformed" and raised.value.backend == "local"
    assert buffer.rest() == b""


def test_an_event_as_long_as_the_bound_passes_and_one_byte_more_fails() -> None:
    """Whole in one piece (a litellm backend's pieces are whole events) or in two."""
    body = b"data: " + b"a" * (MAX_EVENT_BYTES - len(b"data: ") - 2)
    longest = body + b"\n\n"
    assert _fed([longest, b": next\n\n"])[0] == [(longest, body[6:]), (b": next\n\n", None)]
    assert _fed([longest[:-1], longest[-1:]])[0] == [(longest, body[6:])]
    events, end = _fed([b": before\n\n" + b"a" + longest])
    assert (events, end) == (
        [(b": before\n\n", None)],
        "a streamed event longer than 16 MiB (16777216 bytes)",
    )
