"""Server-sent events, incrementally: split an upstream byte stream into whole events.

Bytes arrive in arbitrary pieces; the relay must only forward, inspect or strip whole
events, so a usage chunk or a malformed line is never half-forwarded. A stream the router
wrote itself (a translator's) comes in whole events already, each with the object it was
written from (`Written`): those are read as they are, not split and decoded again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

DONE = b"[DONE]"

# What an event's data says: its `data:` payload as sent (None: comments only), or, for an
# event the router wrote itself (`Built`), the object it was written from.
Data = bytes | dict[str, Any] | None


class Built(bytes):
    """One event the router wrote (`router.translate.wire.named_event`): its bytes, and the
    object its `data:` line encodes, for whoever reads the event after the router wrote it
    (the commit and the relay, through `Written`), so none decodes what the router encoded.
    That object is read, never changed, by the translator that made it and the readers."""

    payload: dict[str, Any]


class Written(bytes):
    """One piece of a stream the router wrote (a translator's, `router.translate.exchange`):
    its events' bytes joined, as the client gets them, and the events with what their data
    says (a `Built` one's object; any other's data, read as an upstream's), as an
    `EventBuffer` would give them: the commit and the relay take these instead."""

    events: list[tuple[bytes, Data]]

    @classmethod
    def of(cls, events: list[bytes]) -> Written:
        """The piece of `events`, which it takes: the list is left empty, so a writer that
        waits to be read again (a generator at its `yield`, which the relay leaves there once
        the answer ends) holds none of them, nor their objects."""
        piece = cls(b"".join(events))
        piece.events = [(e, e.payload if type(e) is Built else data_of(e)) for e in events]
        events.clear()
        return piece


class EventBuffer:
    """Feed raw bytes, get back complete events as (raw_event_bytes, data_payload)."""

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, piece: bytes) -> Iterator[tuple[bytes, bytes | None]]:
        buffer = self._buffer + piece if self._buffer else piece
        if b"\r" in buffer:
            buffer = buffer.replace(b"\r\n", b"\n")
        # One split instead of a find-and-slice per event: a piece often holds a whole stream.
        *events, self._buffer = buffer.split(b"\n\n")
        for body in events:
            raw = body + b"\n\n"
            yield raw, data_of(raw)

    def rest(self) -> bytes:
        """Whatever arrived after the last complete event (a cut stream leaves some)."""
        rest, self._buffer = self._buffer, b""
        return rest


def data_of(event: bytes) -> bytes | None:
    """The joined `data:` payload of one event, or None for comment-only events.

    The usual event has one data line, its last: chat's alone, a typed event's (Responses,
    Messages) after its `event:` line. Its payload is sliced out without splitting the
    event into lines, which cost a typed event three times what a chat chunk's took."""
    last = event.rfind(b"\n", 0, -2) + 1  # where the event's last line starts
    if event.find(b"data:") == last:  # no data line before it: the only one
        return event[last + 5 : -2].lstrip(b" ")
    parts = []
    for line in event.split(b"\n"):
        if line.startswith(b"data:"):
            parts.append(line[5:].lstrip(b" "))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else b"\n".join(parts)


def event(payload: bytes) -> bytes:
    return b"data: " + payload + b"\n\n"
