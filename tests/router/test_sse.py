"""Splitting an upstream byte stream into whole SSE events, however the bytes arrive."""

from __future__ import annotations

import itertools

import orjson
from hypothesis import given
from hypothesis import strategies as st

from router.sse import EventBuffer, Written, data_of
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
