"""A tiny OpenAI chat-completions server for the evals tests (real uvicorn on 127.0.0.1:0).

Tests script it with a ``responder(body) -> (status, payload)``; it records every request
body and the peak number of requests in flight.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

Responder = Callable[[dict[str, Any]], Awaitable[tuple[int, Any]]]


def completion(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    reasoning: str | None = None,
) -> dict[str, Any]:
    """A chat.completion object shaped like vLLM's."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "tool_calls": tool_calls or [],
    }
    if reasoning is not None:
        message["reasoning"] = reasoning
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


async def _echo(body: dict[str, Any]) -> tuple[int, Any]:
    return 200, completion("echo: " + body["messages"][-1]["content"])


@dataclass
class FakeServer:
    """State shared between the test and the app."""

    responder: Responder = _echo
    bodies: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    in_flight: int = 0
    peak: int = 0
    base_url: str = ""

    async def endpoint(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.bodies.append(body)
        self.headers.append(dict(request.headers))
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            status, payload = await self.responder(body)
        finally:
            self.in_flight -= 1
        return JSONResponse(payload, status_code=status)


@contextmanager
def serve(state: FakeServer | None = None) -> Iterator[FakeServer]:
    """Run the fake server in a thread for the duration of the block."""
    state = state or FakeServer()
    app = Starlette(routes=[Route("/v1/chat/completions", state.endpoint, methods=["POST"])])
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("fake server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    state.base_url = f"http://127.0.0.1:{port}/v1"
    try:
        yield state
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def sleep_then(delay: float, status: int, payload: Any) -> tuple[int, Any]:
    """Helper for responders that simulate generation time."""
    await asyncio.sleep(delay)
    return status, payload
