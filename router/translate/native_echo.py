"""A native Responses reply echoing the `previous_response_id` the router took out.

A turn continuing a response the router made over a chat backend reaches every backend as
the whole conversation, without the id (`router.stored_responses.whole`): no backend holds
it. A backend that speaks Responses itself then answers a request that named no previous
response, and its Response says `previous_response_id: null`; the client, which sent the
id, reads a reply to another request (OpenAI's echoes the id, and so does the Response the
router makes over chat, `call.Call.asked`). So the native reply passes through as sent but
for that one field, set to the client's id: in a whole reply, and in each streamed event
that carries the Response (`response.created`, `response.in_progress`,
`response.completed`, ...), its other lines kept. Any other reply, or one to a turn that
sent its id on, goes through untouched.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import orjson

from router.attempt_errors import Malformed
from router.backends.base import Reply
from router.sse import Built, Data, EventBuffer, Written, reframed


def taken_out(body: dict[str, Any], asked: dict[str, Any] | None) -> str | None:
    """The `previous_response_id` the client `asked` that the `body` sent no longer names."""
    previous = asked.get("previous_response_id") if asked is not None else None
    if not isinstance(previous, str) or not previous:
        return None
    return previous if body.get("previous_response_id") != previous else None


def echoing(reply: Reply, previous: str, backend: str) -> Reply:
    """`reply`, a native backend's, echoing `previous` as its `previous_response_id`."""
    if reply.body is not None:
        return dataclasses.replace(reply, body=_echoed_body(reply.body, previous))
    assert reply.stream is not None
    return dataclasses.replace(reply, stream=_echoed_stream(reply.stream, previous, backend))


def _echoed_body(body: bytes, previous: str) -> bytes:
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body  # not a Response: the reply checks say what it is (`reply_checks`)
    if not _is_response(obj):
        return body
    return orjson.dumps(_with_previous(obj, previous))


async def _echoed_stream(
    pieces: AsyncIterator[bytes], previous: str, backend: str
) -> AsyncIterator[bytes]:
    """One `Written` piece per upstream piece (the relay's stall timer counts pieces), of
    its whole events, each carrying the Response echoing `previous`. The events before one
    longer than the bound still go out, as the relay sends them (`sse.EventBuffer`)."""
    buffer = EventBuffer(backend)
    async for piece in pieces:
        events: list[bytes] = []
        try:
            for raw, data in buffer.feed(piece):
                events.append(_echoed_event(raw, data, previous))
        except Malformed:
            if events:
                yield Written.of(events)
            raise
        yield Written.of(events)


def _echoed_event(raw: bytes, data: Data, previous: str) -> bytes:
    """`raw`, or, when its data carries a Response (only events whose data names one are
    decoded: the deltas, most of a stream, are not), the event carrying it echoing
    `previous`."""
    if not isinstance(data, bytes) or b'"response"' not in data:
        return raw
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return raw  # garbage: the relay's to report, as sent
    if not isinstance(obj, dict) or not _is_response(obj.get("response")):
        return raw
    payload = {**obj, "response": _with_previous(obj["response"], previous)}
    event = Built(reframed(raw, orjson.dumps(payload)))
    event.payload = payload
    return event


def _is_response(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("object") == "response"


def _with_previous(response: dict[str, Any], previous: str) -> dict[str, Any]:
    """`response` echoing `previous`, its keys in their order (the field where it was)."""
    return {**response, "previous_response_id": previous}
