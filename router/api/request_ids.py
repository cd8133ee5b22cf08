"""The request id on every answer, whoever gives it.

Each answer names its request in `x-request-id` (the client's own when valid, else a new
one), so that a user can quote it in a bug report and an operator find it in the log and
the ledger. The front, the endpoints and the error handlers set it where they know the
record's; what answers without any of them, Starlette's redirect of a near-miss path
(`/v1/chat/completions/`, 307), `/v1/models` or an admin endpoint, gets one here, at the
start of its response (on Anthropic's paths `router.api.anthropic_paths` then names it
`request-id` too).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from router import request as req
from router.api.headers import request_headers

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]


def identified(send: Send, scope: MutableMapping[str, Any]) -> Send:
    """`send`, with the start of a response that names no `x-request-id` naming one."""

    async def send_identified(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", ()))
            if not any(name.lower() == b"x-request-id" for name, _ in headers):
                given = req.request_id(request_headers(scope)).encode("latin-1")
                message = {**message, "headers": [*headers, (b"x-request-id", given)]}
        await send(message)

    return send_identified
