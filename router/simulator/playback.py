"""Delivering a generation over the socket: pacing tokens and breaking mid-body on purpose.

Frames are made as they are sent, so the first token goes out before the last exists, as
from a real server. Unpaced, they go out `BATCH` at a time (each SSE event still its own
HTTP chunk): a short stream in one write, which makes the simulator a fast fake upstream
for benchmarks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator

import orjson

from router.simulator.faults import IN_BAND, TOKENS_BEFORE_MIDSTREAM_FAULT, Fault
from router.simulator.httpserver import Response
from router.simulator.wire import Frame

MALFORMED = b"data: {this is not json\n\n"
ENDLESS = b'data: {"text": "'  # `endless_event`'s start, then ENDLESS_PIECEs to ENDLESS_BYTES
ENDLESS_PIECE = b"a" * 2**16
ENDLESS_BYTES = 20 * 2**20
QUEUED = b": queued\n\n"
THOUGHT = "Let me think. "  # each reasoning delta of `thinking`
KEEP_ALIVE_S = 0.25
MIDSTREAM = frozenset(
    {"stall", "cut_stream", "malformed_chunk", "endless_event"}
    | {"late_first_token", "thinking", *IN_BAND}
)
PAUSES = frozenset({"stall", "late_first_token"})
ENDINGS = frozenset({"cut_stream", "endless_event", *IN_BAND})  # faults that end it early
PACED = MIDSTREAM | {"cut_before_done"}  # faults the unpaced fast path cannot play
DROP_LAST = frozenset({"missing_done", "cut_before_done"})  # faults without the last frame
BATCH = 256  # frames a write when unpaced: few syscalls, and a first write that comes soon


def _tokens_before(fault: Fault) -> int:
    """How many token frames go out before a mid-stream fault strikes (`late_first_token`,
    `thinking`: none; `error_event:N`, `echo_credentials:N` and `endless_event:N`: N, and -1
    for before the first frame of all)."""
    if fault.name in ("late_first_token", "thinking"):
        return 0
    if fault.name in IN_BAND or fault.name == "endless_event":
        tokens = int(fault.value)
        return tokens if tokens > 0 else -1
    return TOKENS_BEFORE_MIDSTREAM_FAULT


def _marked(frames: Iterable[Frame]) -> Iterator[tuple[bytes, bool, bool]]:
    """(data, is_token, is_last) for each frame, reading one frame ahead."""
    it = iter(frames)
    ahead = next(it, None)
    while ahead is not None:
        current, ahead = ahead, next(it, None)
        yield current[0], current[1], ahead is None


async def stream(
    resp: Response,
    headers: list[tuple[str, str]],
    frames: Iterable[Frame],
    pace: float,
    fault: Fault | None,
    failure: Callable[[int], bytes] | None = None,
    reasoning: str = "reasoning",
) -> None:
    """Send SSE frames as a chunked 200, as they are made, one token per `pace` seconds,
    faults included. A mid-stream fault strikes after a number of token frames, or before
    the last frame if there are fewer; `failure(i)` is the in-band error event that
    `error_event` (or `echo_credentials`) ends the stream with, in place of frame `i`;
    `reasoning` names the delta field `thinking` streams."""
    marked = _marked(frames)
    if fault is not None and fault.name in DROP_LAST:
        marked = ((data, token, False) for data, token, last in marked if not last)
    if fault is not None and fault.name == "queued":
        await resp.start(200, headers)
        await _keep_alive(resp, fault.value)
    elif pace == 0 and (fault is None or fault.name not in PACED):
        await resp.stream_all(200, headers, (data for data, _, _ in marked), BATCH)
        return
    else:
        await resp.start(200, headers)
    strikes = fault if fault is not None and fault.name in MIDSTREAM else None
    before = _tokens_before(strikes) if strikes is not None else 0
    batch: list[bytes] = []
    first = True
    seen = 0
    opening = b""
    for i, (data, is_token, last) in enumerate(marked):
        if i == 0:
            opening = data
        if strikes is not None and (
            (before < 0 and i == 0) or (is_token and seen == before) or (last and before >= 0)
        ):
            await resp.chunks(batch)
            batch = []
            if strikes.name in ENDINGS:
                await _end_early(resp, strikes, failure, i)
                return
            if strikes.name == "thinking":
                await _think(resp, opening, strikes.value, reasoning)
            elif strikes.name in PAUSES:
                await asyncio.sleep(strikes.value)
            else:
                batch.append(MALFORMED)
            strikes = None
        if is_token:
            seen += 1
        if is_token and pace and not first:
            await resp.chunks(batch)
            batch = []
            await asyncio.sleep(pace)
        elif len(batch) >= BATCH:
            await resp.chunks(batch)
            batch = []
        first = first and not is_token
        batch.append(data)
    await resp.chunks(batch)
    await _close(resp, fault)


async def _end_early(
    resp: Response, fault: Fault, failure: Callable[[int], bytes] | None, i: int
) -> None:
    """A mid-stream fault that ends the stream where it strikes, in place of frame `i`: the
    connection cut, an event that never ends, or the in-band error `failure(i)`."""
    if fault.name == "cut_stream":
        resp.cut()
    elif fault.name == "endless_event":
        await _endless(resp)
    else:
        await resp.chunks([failure(i)] if failure is not None else [])
        await resp.end()


async def _endless(resp: Response) -> None:
    """An event that never ends (`endless_event`): a `data:` line opening a string, its
    pieces as fast as the client reads them, until `ENDLESS_BYTES` went out; then the
    connection closes mid-body, where a real upstream would go on."""
    await resp.chunks([ENDLESS])
    sent = len(ENDLESS)
    while sent < ENDLESS_BYTES:
        await resp.chunks([ENDLESS_PIECE])
        sent += len(ENDLESS_PIECE)
    resp.cut()


async def _close(resp: Response, fault: Fault | None) -> None:
    """The body's end: `cut_before_done` closes the connection where it was due, mid-body."""
    if fault is not None and fault.name == "cut_before_done":
        resp.cut()
    else:
        await resp.end()


async def _think(resp: Response, opening: bytes, seconds: float, field: str) -> None:
    """Reasoning deltas every `KEEP_ALIVE_S` until `seconds` have passed, shaped like the
    stream's own opening chunk: what vLLM's reasoning parser streams before the answer, its
    text in `field`."""
    chunk = orjson.loads(opening.removeprefix(b"data: ").strip())
    chunk.pop("usage", None)
    delta = {field: THOUGHT}
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


async def refused(resp: Response, headers: list[tuple[str, str]], event: bytes) -> None:
    """A stream the server refused once it had begun (vLLM's engine checks a structured-
    output constraint after its 200): the 200, the error `event`, the end. With no event,
    the connection closes after the 200: vLLM 0.32's Responses stream, whose error handler
    fails once the response has started (it sends `response.created` and
    `response.in_progress` first; the simulator, nothing)."""
    await resp.start(200, headers)
    if not event:
        resp.cut()
        return
    await resp.chunks([event])
    await resp.end()


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
