"""Server-sent events, incrementally: split an upstream byte stream into whole events.

Bytes arrive in arbitrary pieces; the relay must only forward, inspect or strip whole
events, so a usage chunk or a malformed line is never half-forwarded. A stream the router
wrote itself (a translator's) comes in whole events already, each with the object it was
written from (`Written`): those are read as they are, not split and decoded again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from router.attempt_errors import Malformed

DONE = b"[DONE]"
CR, LF = 13, 10  # b"\r"[0], b"\n"[0]: a bytearray's items are ints
# The longest event an upstream may send, ended or not (each stream holds at most this much
# of one): well above any real one, a Responses `response.completed` with its output and
# instructions, a tool call's arguments or a base64 image of a few MB, and twice the
# request body the router takes by default (`server.max_body_bytes`, 8 MiB).
MAX_EVENT_BYTES = 16 * 2**20

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
    """Feed raw bytes, get back complete events as (raw_event_bytes, data_payload).

    An event ends at a blank line. A CRLF is read as LF, one cut between two pieces too, and
    the event's bytes are given with LFs; a lone CR is a byte like any other. The start of
    an event still unfinished is kept and only each new piece searched, so a piece costs
    time in its own length: re-joining and re-splitting all that was pending at each piece
    let an upstream whose event never ends take the router's memory without bound and block
    its event loop, every client's, longer at each piece (found in review). An event longer
    than `MAX_EVENT_BYTES`, ended or not, is `Malformed` once it gets there, after the
    events before it: the same however the bytes were cut."""

    __slots__ = ("_backend", "_pending")

    def __init__(self, backend: str = "") -> None:
        self._pending = bytearray()  # the unfinished event's bytes, CRLFs read as LFs
        self._backend = backend  # who sends the bytes, for the error past the bound

    def feed(self, piece: bytes) -> Iterator[tuple[bytes, bytes | None]]:
        pending = self._pending
        if pending:
            joined = self._joined(piece)
            if joined is None:
                return
            piece = joined
        elif b"\r" in piece:
            piece = piece.replace(b"\r\n", b"\n")
        # One split instead of a find-and-slice per event: a piece often holds a whole stream.
        *events, tail = piece.split(b"\n\n")
        if len(piece) > MAX_EVENT_BYTES:  # it may hold an event past the bound
            yield from self._bounded(events, tail)
            return
        if tail:
            pending += tail
        for body in events:
            raw = body + b"\n\n"
            yield raw, data_of(raw)

    def _joined(self, piece: bytes) -> bytes | None:
        """The pending event with `piece` after it, to split, if the event ends in `piece`;
        else None, and `piece` waits with it. Only the new bytes are searched: the blank
        line that ends the event begins at pending's last byte at the earliest."""
        pending = self._pending
        start = len(pending) - 1
        if pending[start] == CR and piece[:1] == b"\n":
            del pending[start]  # a CRLF cut between pieces
            start = max(start - 1, 0)
        if b"\r" in piece:
            piece = piece.replace(b"\r\n", b"\n")
        pending += piece
        if pending.find(b"\n\n", start) < 0:
            if len(pending) > MAX_EVENT_BYTES:
                pending.clear()
                raise self._too_long()
            return None
        joined = bytes(pending)
        pending.clear()
        return joined

    def _bounded(self, events: list[bytes], tail: bytes) -> Iterator[tuple[bytes, bytes | None]]:
        """`feed`'s events for a piece longer than the bound, which may hold one past it."""
        over = len(tail) > MAX_EVENT_BYTES
        if not over:
            self._pending += tail
        for body in events:
            raw = body + b"\n\n"
            if len(raw) > MAX_EVENT_BYTES:
                raise self._too_long()
            yield raw, data_of(raw)
        if over:
            raise self._too_long()

    def rest(self) -> bytes:
        """Whatever arrived after the last complete event (a cut stream leaves some)."""
        rest = bytes(self._pending)
        self._pending.clear()
        return rest

    def _too_long(self) -> Malformed:
        said = f"a streamed event longer than {MAX_EVENT_BYTES >> 20} MiB ({MAX_EVENT_BYTES} bytes)"
        name = self._backend
        return Malformed(f"{name}: {said}" if name else said, backend=name)


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


def reframed(raw: bytes, data: bytes) -> bytes:
    """`raw`'s event with `data` for its data: its `id:`, `event:` and `retry:` lines kept."""
    kept = [line for line in raw.splitlines() if line and not line.startswith(b"data:")]
    return b"".join(line + b"\n" for line in kept) + event(data)
