"""What splitting an upstream's bytes into events costs (`router.sse.EventBuffer`), in-process.

    .venv/bin/python tests/bench/bench_sse.py [--rounds 2000]

An event that never ends (an upstream gone wrong, the simulator's `endless_event`): µs
for one more 64 KiB piece once 1, 4 and 15 MiB of it are pending, which must not grow with
what is pending (it did: the whole pending event was re-joined and re-split at each piece).
Ordinary streams, the hot path: a 20-token chat stream in one piece (a zero-latency
upstream sends it so), one event a piece, and cut every 100 bytes (the most pieces an
event); µs per stream. One long event, a 1 MiB `response.completed` in 16 KiB pieces. Each
the least CPU time of 5 repeats. Run it from another checkout's root to compare versions:
it imports `router` from the working directory.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from router.sse import EventBuffer

PIECE = b"a" * 2**16
START = b'data: {"choices":[{"index":0,"delta":{"content":"'
REPEATS = 5
FURTHER = 4  # pieces timed once the event is as long as asked


def _chunk(text: str, finish: str = "null") -> bytes:
    choice = f'{{"index":0,"delta":{{"content":"{text}"}},"finish_reason":{finish}}}'
    head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"m",'
    return f'data: {head}"choices":[{choice}]}}\n\n'.encode()


EVENTS = [_chunk(""), *(_chunk(f"tok{i} ") for i in range(20)), _chunk("", '"stop"')]
EVENTS.append(b"data: [DONE]\n\n")
STREAM = b"".join(EVENTS)
CUT = [STREAM[i : i + 100] for i in range(0, len(STREAM), 100)]
# a `response.completed` carrying a long answer, as TLS records of 16 KiB bring it
BIG = b"event: response.completed\ndata: " + b"b" * 2**20 + b"\n\n"
RECORDS = [BIG[i : i + 2**14] for i in range(0, len(BIG), 2**14)]


def pending_cost(mib: int) -> float:
    """µs of CPU for one more 64 KiB piece of an unfinished event once `mib` MiB are
    pending: the mean of the next `FURTHER`, the least of `REPEATS` buffers."""
    best = float("inf")
    for _ in range(REPEATS):
        buffer = EventBuffer()
        list(buffer.feed(START))
        for _ in range(mib * 16):
            list(buffer.feed(PIECE))
        started = time.process_time()
        for _ in range(FURTHER):
            list(buffer.feed(PIECE))
        best = min(best, (time.process_time() - started) / FURTHER * 1e6)
    return best


def stream_cost(pieces: list[bytes], rounds: int) -> float:
    """µs of CPU per whole stream fed as `pieces`."""
    best = float("inf")
    for _ in range(REPEATS):
        started = time.process_time()
        for _ in range(rounds):
            buffer = EventBuffer()
            for piece in pieces:
                for _event in buffer.feed(piece):
                    pass
        best = min(best, (time.process_time() - started) / rounds * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, help="streams per ordinary cell")
    rounds = min(max(parser.parse_args().rounds, 1), 100_000)
    print("| an event that never ends: pending | µs per further 64 KiB piece |")
    print("|---|---|")
    for mib in (1, 4, 15):
        print(f"| {mib} MiB | {pending_cost(mib):.1f} |")
    print()
    print(f"| ordinary stream ({len(EVENTS)} events, {len(STREAM):,} bytes) | µs per stream |")
    print("|---|---|")
    cells = {"in one piece": [STREAM], "one event a piece": EVENTS, "cut every 100 bytes": CUT}
    for name, pieces in cells.items():
        print(f"| {name} | {stream_cost(pieces, rounds):.1f} |")
    print()
    print("| one 1 MiB event in 16 KiB pieces | µs per event |")
    print("|---|---|")
    print(f"| {len(RECORDS)} pieces | {stream_cost(RECORDS, max(rounds // 20, 1)):.1f} |")


if __name__ == "__main__":
    main()
