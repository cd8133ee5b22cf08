"""What the relay spends per streamed answer, by API, in-process: chat, Responses passed
through, and Responses translated from a chat backend's stream.

    .venv/bin/python tests/bench/bench_relay.py [--rounds 2000]

The router's CPU per request (`bench_proxy.py`) moves by ±10-15 % between identical runs on
a shared VM, more than a change to the relay is worth; this times `relay()` alone. The
streams are the simulator's own (fetched once, 20-token answers, as `bench_proxy.py` asks),
fed one event per piece, as an upstream that flushes every token sends them. Reported: CPU
µs per stream and per client event, events and bytes sent. Bounded by `--rounds` (whole
streams per cell). Run it from another checkout's root to compare versions: it imports
`router` from the working directory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx

sys.path.insert(0, str(Path.cwd()))

from bench_proxy import PATHS, body, start_upstream, stop

from router.backends.base import Reply
from router.call import Call, Committed
from router.dispatch import Dispatcher
from router.record import Attempt, Record
from router.relay import Tally, relay
from router.translate.exchange import _translated, stream_for

DISPATCHER = Dispatcher({})


class _Upstream:
    """What the relay asks of the committed backend: its name, idle limit and secrets."""

    settings = SimpleNamespace(name="local", timeouts=SimpleNamespace(idle_s=60.0))

    def secret_values(self) -> tuple[str, ...]:
        return ()


async def _pieces(events: list[bytes]) -> AsyncIterator[bytes]:
    for piece in events:
        yield piece


async def one_stream(cell: str, streams: dict[str, list[bytes]], request: dict[str, Any]) -> bytes:
    """Relay one stream of `cell` (chat, native or translated); what the client got."""
    api = "chat" if cell == "chat" else "responses"
    reply = Reply(200, {})
    pieces = _pieces(streams[api])
    if cell == "translated":
        out = stream_for("responses", request)
        pieces = _translated(_pieces(streams["chat"]), out, "local")
        reply = Reply(200, {}, stream=pieces, translation=out)
    committed = Committed(
        backend=_Upstream(),  # type: ignore[arg-type]
        attempt=Attempt("local", "local"),
        reply=reply,
        started=0.0,
        deadline=float("inf"),
        pieces=pieces,
    )
    call = Call(api, request, True, Record("r1", 0.0, api=api), None, 0.0)  # type: ignore[arg-type]
    sent = relay(call, committed, DISPATCHER, lambda *_: None, Tally(api=api))
    return b"".join([chunk async for chunk in sent])


async def timed(cell: str, streams: dict[str, list[bytes]], rounds: int) -> tuple[float, bytes]:
    """CPU µs per stream of `cell` over `rounds` streams, after a warm-up; and one's bytes."""
    request = json.loads(body("auto", True, "responses"))
    for _ in range(min(rounds, 50)):  # warm: caches, first imports
        await one_stream(cell, streams, request)
    started = time.process_time()
    for _ in range(rounds):
        await one_stream(cell, streams, request)
    spent = (time.process_time() - started) / rounds * 1e6
    return spent, await one_stream(cell, streams, request)


def fetch_streams() -> dict[str, list[bytes]]:
    """One streamed answer per API from the simulator, as its events."""
    simulator, upstream = start_upstream()
    try:
        raw = {
            api: httpx.post(
                upstream + path,
                content=body("fake-model", True, api),
                headers={"content-type": "application/json"},
                timeout=30,
            ).content
            for api, path in PATHS.items()
        }
    finally:
        stop(simulator)
    return {api: [e + b"\n\n" for e in data.split(b"\n\n") if e] for api, data in raw.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, help="whole streams per cell")
    args = parser.parse_args()
    rounds = min(max(args.rounds, 1), 20_000)
    streams = fetch_streams()
    print("| stream | events in | bytes out | µs per stream | µs per event out |")
    print("|---|---|---|---|---|")
    for cell in ("chat", "native", "translated"):
        upstream = streams["responses" if cell == "native" else "chat"]
        us, sent = asyncio.run(timed(cell, streams, rounds))
        events = sent.count(b"\n\n")
        print(f"| {cell} | {len(upstream)} | {len(sent):,} | {us:.1f} | {us / events:.2f} |")


if __name__ == "__main__":
    main()
