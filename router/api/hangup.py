"""A client that hangs up while its request is served: noticed, and the work stopped.

uvicorn drops writes to a closed connection silently and reports a hang-up only to a
waiting `receive()`. Once the body is read, a watcher task waits there for the whole
request; a hang-up before the answer is complete cancels the request's task. Attempts close
their upstream and release their backend on that cancellation, and the record says
`cancelled`. Without it a client gone before the first byte kept its backend generating
to the end, or had the router wait out a first-token deadline and open a new, billed cloud
attempt for nobody. (Starlette's StreamingResponse listened the same way, while streaming.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from router.call import Call

Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]


@dataclass(slots=True)
class Reply:
    """How far the answer to the client got; the front and the watcher share it."""

    started: bool = False  # the response start went out
    finished: bool = False  # the last body message went out (or is going): no more cancelling


def watch(receive: Receive, reply: Reply, call: Call) -> asyncio.Task[None]:
    """Watch for the client's hang-up on behalf of the current task (the body is read).
    `call.client_left` tells whoever sees the cancellation that it was the client's."""
    task = asyncio.current_task()
    assert task is not None
    return asyncio.get_running_loop().create_task(_watch(receive, task, reply, call))


async def _watch(receive: Receive, task: asyncio.Task[Any], reply: Reply, call: Call) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    if not reply.finished:
        call.client_left = True
        task.cancel()
