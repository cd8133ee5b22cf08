"""Reading a request body with a size limit and time limits, before any JSON parsing."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import Request
from starlette.requests import ClientDisconnect

from router.api.headers import request_headers
from router.errors import BadRequest, BodyTimeout, BodyTooLarge, UnsupportedEncoding
from router.request import parse_json

Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
# A client that sent part of a body and then nothing for this long is answered 408: uvicorn
# has no body timeout, and each such client held a task and a socket for good.
BODY_STALL_S = 30.0
# Gaps alone do not bound a body: one byte every 29 s never stalls. So, as Apache's
# mod_reqtimeout does, the whole body must also keep an average rate: each byte received
# buys 1/BODY_MIN_RATE seconds on top of the first BODY_STALL_S. An 8 MB body may take
# over four hours at this rate; a trickle of a few bytes is cut after about 30 s.
BODY_MIN_RATE = 500  # bytes per second


async def read_json(request: Request, limit: int) -> dict[str, Any]:
    """The JSON body of a Starlette request, under the size limit."""
    declared = request_headers(request.scope).get("content-length")
    body = await receive_json(request.receive, declared, limit)
    if body is None:
        raise ClientDisconnect()  # what Starlette's own body reading raises
    return body


async def receive_json(receive: Receive, declared: str | None, limit: int) -> dict[str, Any] | None:
    """`read_json` for a raw ASGI `receive`; None when the client left before the body ended."""
    received = await receive_sized(receive, declared, limit)
    return None if received is None else received[0]


async def receive_sized(
    receive: Receive, declared: str | None, limit: int
) -> tuple[dict[str, Any], bytes] | None:
    """`receive_json`'s body, and its bytes as received: what a shadow job holds and counts
    until its replay (`router.shadow_queue`), kept rather than the parsed body, which is up
    to six times larger, and rather than serialised again."""
    check_declared(declared, limit)
    chunks: list[bytes] = []
    size = 0
    loop = asyncio.get_running_loop()
    started = loop.time()
    while True:
        now = loop.time()
        deadline = started + BODY_STALL_S + size / BODY_MIN_RATE
        try:
            async with asyncio.timeout(min(BODY_STALL_S, deadline - now)):
                message = await receive()
        except TimeoutError:
            if now + BODY_STALL_S > deadline:
                raise BodyTimeout(
                    f"the request body arrived slower than {BODY_MIN_RATE} bytes/s"
                ) from None
            raise BodyTimeout(
                f"the request body stopped arriving for {BODY_STALL_S:.0f} s"
            ) from None
        if message["type"] != "http.request":
            return None  # http.disconnect: nobody is left to answer
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    raw = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    return parse_json(raw), raw


def check_declared(declared: str | None, limit: int) -> None:
    """Refuse a declared Content-Length over the limit before reading a byte of it."""
    if declared is not None:
        if not declared.isdigit():
            raise BadRequest("invalid Content-Length header")
        if int(declared) > limit:
            raise _too_large(limit)


def encoding_refusal(scope: MutableMapping[str, Any]) -> UnsupportedEncoding | None:
    """The refusal of a POST whose body is compressed: the router reads JSON as sent, and
    every body is read by `receive_json`, which sees no headers. Checked before any endpoint
    runs, so a compressed body gets this answer rather than "not valid JSON"."""
    if scope["method"] != "POST":
        return None
    for key, value in scope["headers"]:
        if key == b"content-encoding" and value.strip().lower() not in (b"", b"identity"):
            coding = value.decode("latin-1")[:40]
            return UnsupportedEncoding(
                f"the request body is encoded ({coding}); Content-Encoding is not supported: "
                "send the JSON body uncompressed"
            )
    return None


def _too_large(limit: int) -> BodyTooLarge:
    return BodyTooLarge(f"the request body is larger than the limit of {limit} bytes")
