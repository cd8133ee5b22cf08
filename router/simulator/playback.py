"""Delivering a generation over the socket: pacing tokens and breaking mid-body on purpose.

Unpaced and fault-free, a whole stream goes out in one write (each SSE event still its own
HTTP chunk), which is what makes the simulator a fast fake upstream for benchmarks.
"""

from __future__ import annotations

import asyncio

import orjson

from router.simulator.faults import TOKENS_BEFORE_MIDSTREAM_FAULT, Fault
from router.simulator.httpserver import Response
from router.simulator.wire import Frame

MALFORMED = b"data: {this is not json\n\n"
QUEUED = b": queued\n\n"
KEEP_ALIVE_S = 0.25
MIDSTREAM = frozenset(
    {"stall", "cut_stream", "malformed_chunk", "error_event", "late_first_token", "thinking"}
)
PAUSES = frozenset({"stall", "late_first_token"})


def trigger_index(frames: list[Frame], fault: Fault) -> int:
    """Where a mid-stream fault strikes: after two token frames (`late_first_token`: before
    the first; `error_event:N`: after N, and 0 before the first frame of all), or before
    the tail."""
    tokens = TOKENS_BEFORE_MIDSTREAM_FAULT
    if fault.name in ("late_first_token", "thinking"):
        tokens = 0
    elif fault.name == "error_event":
        tokens = int(fault.value)
        if tokens <= 0:
            return 0
    seen = 0
    for i, (_, is_token) in enumerate(frames):
        if is_token:
            if seen == tokens:
                return i
            seen += 1
    return max(len(frames) - 1, 0)


async def stream(
    resp: Response,
    headers: list[tuple[str, str]],
    frames: list[Frame],
    pace: float,
    fault: Fault | None,
    failure: bytes = b"",
) -> None:
    """Send SSE frames as a chunked 200, one token per `pace` seconds, faults included;
    `failure` is the in-band error event that `error_event` ends the stream with."""
    if fault is not None and fault.name == "missing_done":
        frames = frames[:-1]
    if fault is not None and fault.name == "queued":
        await resp.start(200, headers)
        await _keep_alive(resp, fault.value)
    elif pace == 0 and (fault is None or fault.name not in MIDSTREAM):
        await resp.stream_all(200, headers, [data for data, _ in frames])
        return
    else:
        await resp.start(200, headers)
    trigger = trigger_index(frames, fault) if fault is not None and fault.name in MIDSTREAM else -1
    batch: list[bytes] = []
    first = True
    for i, (data, is_token) in enumerate(frames):
        if i == trigger and fault is not None:
            await resp.chunks(batch)
            batch = []
            if fault.name == "cut_stream":
                resp.cut()
                return
            if fault.name == "error_event":
                await resp.chunks([failure])
                await resp.end()
                return
            if fault.name == "thinking":
                await _think(resp, frames[0][0], fault.value)
            elif fault.name in PAUSES:
                await asyncio.sleep(fault.value)
            else:
                batch.append(MALFORMED)
        if is_token and pace and not first:
            await resp.chunks(batch)
            batch = []
            await asyncio.sleep(pace)
        first = first and not is_token
        batch.append(data)
    await resp.chunks(batch)
    await resp.end()


async def _think(resp: Response, opening: bytes, seconds: float) -> None:
    """Reasoning deltas every `KEEP_ALIVE_S` until `seconds` have passed, shaped like the
    stream's own opening chunk: what vLLM's reasoning parser streams before the answer."""
    chunk = orjson.loads(opening.removeprefix(b"data: ").strip())
    chunk.pop("usage", None)
    delta = {"reasoning_content": "Let me think. "}
    chunk["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}]
    thought = b"data: " + orjson.dumps(chunk) + b"\n\n"
    end = asyncio.get_running_loop().time() + seconds
    while (left := end - asyncio.get_running_loop().time()) > 0:
        await resp.chunks([thought])
        await asyncio.sleep(min(KEEP_ALIVE_S, left))


async def _keep_alive(resp: Response, seconds: float) -> None:
    """SSE comments every `KEEP_ALIVE_S` until `seconds` have passed. A queued request gets
    its headers at once (vLLM's server sends them before the first token) and, from busy
    cloud gateways, keep-alive comments; a client that leaves meanwhile raises `ClientGone`."""
    end = asyncio.get_running_loop().time() + seconds
    while (left := end - asyncio.get_running_loop().time()) > 0:
        await resp.chunks([QUEUED])
        await asyncio.sleep(min(KEEP_ALIVE_S, left))


async def whole(
    resp: Response,
    headers: list[tuple[str, str]],
    body: bytes,
    fault: Fault | None,
) -> None:
    """Send a complete JSON response; mid-body faults break it halfway."""
    name = fault.name if fault is not None else None
    if name == "malformed_chunk":
        await resp.send(200, headers, body[: len(body) // 2])
    elif name == "cut_stream":
        await resp.send_partial(200, headers, body)
        resp.cut()
    elif name == "stall" and fault is not None:
        await resp.send_partial(200, headers, body)
        await asyncio.sleep(fault.value)
        await resp.write(body[len(body) // 2 :])
    else:
        await resp.send(200, headers, body)
