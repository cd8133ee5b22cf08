"""What reading an input sent whole against the conversation the router keeps costs
(`StoredItems.related`, `router/stored_items.py`), on the event loop of every such turn.

    .venv/bin/python tests/bench/bench_stored_items.py [--rounds 7] [--sizes 1,4,8]

Keeps, through `StoredItems.keep` as the gateway does, one caller's chain of turns of about
1, 4 and 8 MB (the default body limit is 8 MiB) in three shapes: a chat (an ask and an
answer of ~8 KB each a turn), an agent's tool loop (a tool output and the router's call of
~2 KB each a turn: thousands of turns) and one turn of many small messages (~130 bytes
each: 65,000 in 8 MB, the shape of the 2026-12-06 section of docs/benchmarks.md). Then
times `related` for the conversation sent back whole with a new ask, the router's items
written back as the openai SDK's `model_dump` writes them (nulls added): one that matches,
one whose first item the client edited, and one whose last answer it rewrote; and
`history`, what a turn continuing by `previous_response_id` reads. Median CPU ms of
`--rounds` calls each; bounded by the rounds and sizes given. Run it from another
checkout's root to compare versions: it imports `router` from the working directory.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd()))

from router.heap import settle
from router.stored_items import Own, StoredItems

LIMIT = 64 << 20
ANSWER_PART = {"type": "output_text", "annotations": [], "logprobs": []}


def chat_turn(turn: int, size: int) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """The turn's own input, the router's answer, and that answer as the openai SDK writes it
    back (`phase: null`, `logprobs: null`)."""
    ask = {"type": "message", "role": "user", "content": f"ask {turn} " + "x" * size}
    part = {**ANSWER_PART, "text": f"answer {turn} " + "y" * size}
    answer = {
        "type": "message",
        "id": f"msg_{turn}",
        "status": "completed",
        "role": "assistant",
        "content": [part],
    }
    written = {**answer, "phase": None, "content": [{**part, "logprobs": None}]}
    return [ask], answer, written


def loop_turn(turn: int, size: int) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """A tool loop's step: the tool's output, then the router's next call."""
    output = {"type": "function_call_output", "call_id": f"call_{turn - 1}", "output": "o" * size}
    call = {
        "type": "function_call",
        "id": f"fc_{turn}",
        "call_id": f"call_{turn}",
        "name": "read_file",
        "arguments": '{"path": "' + "p" * size + '"}',
        "status": "completed",
    }
    return [output], call, {**call, "namespace": None}


def long_turn(turn: int, total: int) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """One turn of short messages (~130 bytes each, as Codex writes them) holding `total`
    bytes, then the router's answer."""
    asks = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        for text in (f"line {i} " + "z" * 40 for i in range(total // 130))
    ]
    _, answer, written = chat_turn(turn, 10)
    return asks, answer, written


SHAPES: dict[str, tuple[Callable[[int, int], Any], int]] = {
    "chat, 8 KB items": (chat_turn, 8_000),
    "tool loop, 2 KB items": (loop_turn, 2_000),
    "one turn, 130 B items": (long_turn, 0),
}


def kept(shape: str, total: int) -> tuple[StoredItems, list[Any], str]:
    """The chain kept (turns until `total` bytes are held), the conversation as the client
    holds it, and the last response's id."""
    make, size = SHAPES[shape]
    items = StoredItems(30 * 86400, 10_000_000, time.monotonic)
    conversation: list[Any] = []
    previous: str | None = None
    turn = 0
    while items.table.bytes < total and (turn == 0 or size):
        turn += 1
        own, answer, written = make(turn, size or total)
        items.keep("alice", [answer], f"resp_{turn}", Own(previous, own))
        previous = f"resp_{turn}"
        conversation += [*own, written]
    return items, conversation, f"resp_{turn}"


def median_ms(call: Callable[[], Any], rounds: int) -> float:
    """The median CPU time of `rounds` calls, in ms: what the event loop is held for on an
    idle machine; the wall time on this shared VM moved by 2x between identical runs."""
    times = []
    for _ in range(rounds):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sizes", default="1,4,8", help="MB held, comma-separated")
    args = parser.parse_args()
    settle()  # the collector as `serve` sets it
    print("| shape | MB held | items | match | first edited | last rewritten | history |")
    print("|---|---|---|---|---|---|---|")
    for shape in SHAPES:
        for mb in (int(size) for size in args.sizes.split(",")):
            items, conversation, last = kept(shape, mb << 20)
            ask = {"type": "message", "role": "user", "content": "next"}
            match = [*conversation, ask]
            first = [{"role": "user", "content": "edited"}, *conversation[1:], ask]
            rewritten = {**conversation[-1], "arguments": "{}", "content": "rewritten"}
            last_edit = [*conversation[:-1], rewritten, ask]
            found = items.related("alice", match, LIMIT)
            assert found.found and found.items == [ask], "the conversation must match"
            assert items.related("alice", first, LIMIT).whole
            assert items.related("alice", last_edit, LIMIT).whole
            calls = [partial(items.related, "alice", body, LIMIT) for body in (match, first)]
            calls.append(partial(items.related, "alice", last_edit, LIMIT))
            cells = [median_ms(call, args.rounds) for call in calls]
            cells.append(median_ms(partial(items.history, "alice", last, LIMIT), args.rounds))
            shown = " | ".join(f"{cell:.1f}" for cell in cells)
            held = items.table.bytes / 1e6
            print(f"| {shape} | {held:.1f} | {len(conversation)} | {shown} |", flush=True)


if __name__ == "__main__":
    main()
