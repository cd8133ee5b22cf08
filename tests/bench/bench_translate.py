"""What translating a chat stream costs per chunk: chat -> Anthropic Messages and -> Responses.

    .venv/bin/python tests/bench/bench_translate.py [--rounds 300]

Feeds parsed chat chunks (as the relay does) into `MessagesStream` and `ResponsesStream` and
reports the CPU time per chunk: a 200-chunk text answer, and an answer with two tool calls of
20 argument pieces each, sequential (how OpenAI and vLLM stream them) and interleaved. Bounded
by `--rounds` (each round is one whole stream of each kind). Run it from another checkout's
root to compare versions: it imports `router` from the working directory.

`--long-call FRAGMENTS` times instead what the relay's tally spends keeping one long tool
call (an agent writing a large file) for shadow comparison, chat and Messages events alike.

`--requests` times instead the request side on Messages bodies of many consecutive assistant
turns, each within the 8 MiB body limit: `to_chat` on the whole body (what is forwarded,
run on the event loop) and `chat_view` (what the classifier reads), median wall ms.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd()))

from router.relay import Tally
from router.translate import anthropic_reply, anthropic_request, responses_reply
from router.translate.view import chat_view


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}


def call(index: int, piece: str, name: str | None = None) -> dict[str, Any]:
    fragment: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
    if name:
        fragment |= {"id": f"call_{name}", "type": "function"}
        fragment["function"]["name"] = name
    return chunk({"tool_calls": [fragment]})


def pieces_of(name: str) -> list[str]:
    text = json.dumps({"path": f"src/{name}.py", "content": "x = 1\n" * 40})
    size = len(text) // 20 + 1
    return [text[i : i + size] for i in range(0, len(text), size)]


def streams() -> dict[str, list[dict[str, Any]]]:
    start = chunk({"role": "assistant", "content": ""})
    text = [start, *(chunk({"content": f"word{i} "}) for i in range(200)), chunk({}, "stop")]
    a, b = pieces_of("a"), pieces_of("b")
    first = [call(0, "", "write_a"), *(call(0, p) for p in a)]
    second = [call(1, "", "write_b"), *(call(1, p) for p in b)]
    mixed = [x for pair in zip(first, second, strict=False) for x in pair]
    return {
        "text, 200 chunks": text,
        "2 tool calls, one after the other": [start, *first, *second, chunk({}, "tool_calls")],
        "2 tool calls, interleaved": [start, *mixed, chunk({}, "tool_calls")],
    }


def per_chunk_us(make: Callable[[], Any], chunks: list[dict[str, Any]], rounds: int) -> float:
    started = time.process_time()
    for _ in range(rounds):
        stream = make()
        for c in chunks:
            stream.feed(c)
        stream.end()
    return (time.process_time() - started) / (rounds * len(chunks)) * 1e6


def long_call(fragments: int) -> dict[str, list[dict[str, Any]]]:
    """One tool call whose arguments stream in `fragments` pieces of 20 characters."""
    pieces = ['{"content":"', *("x" * 20 for _ in range(fragments - 2)), '"}']
    chat = [call(0, "", "write_file"), *(call(0, p) for p in pieces)]
    start = {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}
    messages = [
        {"type": "content_block_start", "index": 0, "content_block": start},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"partial_json": p}}
            for p in pieces
        ),
    ]
    return {"chat": chat, "messages": messages}


def tally_ms(api: str, events: list[dict[str, Any]]) -> float:
    tally = Tally(api=api, keep_text=True)  # type: ignore[arg-type]
    started = time.perf_counter()
    for obj in events:
        tally.see(obj)
    arguments = tally.answer_tool_calls()[0]["function"]["arguments"]
    elapsed = (time.perf_counter() - started) * 1e3
    assert json.loads(arguments)["content"], "the kept call is whole JSON"
    return elapsed


def assistant_runs() -> dict[str, dict[str, Any]]:
    """Messages bodies whose assistant turns all merge into one chat message."""
    texts = [(64, 120_000), (1_000, 8_000), (10_000, 700), (50_000, 60)]
    bodies = {
        f"{n:,} text turns of {size:,} chars": [
            {"role": "assistant", "content": [{"type": "text", "text": "a" * size}]}
        ]
        * n
        for n, size in texts
    }
    for n in (10_000, 40_000):
        bodies[f"{n:,} tool_use-only turns"] = [
            {"role": "assistant", "content": [{"type": "tool_use", "id": str(i), "name": "t"}]}
            for i in range(n)
        ]
    return {
        label: {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "go"}, *t]}
        for label, t in bodies.items()
    }


def median_ms(work: Callable[[], Any], times: int = 5) -> float:
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        work()
        spent.append(time.perf_counter() - started)
    return sorted(spent)[times // 2] * 1e3


def requests() -> None:
    print("| body | MiB | to_chat ms | chat_view ms |")
    print("|---|---|---|---|")
    for label, body in assistant_runs().items():
        mib = len(json.dumps(body)) / 2**20
        forwarded = median_ms(lambda b=body: anthropic_request.to_chat(b), 3)
        view = median_ms(lambda b=body: chat_view("messages", b))
        print(f"| {label} | {mib:.1f} | {forwarded:,.1f} | {view:,.1f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300, help="whole streams per cell")
    parser.add_argument("--long-call", type=int, default=0, help="fragments of one tool call")
    parser.add_argument("--requests", action="store_true", help="Messages bodies → chat")
    args = parser.parse_args()
    if args.requests:
        requests()
        return
    if args.long_call:
        fragments = min(max(args.long_call, 3), 100_000)
        for api, events in long_call(fragments).items():
            print(f"{api}: {fragments:,} fragments kept in {tally_ms(api, events):,.0f} ms")
        return
    rounds = min(args.rounds, 5000)
    makers: dict[str, Callable[[], Any]] = {
        "messages": anthropic_reply.MessagesStream,
        "responses": lambda: responses_reply.ResponsesStream({"model": "auto"}),
    }
    print("| stream | messages µs/chunk | responses µs/chunk |")
    print("|---|---|---|")
    for label, chunks in streams().items():
        cells = [f"{per_chunk_us(make, chunks, rounds):.1f}" for make in makers.values()]
        print(f"| {label} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
