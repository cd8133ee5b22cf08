"""A native Responses reply to a turn whose `previous_response_id` the router took out echoes
it (`router.translate.native_echo`), and changes nothing else: the events that carry no
Response go out byte for byte, however the upstream cut its pieces."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import orjson

from router.backends.base import Reply
from router.sse import Written
from router.translate.native_echo import echoing, taken_out

PREVIOUS = "resp_chatcmpl-1"


def response(status: str) -> dict[str, Any]:
    return {"id": "resp_2", "object": "response", "status": status, "previous_response_id": None}


def sse(kind: str, payload: dict[str, Any]) -> bytes:
    return b"event: " + kind.encode() + b"\ndata: " + orjson.dumps(payload) + b"\n\n"


CREATED = sse("response.created", {"type": "response.created", "response": response("queued")})
DELTA = sse(  # a delta whose text quotes the word: not a Response
    "response.output_text.delta",
    {"type": "response.output_text.delta", "delta": 'say "response": 1', "sequence_number": 1},
)
DONE = sse("response.completed", {"type": "response.completed", "response": response("completed")})


async def pieces(stream: bytes, cuts: list[int]) -> AsyncIterator[bytes]:
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        yield stream[start:end]


def relayed(stream: bytes, cuts: list[int]) -> list[Written]:
    reply = echoing(Reply(200, {}, stream=pieces(stream, cuts)), PREVIOUS, "local")
    assert reply.stream is not None and reply.translation is None  # still the backend's own

    async def read(out: AsyncIterator[bytes]) -> list[Written]:
        return [piece async for piece in out]  # type: ignore[misc]

    return asyncio.run(read(reply.stream))


def test_each_event_carrying_the_response_echoes_the_id_and_no_other_changes() -> None:
    stream = CREATED + DELTA + DONE
    cuts = [10, len(CREATED) + 5, len(CREATED) + len(DELTA) + 3]  # each event split
    out = relayed(stream, cuts)
    assert len(out) == len(cuts) + 1  # one piece per upstream piece, for the stall timer
    events = [raw for piece in out for raw, _ in piece.events]
    assert len(events) == 3 and events[1] == DELTA
    for raw, sent in ((events[0], CREATED), (events[2], DONE)):
        assert raw.split(b"\n")[0] == sent.split(b"\n")[0]  # its `event:` line kept
        echoed, given = (orjson.loads(e.split(b"data: ", 1)[1]) for e in (raw, sent))
        given["response"]["previous_response_id"] = PREVIOUS  # that field, and nothing else
        assert echoed == given and list(echoed["response"]) == list(given["response"])


def test_a_whole_reply_echoes_the_id_and_another_body_passes_as_sent() -> None:
    whole = orjson.dumps(response("completed"))
    body = echoing(Reply(200, {}, body=whole), PREVIOUS, "local").body
    assert body is not None and orjson.loads(body) == {
        **response("completed"),
        "previous_response_id": PREVIOUS,
    }
    for other in (b'{"object": "list"}', b"not json"):
        assert echoing(Reply(200, {}, body=other), PREVIOUS, "local").body == other


def test_only_an_id_taken_out_is_echoed() -> None:
    asked = {"input": "hi", "previous_response_id": PREVIOUS}
    assert taken_out({"input": []}, asked) == PREVIOUS
    assert taken_out(asked, asked) is None  # sent on: the backend echoes it itself
    assert taken_out({"input": "hi"}, {"input": "hi"}) is None
    assert taken_out({"input": "hi"}, None) is None
