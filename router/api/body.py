"""Reading a request body with a size limit, before any JSON parsing."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from router.errors import BadRequest, BodyTooLarge
from router.request import parse_json


async def read_json(request: Request, limit: int) -> dict[str, Any]:
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise BadRequest("invalid Content-Length header")
        if int(declared) > limit:
            raise BodyTooLarge(f"the request body is larger than the limit of {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"the request body is larger than the limit of {limit} bytes")
        chunks.append(chunk)
    return parse_json(b"".join(chunks))
