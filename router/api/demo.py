"""The mark on every answer of a router in demo mode, so no client mistakes it for real.

The demo's answers come from the built-in simulator. The log says so once, at start; a
client (or someone reading a captured response) sees only the answer, which looks real.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]

HEADER = (b"x-smf-demo", b"true")


def marked(send: Send) -> Send:
    """`send`, with `x-smf-demo: true` added to the start of the response."""

    async def send_marked(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), HEADER]}
        await send(message)

    return send_marked
