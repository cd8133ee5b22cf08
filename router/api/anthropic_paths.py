"""Anthropic's paths, and the request id every answer on them names as Anthropic's API does.

The router names each answer's id `x-request-id`; Anthropic's API names it `request-id`, the
only header the `anthropic` SDKs read it from (`APIStatusError.request_id`, a raw
response's `request_id`) and the one Claude Code shows with an error. On these paths every
answer carries both, equal: the app's send adds the second (`named`, in `router.app`), so
no answer (a whole one, a stream, a count, the front's refusals, an error handler's, a 404
or 405 from the route table) has to remember it. Answers on other paths keep the one name.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]

ANTHROPIC_PATHS = ("/v1/messages", "/v1/v1/messages")  # the second: a base URL ending in /v1


def anthropic_path(path: str) -> bool:
    """Whether `path` is Messages' or one under it (`count_tokens`, a near miss's 404)."""
    return path.startswith(ANTHROPIC_PATHS)


def named(send: Send) -> Send:
    """`send`, with the start of the response naming its `x-request-id` as `request-id` too."""

    async def send_named(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", ()))
            found = [value for name, value in headers if name.lower() == b"x-request-id"]
            if found:
                message = {**message, "headers": [*headers, (b"request-id", found[0])]}
        await send(message)

    return send_named
